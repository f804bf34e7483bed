"""oLBFGS, the online limited-memory BFGS of Schraudolph, Yu and Günter (2007), one example per
step, as the SGD-QN paper compares it (rank ``memory`` = 10).

Minimizes F(w) = (sigma/2)||w||^2 + (1/m) sum_i loss(<w, x_i>, y_i). With
g_t(w) = sigma w + loss'(<w, x_t>; y_t) x_t, at step t = 0, 1, ...:

    p_t = - H_t g_t(w_t)          H_t: the L-BFGS two-loop recursion over the last ``memory``
                                  pairs (s_k, y_k), started from the scaling
                                  (1/K) sum_k s_k.y_k / y_k.y_k (Schraudolph et al.'s choice);
                                  with no pair yet, H_0 = I / sigma
    s_t = eta_t p_t,  eta_t = 1 / (t + t0)      (the paper's generic update (2) with B = H_t;
                                                 with H_t = I/sigma it is SGD's step)
                      or eta_t = eta0 t0 / (t0 + t)   (eta0 given: Schraudolph et al.'s
                                                 schedule, tau = t0, eta0 = their eta0/c; the
                                                 first direction, with no pair, is 1e-10 g)
    w_{t+1} = w_t + s_t
    y_t = g_t(w_{t+1}) - g_t(w_t) = sigma s_t + [loss'(<w_{t+1}, x_t>) - loss'(<w_t, x_t>)] x_t

Both gradients are taken on the same example, so y_t is a secant of one example's loss plus
the regularizer and s_t.y_t >= sigma ||s_t||^2 > 0: the update is always defined. Every step
costs O(memory n) dense operations whatever the sparsity of x: the price the SGD-QN paper
says cancels oLBFGS's gain per epoch.

The default call (t0 selected) deviates from the paper in two ways (``olbfgs``'s docstring,
"Accuracy", gives the measured reasons): each step is clipped at the example's own model
minimizer along -H g (``clip``), and the pairs are formed at every ``pair_every`` = 4th step
only, with y averaged over the secants of ``pair_batch`` = 40 examples (the current one and
the 39 before it in the order):

    y_t = sigma s_t + (1/b) sum_{r<b} [loss'(<w_{t+1}, x_r>) - loss'(<w_t, x_r>)] x_r
"""
import math

import numpy as np
from numba import njit

from ..core.checks import (check_int, check_interval, check_memory, check_positive,
                           sigma_keyword)
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem
from ..core.rowops import axpy, dot
from .limits import smoothness, warn_damping
from .svmsgd2 import schedule_hint
from .t0 import choose_t0, storage_pass
from ..core.losses import loss_deriv

#: Schraudolph et al.'s scale of the first direction (no pair yet): eps * g
EPS = 1e-10
#: seconds of one step per memory * n (dense work, whatever the sparsity), measured on the
#: book's 2-core machine: 1.6 ms per step at n = 47,236, memory = 10
SECONDS_PER_MEMORY_N = 3.4e-9
#: progress=None shows a bar when the run is expected to take longer than this (seconds)
PROGRESS_AFTER = 5.0
#: the default call's pairs: y averaged over the secants of PAIR_BATCH examples, one pair
#: every PAIR_EVERY steps (3 PAIR_BATCH / PAIR_EVERY = 30 row operations per step)
PAIR_BATCH = 40
PAIR_EVERY = 4


def _expected_seconds(m, n, epochs, memory):
    """The expected duration of an oLBFGS run: epochs * m steps of memory * n dense work."""
    return epochs * m * memory * n * SECONDS_PER_MEMORY_N


@njit(cache=True)
def olbfgs_steps(data, indices, indptr, y, w, S, Y, rho, gam, state, g, q, alpha, order,
                 start, stop, t_first, sigma, t0, code, dense, scale=1.0, h_first=0.0,
                 damping=0.0, look_ahead=True, curv=0.0, batch=1, every=1):
    """oLBFGS steps on examples order[start:stop]. S, Y: (memory, n) ring buffers of the
    pairs, rho[k] = 1/(s_k.y_k), gam[k] = s_k.y_k / y_k.y_k (the scaling's terms, kept so
    that a step does not recompute y.y); state = [number of pairs stored, index of the
    newest].
    The gain is scale / (t + t0); with no pair yet H = h_first I (1/sigma when 0); each y
    gets damping * s added (Schraudolph et al.'s lambda). A pair is formed at the steps
    t with t % every == 0, its y from the secants of the current example and the batch - 1
    before it in ``order`` (cyclically), averaged (batch = every = 1: the paper's)."""
    M = S.shape[0]
    n = w.shape[0]
    K = int(state[0])
    head = int(state[1])
    t = t_first
    for kk in range(start, stop):
        i = order[kk]
        if look_ahead:  # not for storage order: the hardware streams it
            prefetch_ahead(data, indices, indptr, order, kk, stop, not dense)
        a = indptr[i]
        b = indptr[i + 1]
        d = loss_deriv(code, dot(data, indices, a, b, w, dense), y[i])
        for j in range(n):                          # g = sigma w + loss' x
            g[j] = sigma * w[j]
        axpy(data, indices, a, b, g, d, dense)
        for j in range(n):
            q[j] = g[j]
        # two-loop recursion: q <- H g
        for c in range(K):                          # newest to oldest
            k = (head - c) % M
            s_q = 0.0
            for j in range(n):
                s_q += S[k, j] * q[j]
            alpha[k] = rho[k] * s_q
            for j in range(n):
                q[j] -= alpha[k] * Y[k, j]
        if K > 0:
            h0 = 0.0
            for c in range(K):
                h0 += gam[(head - c) % M]            # s.y / y.y of each pair
            h0 /= K
        else:
            h0 = h_first if h_first > 0.0 else 1.0 / sigma
        for j in range(n):
            q[j] *= h0
        for c in range(K - 1, -1, -1):              # oldest to newest
            k = (head - c) % M
            y_q = 0.0
            for j in range(n):
                y_q += Y[k, j] * q[j]
            beta = rho[k] * y_q
            for j in range(n):
                q[j] += (alpha[k] - beta) * S[k, j]
        eta = scale / (t + t0)
        if curv > 0.0:  # not beyond the example's model minimizer along -q
            xq = dot(data, indices, a, b, q, dense)
            gq = 0.0
            qq = 0.0
            for j in range(n):
                gq += g[j] * q[j]
                qq += q[j] * q[j]
            den = curv * xq * xq + sigma * qq
            if den > 0.0 and gq < eta * den:
                eta = gq / den
        if every > 1 and t % every != 0:   # no pair at this step
            for j in range(n):
                w[j] -= eta * q[j]
            t += 1
            continue
        # the new pair goes into the slot after head (overwriting the oldest when full)
        new = (head + 1) % M
        ss = 0.0
        for j in range(n):
            s_j = -eta * q[j]
            S[new, j] = s_j
            w[j] += s_j
            ss += s_j * s_j
        for j in range(n):
            Y[new, j] = (sigma + damping) * S[new, j]
        if batch <= 1:
            d_new = loss_deriv(code, dot(data, indices, a, b, w, dense), y[i])
            axpy(data, indices, a, b, Y[new], d_new - d, dense)
        else:  # y = sigma s + (1/nb) sum_r [loss'(x_r.w_new) - loss'(x_r.w_old)] x_r
            m_order = order.shape[0]
            nb = min(batch, m_order)
            for r in range(nb):
                i_r = order[(kk - r) % m_order]
                a_r = indptr[i_r]
                b_r = indptr[i_r + 1]
                z_new = dot(data, indices, a_r, b_r, w, dense)
                z_s = dot(data, indices, a_r, b_r, S[new], dense)
                d_r = (loss_deriv(code, z_new, y[i_r])
                       - loss_deriv(code, z_new - z_s, y[i_r]))
                axpy(data, indices, a_r, b_r, Y[new], d_r / nb, dense)
        sy = 0.0
        yy = 0.0
        for j in range(n):
            sy += S[new, j] * Y[new, j]
            yy += Y[new, j] * Y[new, j]
        if ss > 0.0 and sy > 0.0 and yy > 0.0 and sy < math.inf and yy < math.inf:
            rho[new] = 1.0 / sy                       # keep the pair
            gam[new] = 1.0 / (rho[new] * yy)
            head = new
            if K < M:
                K += 1
        elif K == M:              # its slot held the oldest pair: drop it
            K = M - 1
        t += 1
    state[0] = K
    state[1] = head


class _Run:
    def __init__(self, p, memory, t0, eta0=None, damping=0.0, clip=False, batch=1, every=1):
        n = p.n
        self.batch, self.every = batch, every
        self.p, self.t0 = p, t0
        # the clip's curvature bound of the loss (1 for a kinked loss, its kink's scale)
        self.beta = smoothness(p.code, 1.0) if clip else 0.0
        # Schraudolph et al.: eta_t = eta0 t0 / (t0 + t), first direction eps g
        self.scale, self.h_first = (1.0, 0.0) if eta0 is None else (eta0 * t0, EPS)
        self.damping = damping
        self.w = np.zeros(n)
        self.S = np.zeros((memory, n))
        self.Y = np.zeros((memory, n))
        self.rho, self.gam = np.zeros(memory), np.zeros(memory)
        self.state = np.array([0.0, float(memory - 1)])
        self.g, self.q, self.alpha = np.zeros(n), np.zeros(n), np.zeros(memory)

    def steps(self, rows, y, indices, indptr, idx, start, stop, t, look_ahead=True):
        p = self.p
        olbfgs_steps(rows.data, indices, indptr, y, self.w, self.S, self.Y, self.rho,
                     self.gam, self.state, self.g, self.q, self.alpha, idx, start, stop, t,
                     p.sigma, self.t0, p.code, p.dense, self.scale, self.h_first,
                     self.damping, look_ahead, self.beta, self.batch, self.every)


@sigma_keyword
def olbfgs(X, y, *, sigma, epochs, memory=10, loss="squared_hinge", t0=None, eta0=None,
           damping=0.0, clip=None, pair_batch=None, pair_every=None, seed=0,
           order="reshuffle", n_checkpoints=None,
           X_test=None, y_test=None, progress=None):
    """oLBFGS (online L-BFGS, one example per step) on (σ/2)‖w‖² + mean loss.

    Cost per pass: m steps of O(memory · n) dense work each, whatever the sparsity of the
    rows (the two-loop recursion over ``memory`` pairs of length n): measured 1.6 ms per step
    at n = 47,236 and memory = 10 on the book's machine, so one pass over 200,000 such rows
    takes about 5 minutes, where SVMSGD2 takes a tenth of a second. A run expected to take
    more than a few seconds shows a progress bar (``progress``).

    Accuracy (σ = 1e-2; ``tests/test_defaults.py``, ``tests/test_properties.py``,
    ``benchmarks/olbfgs_gaps.py``). The default call (``clip``, t0 selected over the whole
    grid, 40-example pairs every 4 steps) ends within a relative gap of 1e-2 of F* in 100
    epochs: at most 9.0e-3 on the book's small problems (the 60 × 5 case and breast cancer,
    dense and CSR, squared hinge and logistic; logistic at most 1.4e-3) and at most 8.9e-3
    on 120 random 40 – 80-row problems (logistic 2.0e-3); no t0 selection tied at F(0) in
    240 such runs. In 30 epochs: 2.0e-2 (squared hinge) and 2.5e-3 (logistic). The
    squared hinge's margin is thin: over example orders (``seed`` 0 – 7) its gap after 100
    epochs ranges over 0.005 – 0.015 (median 8e-3), so 1e-2 is its typical, not its
    worst, figure.

    Why the default deviates from the paper (measured on the same problems). (1) A pair from
    one example with no loss curvature (squared hinge beyond the margin, logistic far from
    it) has y = σ s, so H reaches I/σ in the directions no pair measured; without the clip
    the gain must keep t0 >= L/(2σ) as for SGD's first step (t0 = 1 or 10 diverges:
    F ~ 1e20 – 1e39), and at such a t0 the gain 1/(t + t0) on a near-Newton H contracts
    every direction only like t0/(t + t0): the selected t0 = 1e3 (60 × 5 data) or 1e5
    (breast cancer) left gaps 2.9 and 10.7 after 30 epochs, and the selection tied at F(0)
    on 24 of 120 random problems. The clip (every t0 stable) removes both. (2) With the
    paper's pairs (``pair_batch=1, pair_every=1``) and the clip, H interpolates single
    examples' secants, an unbiased but rank-one estimate of F's Hessian: after 100 epochs
    the gaps are 0.16 (60 × 5) and 0.022 (breast cancer) on the squared hinge, up to 1.09 on
    the random problems (58 of 120 above 1e-2; logistic up to 0.047), and averaging the
    iterates (Polyak's, of the epochs' ends, or of the run's last half) left 0.02 – 0.16 on
    the 60 × 5 case. The average of 40 examples' secants (Schraudolph et al.'s mini-batch
    pairs, here for y only: the gradient stays one example's) removes that noise; forming a
    pair only every 4th step (as Byrd et al.'s SQN forms its pairs every L steps) keeps its
    cost at 3 · 40 / 4 = 30 row operations per step. What is left is not the pairs' noise:
    exact secants of F (all 569 breast-cancer rows, every step) end at 0.007 – 0.022 on its
    squared hinge after 100 epochs; tail averaging (the last 1/2, 1/4 or 1/10 of the run)
    changed nothing, a larger gain c/(t + t0) (c = 2 – 10) or Schraudolph et al.'s
    η0 t0/(t0 + t) made it worse. Holding H fixed over each epoch (so that a reshuffled pass
    is an incremental gradient method with one preconditioner) brought the 60 × 5 squared
    hinge to 1e-4 but left breast cancer at 0.03 – 0.06 (memory 10 < n = 30: H is h0 I on
    the directions no pair spans for a whole epoch), so it is not used. ``eta0`` and
    ``damping`` do not help the paper's pairs either (the squared hinge diverges for t0 <=
    1e4; damping 0.1 – 1 leaves gaps 0.3 – 1e5).

    Cost of the default pairs (machine loaded, medians of alternated runs): at
    n = 47,236 with 76 non-zeros per row a step took 0.70 × the time of the paper's step
    before this change (1.5 against 2.2 ms: the pairs add 30 d operations and the scaling
    no longer recomputes y·y for every pair, memory · n saved); on dense n = 500 rows
    1.3 – 1.4 × (30 n added to about 45 n).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Training rows (dense or any scipy.sparse format; every step is dense anyway).
    y : array-like, shape (m,)
        Two distinct labels (mapped to -1/+1 in sorted order).
    sigma : float > 0
        Regularization weight σ.
    epochs : int >= 1
        Passes over the data.
    memory : int >= 1, default 10
        Number of (s, y) pairs kept (the rank of the update; the SGD-QN paper used 10).
    loss : str, default 'squared_hinge'
        A classification loss of ``rlmlib.LOSSES``.
    t0 : float > 0 or None
        The gain is 1/(t + t0) on the direction H g (the first step is SGD's,
        g/(σ t0)). None: the selection procedure of SGD-QN on a fixed sample
        (``rlmlib.solvers.t0``: one pass over min(m, 1000) examples per t0 in
        10^0 … 10^10; without ``clip`` a t0 below L/(2σ), L = smoothness · max‖x‖² + σ,
        is never tried and, given, warns).
    eta0 : float > 0 or None
        None: the gain above (the SGD-QN paper's generic update). A number: Schraudolph,
        Yu and Günter's schedule η_t = eta0 · t0 / (t0 + t) (their τ is t0, their η0/c is
        eta0), with their first direction ε g, ε = 1e-10.
    damping : float >= 0, default 0
        Schraudolph et al.'s λ: y_t = g_t(w_{t+1}) - g_t(w_t) + damping · s_t (y_t already
        holds σ s_t, so the pairs are well defined without it).
    clip : bool or None, default None
        True: each step stops at the minimizer, along its direction -q = -H g, of the
        quadratic upper bound of the example's own objective, η_t <= g·q / (β (x·q)² +
        σ‖q‖²) (β the loss's smoothness, 1 for a kinked loss; O(n) per step, no second
        two-loop); every t0 is then stable, and the selection tries the whole grid. None:
        clip when t0 is selected (the default call), not for a given t0 (the paper's
        oLBFGS as written).
    pair_batch : int >= 1 or None, default None
        The pair's y averages the secants of this many examples: the current one and the
        ones before it in the epoch's order (cyclically; at most m). 1: the paper's
        one-example pair. None: ``PAIR_BATCH`` = 40 when t0 is selected, 1 for a given
        t0. Costs 3 · pair_batch row operations per pair.
    pair_every : int >= 1 or None, default None
        A pair is formed at the steps t with t % pair_every == 0 (the others only step).
        1: every step (the paper's). None: ``PAIR_EVERY`` = 4 when t0 is selected, 1 for
        a given t0.
    seed : int >= 0
        Seed of the example order (and of the t0 subset).
    order : {'reshuffle', 'shuffle_once', 'cyclic'}
        Example order.
    n_checkpoints : int or None
        None: no intermediate evaluation. N: an exact trace at N checkpoints.
    X_test, y_test : optional
        A held-out set; the trace then records its accuracy.
    progress : bool or None
        Show a progress bar (tqdm). None: when the run is expected to take more than
        ``PROGRESS_AFTER`` = 5 seconds (epochs · m · memory · n · 3.4e-9 s).

    Returns
    -------
    Result
        ``res.info`` holds the t0 selection's table, sample size and seconds;
        ``res.params`` the settings used (``clip``, ``pair_batch``, ``pair_every``).

    Raises
    ------
    ValueError
        For a bad argument (e.g. ``memory < 1``, or a memory whose pairs would not fit
        in half the machine's memory), before any step.
    FloatingPointError
        When the weights overflow.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = rlmlib.olbfgs(X, [1, 1, -1, -1], sigma=0.1, epochs=20, t0=10.0)
    >>> bool(res.objective < 0.5)
    True
    >>> res.params["pair_batch"], res.params["clip"]    # a given t0: the paper's oLBFGS
    (1, False)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((60, 5))
    >>> y = np.where(X[:, 0] > 0, 1, -1)
    >>> res = rlmlib.olbfgs(X, y, sigma=1e-2, epochs=100)   # the default call
    >>> res.params["pair_batch"], res.params["pair_every"], res.params["clip"]
    (40, 4, True)
    >>> F_star = rlmlib.lbfgs(X, y, sigma=1e-2, loss="squared_hinge").objective
    >>> bool((res.objective - F_star) / F_star < 1e-2)
    True
    """
    memory = check_int("memory", memory, 1)
    if clip is None:   # the default call (t0 selected) clips; a given t0 runs as written
        clip = t0 is None
    elif not isinstance(clip, (bool, np.bool_)):
        raise TypeError(f"clip must be True, False or None, got {clip!r}")
    clip = bool(clip)
    selected = t0 is None
    # the default call's pairs (module constants; a given t0 keeps the paper's per-step,
    # one-example pairs unless pair_batch / pair_every are given)
    pair_batch = (PAIR_BATCH if selected else 1) if pair_batch is None else \
        check_int("pair_batch", pair_batch, 1)
    pair_every = (PAIR_EVERY if selected else 1) if pair_every is None else \
        check_int("pair_every", pair_every, 1)
    if eta0 is not None:
        eta0 = check_positive("eta0", eta0)
    damping = check_interval("damping", damping, 0.0, math.inf, hi_closed=False)
    p = Problem("olbfgs", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed,
                order=order, n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test,
                progress=False if progress is None else progress, losses="binary")
    p.check_scale(*p.minimizer_bound())
    check_memory("memory", memory, 16 * memory * p.n, f"two (memory, n) arrays, n = {p.n}")
    warn_damping(damping, p.R, p.code, p.sigma)
    if progress is None:   # a bar when the run is expected to take more than a few seconds
        p.progress = _expected_seconds(p.m, p.n, p.epochs, memory) > PROGRESS_AFTER

    def one_pass(rows, ys, t0_try):
        trial = _Run(p, memory, t0_try, eta0, damping, clip, pair_batch, pair_every)
        storage_pass(trial.steps, rows, ys)
        return trial.w

    # the t0 stability limit is about steps 1/(sigma (t + t0)): with eta0 the steps are
    # eta0 t0/(t0 + t) and a long one is eta0's (the end hint below names it)
    t0, selected, info = choose_t0(p, t0, one_pass, 1, "olbfgs",
                                   any_t0_stable=clip or eta0 is not None)
    run = _Run(p, memory, t0, eta0, damping, clip, pair_batch, pair_every)

    params = {"sigma": p.sigma, "epochs": p.epochs, "memory": memory, "loss": loss,
              "t0": t0, "t0_selected": selected, "eta0": eta0, "damping": damping,
              "clip": clip, "pair_batch": pair_batch, "pair_every": pair_every,
              "seed": p.seed,
              "order": p.order}
    if eta0 is None:
        hint = schedule_hint(p, t0)
    else:  # the first step is eta0: the setting to change (t0 is only the decay's tau)
        hint = (f"eta0={eta0:.6g}: the first steps eta0 t0/(t0 + t) are too long for these "
                f"rows (max||x|| = {p.R:.3g}); pass a smaller eta0 or scale the rows")
    return p.run(run.steps, lambda: run.w, params, info=info, hint=hint)
