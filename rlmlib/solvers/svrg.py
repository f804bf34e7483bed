"""Stochastic variance reduced gradient, SVRG (Johnson & Zhang 2013), with lazy updates and
optional data preconditioning (rlmlib/precond.py; the notation is that of rlmlib/sag.py),
and a monotone safeguard on option I (the next snapshot is the last inner iterate unless F
there exceeds the value the gradient step w~ - g/L_max is sure to reach; then that step).

Each stage takes a snapshot u~ (the current iterate), its full gradient
mu = rho u~ + (1/m) sum_j phi_j'(<u~, xhat_j>) xhat_j, and then ``inner`` steps

    u <- u - eta (grad f_i(u) - grad f_i(u~) + mu)
       = (1 - eta rho) u - eta (g_i - g~_i) xhat_i - (eta/m) sum_j g~_j xhat_j,

with g_i = phi_i'(<u, xhat_i>), g~_i = phi_i'(<u~, xhat_i>). The last sum is a dense vector
that stays fixed during the stage: it is applied just in time exactly as in SAG (in the
original coordinates it is H^-1 S~, S~ = sum_j g~_j x_j). A stage costs one pass for the
snapshot plus ``inner`` steps of O(nnz(x_i) + r).

``snapshot='loopless'`` runs Kovalev, Horváth and Richtárik's loopless SVRG instead: no
stage of fixed length; at every step a coin with probability p = 1/inner makes the point
where that step reads its example the snapshot of the steps after it (the step itself
uses the old snapshot).
"""
import math

import numpy as np
from numba import njit

from ..core.checks import sigma_keyword
from ..core.prefetch import prefetch_ahead
from ..core.losses import LOGISTIC, SQUARED, loss_deriv, loss_value
from .vr import RENORM, catch_up_all, problem_for, row_margin, solver_setup


@njit(cache=True)
def kahan_add(tot, c, x):
    """Kahan's compensated sum: (tot, c) after adding x to tot, c its running
    compensation (tot + c is the sum so far)."""
    v = x - c
    t = tot + v
    return t, (t - tot) - v


@njit(cache=True)
def kahan_dot(a, b):
    """<a, b> summed with Kahan's compensation (no BLAS call: ddot wakes its threads)."""
    tot = 0.0
    c = 0.0
    for j in range(a.shape[0]):
        tot, c = kahan_add(tot, c, a[j] * b[j])
    return tot


@njit(cache=True)
def deriv_value(code, z, y):
    """(loss_deriv, loss_value) at z, to the bit those of ``core.losses``; the logistic
    loss shares one exp between them (the snapshot pass then costs one log1p more per
    row, not an exp and a log1p), the squared loss one test of ``code``."""
    if code == LOGISTIC:
        s = y * z
        if s > 0.0:
            e = math.exp(-s)
            return -y * e / (1.0 + e), math.log1p(e)
        e = math.exp(s)
        return -y / (1.0 + e), -s + math.log1p(e)
    if code == SQUARED:  # one dispatch, not two
        r = z - y
        return r, 0.5 * r * r
    return loss_deriv(code, z, y), loss_value(code, z, y)


@njit(cache=True)
def svrg_snapshot(data, indices, indptr, y, Q, shift, code, va, vb, last, Sa, Sb, gsnap,
                  state):
    """Fold all pending updates in, then g~_i for every row, S~ = sum g~_i x_i, Sb = Q^T g~.

    The same read of the rows also sums the loss values: returns
    sum_i loss(<w, x_i>, y_i), summed with Kahan's compensation (its error is at most 2u
    times the sum, u = 2^-53, up to O(m u^2)), so that F at the snapshot costs no further
    pass (the safeguard of option I, ``svrg``)."""
    catch_up_all(va, vb, last, Sa, state)
    Sa[:] = 0.0
    Sb[:] = 0.0
    m = indptr.shape[0] - 1
    r = vb.shape[0]
    tot = 0.0  # Kahan: tot + c is the running sum of the loss values
    c = 0.0
    for i in range(m):
        a = indptr[i]
        b = indptr[i + 1]
        z = 0.0
        for p in range(a, b):
            z += data[p] * va[indices[p]]
        for q in range(r):
            z += vb[q] * Q[i, q]
        d, val = deriv_value(code, z, y[i])
        g = d - shift[i] * z
        gsnap[i] = g
        if g != 0.0:
            for p in range(a, b):
                Sa[indices[p]] += g * data[p]
            for q in range(r):
                Sb[q] += g * Q[i, q]
        tot, c = kahan_add(tot, c, val)
    return tot


@njit(cache=True)
def snapshot_direction(va, Sa, rho, c, keep, D):
    """keep <- va and D <- rho va + c Sa (the part in va of the step direction of the
    snapshot's full gradient, c = alpha2 / m) in one loop; returns (||va||^2, ||D||^2),
    each summed with Kahan's compensation (two independent chains)."""
    s1 = 0.0
    c1 = 0.0
    s2 = 0.0
    c2 = 0.0
    for j in range(va.shape[0]):
        a = va[j]
        keep[j] = a
        d = rho * a + c * Sa[j]
        D[j] = d
        s1, c1 = kahan_add(s1, c1, a * a)
        s2, c2 = kahan_add(s2, c2, d * d)
    return s1, s2


@njit(cache=True)
def catch_up_norm2(va, vb, last, Sa, state):
    """``catch_up_all`` (the same bits) and ||va||^2 afterwards (Kahan), in one loop."""
    s = state[0]
    cum = state[1]
    tot = 0.0
    comp = 0.0
    for j in range(va.shape[0]):
        a = (va[j] - Sa[j] * (cum - last[j])) * s
        va[j] = a
        last[j] = 0.0
        tot, comp = kahan_add(tot, comp, a * a)
    for q in range(vb.shape[0]):
        vb[q] *= s
    state[0] = 1.0
    state[1] = 0.0
    return tot


#: The safeguard's rounding allowance in units of u = 2^-53 times |F(w~)|: F at a point is
#: computed with a relative error of at most 8u to first order (a loss value 3u with a
#: correctly rounded exp/log1p, Kahan's sum of the m values 2u, the division by m u; the
#: norm's squares u, their Kahan sum 2u, the product with sigma/2 u; the last addition u),
#: so a test on two computed values needs 2 x 8u to accept every u that satisfies it
#: exactly (DESIGN.md, "svrg's safeguard"; the book's thm-vr-svrg-guard).
SAFEGUARD_ULPS = 16.0


@njit(cache=True)
def svrg_steps(data, indices, indptr, y, Q, e, alpha2, rho, shift, code, eta, va, vb, last,
               Sa, Sb, gsnap, state, order, start, stop):
    """Inner SVRG steps on examples order[start:stop]; state = [s, cum], in place."""
    s = state[0]
    cum = state[1]
    m = indptr.shape[0] - 1
    r = vb.shape[0]
    for k in range(start, stop):
        i = order[k]
        prefetch_ahead(data, indices, indptr, order, k, stop, True)
        a = indptr[i]
        b = indptr[i + 1]
        z = s * row_margin(data, indices, a, b, Q, i, va, vb, Sa, last, cum)
        d = loss_deriv(code, z, y[i]) - shift[i] * z - gsnap[i]  # g_i - g~_i
        s *= 1.0 - eta * rho  # w <- (1 - eta rho) w
        if s < RENORM:
            state[0] = s
            state[1] = cum
            catch_up_all(va, vb, last, Sa, state)
            s = 1.0
            cum = 0.0
        if d != 0.0:  # w <- w - eta (g_i - g~_i) H^-1 x_i
            c = -eta * d / s
            for p in range(a, b):
                va[indices[p]] += c * alpha2 * data[p]
            for q in range(r):
                vb[q] += c * e[q] * Q[i, q]
        f = eta / (m * s)  # w <- w - (eta/m) H^-1 S~ (va lazily, vb now)
        cum += f * alpha2
        for q in range(r):
            vb[q] -= f * e[q] * Sb[q]
    state[0] = s
    state[1] = cum


@sigma_keyword
def svrg(X, y, *, sigma, epochs, loss, step=None, inner=None, precondition=None, seed=0,
         order="replacement", snapshot="last", n_checkpoints=None, X_test=None,
         y_test=None, progress=False):
    """SVRG on (σ/2)‖w‖² + mean loss, squared or logistic, dense or sparse, optionally on
    the preconditioned problem.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
    sigma : float > 0
    epochs : int >= 1
        Budget in passes over the data. A stage costs 1 + inner/m passes (the snapshot's
        full gradient, then ``inner`` steps), so ceil(epochs / (1 + inner/m)) stages run;
        ``res.trace.epoch`` counts passes and ``res.trace.iteration`` stages.
    loss : {'squared', 'logistic'}
    step : float > 0 or None
        Step η. None: chosen with ``inner`` by κ = L_max/ρ against m (ρ = σ, or β with
        preconditioning; L_max as in ``rlmlib.sag``), from Johnson and Zhang's bound on the
        contraction of one stage, α = 1/(ρη(1 − 2L_max η) m_in) + 2L_max η/(1 − 2L_max η):
        when κ < 0.03 m, η = 0.1/L_max and inner = m/2 make α < 1 with stages of 1.5
        passes (measured: preconditioned ridge, 4,000 × 100, eigenvalues i⁻², σ = 1e-4,
        κ̂ = 109: relative gap 4e-14 after 15 passes where (1/L_max, 2m) gave 2.1e-3 and
        ``sag`` 8.7e-9); otherwise (κ ≫ m, no stage length of order m is covered by the
        bound) 1/L_max and 2m, the paper's choice and the best of a grid of η ∈ {1, 0.5,
        0.25, 0.1}/L_max × inner ∈ {m/4, m/2, m, 2m} on the same data without
        preconditioning (κ = 1.6e5). ``res.params['default']`` says which rule ran.
        With ``inner`` given, None means 1/L_max: ``inner=2 * m`` is the paper's setting.
    inner : int >= 1 or None
        Steps per stage; None: with ``step`` as above.
    precondition : Preconditioner or None
        Solve the transformed problem; ``res.w`` is in the ORIGINAL coordinates.
    seed, order, n_checkpoints, X_test, y_test, progress
        As in ``rlmlib.sag`` (default 'replacement', the i.i.d. sampling of Johnson and
        Zhang's analysis); ``order`` governs the inner steps.
    snapshot : {'last', 'random', 'loopless'}
        The next stage's snapshot: 'last' the last inner iterate (Johnson and Zhang's
        option I, their experiments' choice); 'random' the iterate w_t before inner step
        t, t drawn uniformly from 0 .. inner - 1 per stage with ``seed`` (option II, the
        one their theorem and the book's thm-vr-svrg analyse; the steps after t are
        taken and discarded). With 'random' the returned w and every checkpoint are the
        snapshots, and ``res.info['snapshot_steps']`` lists the drawn t per stage.
        'loopless': loopless SVRG (Kovalev, Horváth and Richtárik; the book's
        thm-vr-lsvrg): before step k (k = 0, 1, ... over the whole run) a coin with
        probability p = 1/inner, drawn with ``seed``, decides whether w_k, the point
        where step k reads its example, becomes the snapshot of steps k + 1, ...; step k
        itself uses the old one. ``res.info['snapshot_steps']`` lists those k, and
        ``res.info['snapshots']`` counts the full gradients computed (the first at
        w = 0 included). The budget and ``res.trace.epoch`` count the expected cost,
        1 + inner/m passes per ``inner`` steps; ``res.info['passes']`` the actual one.
        'last' carries a monotone safeguard: the snapshot pass also sums the loss values,
        so F(u) at the proposed snapshot u costs no further read of the data, and u is
        taken when F(u) <= F(w~) - ||g||^2 / (2 L_max) + 16 u_r |F(w~)| (w~ the current
        snapshot, g its full gradient, in the H^-1-norm with ``precondition``, L_max the
        one the rule uses, u_r = 2^-53: 16 u_r |F| is twice the rounding error of one
        computed F), else the gradient step w~ - g / L_max (one extra pass, at it). At
        each stage's end an O(n) certificate rejects u at once, without that pass, when
        u is not finite or sigma r(u) > F(w~) (F >= sigma r, every loss being >= 0), so a
        run whose inner steps blow up (a step far beyond 2/L_max) goes on from the
        gradient step; this also applies to the last stage, whose u is otherwise
        returned unchecked (the theorem is about the snapshots).
        ``res.info['safeguard_steps']`` lists the stages that start from the gradient
        step (the number of stages for the returned point),
        ``res.info['safeguard_passes']`` those whose rejection cost a pass,
        ``res.info['snapshot_objective']`` F at every snapshot; ``res.info['passes']``
        and ``res.trace.epoch`` count the extra passes (the budget, in stages, does not).
        When no stage falls back the run is that of the unguarded option I to the bit.
        What is proved for which call: every 'last' run (any step, inner length and
        order) decreases F at its snapshots at least as gradient descent at 1/L_max
        does, F(w~_{s+1}) - F* <= (1 - mu/L_max)(F(w~_s) - F*) + 40 u_r F(w~_s) (the
        book's thm-vr-svrg-guard): about 3 kappa log(1/eps) passes with inner 2m, far
        above what the default measures; the rate in m + kappa is proved for
        ``snapshot='loopless', step=1/(5 L_max)`` (thm-vr-lsvrg; ``inner=m`` the rate of
        SAGA), which is not the default because, measured in passes to a relative gap of
        1e-6, it needs 4-6 times the default's where kappa >> m (standardized
        breast_cancer 430-513 against 105 with inner 2m-4m, unit-row breast_cancer at
        kappa = 10m 416 against 66, eigen_decay at kappa = 100m 58 against 18), while it
        needs fewer where kappa <= m (unit-row breast_cancer at kappa = m/10: 10 against
        27; RCV1-like at kappa = 0.3m: 16 against 21). 'random' and 'loopless' run
        without the safeguard (the analysed variants).

    Returns
    -------
    Result

    Raises
    ------
    ValueError, TypeError
        As ``rlmlib.sag``; ``snapshot`` not one of 'last', 'random', 'loopless'.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = np.sign(X[:, 0])
    >>> res = rlmlib.svrg(X, y, sigma=0.1, epochs=30, loss="logistic")
    >>> ref = rlmlib.lbfgs(X, y, sigma=0.1, loss="logistic")
    >>> bool(res.objective - ref.objective < 1e-8 * ref.objective)
    True
    """
    P = problem_for("svrg", X, y, sigma, loss, epochs, seed, order, n_checkpoints, X_test,
                    y_test, progress)
    if snapshot not in ("last", "random", "loopless"):
        raise ValueError(f"snapshot must be one of 'last', 'random', 'loopless'; got "
                         f"{snapshot!r}")
    A = solver_setup("svrg", P, step, precondition)
    m, n, r = P.m, P.n, A["e"].shape[0]
    kappa = A["Lmax"] / A["rho"]
    rule = "bound" if kappa < 0.03 * m else "paper"
    inner_given = inner
    if inner is None:
        inner = max(1, m // 2) if rule == "bound" else 2 * m
    else:  # a given inner length keeps the paper's step (1/L_max) unless step is given
        rule = "paper"
    if step is None:
        A["step"] = 0.1 / A["Lmax"] if rule == "bound" else 1.0 / A["Lmax"]
    stages = P.set_stages(inner)  # the driver's unit: a snapshot, then inner steps
    va, vb, last, Sa, Sb = np.zeros(n), np.zeros(r), np.zeros(n), np.zeros(n), np.zeros(r)
    gsnap = np.zeros(m)
    state = np.array([1.0, 0.0])
    ind, ptr = P.unsigned()
    args = (P.rows.data, ind, ptr, A["y"], A["Q"])

    # option II: the iterate before inner step t* of each stage becomes the next snapshot
    pick = np.random.default_rng([P.seed, 2]) if snapshot == "random" else None
    picks, saved = [], []

    def restore():  # the saved inner iterate replaces the last one
        if saved:
            for dst, src in zip((va, vb, last, state), saved.pop()):
                dst[:] = src

    # loopless: coin[0] = the next step k whose point becomes the snapshot after it
    coin = np.random.default_rng([P.seed, 3]) if snapshot == "loopless" else None
    fresh = (np.zeros(m), np.zeros(n), np.zeros(r))  # the next snapshot's gsnap, Sa, Sb
    nxt, full = [0], [0]

    # option I's safeguard: the next snapshot is the last inner iterate u when
    # F(u) <= F(w~) - ||g||^2 / (2 L_max) + tol, else the gradient step w~ - g / L_max
    guard = snapshot == "last"
    Lhat, rho, alpha2, sig = A["Lmax"], A["rho"], A["alpha2"], A["sigma"]
    ulp = SAFEGUARD_ULPS * 2.0 ** -53
    held = []  # the accepted snapshot: ((vb, Db) copies, F, ||g||^2); va, Da in bufs[:2]
    rejected, extra, snap_F = [], [], []  # fallen-back stages; those with a pass more
    early = [False]  # the current stage overflowed and was replaced at its end

    # the proposal's and the held snapshot's va and Da = rho va + (alpha2/m) Sa, swapped
    # on acceptance (no allocation per stage); vb, Db (r doubles) are copied
    bufs = [np.empty(n), np.empty(n), np.empty(n), np.empty(n)] if guard else None

    def snap_pass():
        """One pass at the current point: its gradients, F and ||g||^2 (the transformed
        problem's gradient norm with preconditioning); va and Da kept in bufs[2:]."""
        tot = svrg_snapshot(*args, A["shift"], A["code"], va, vb, last, Sa, Sb, gsnap,
                            state)
        full[0] += 1
        if not guard:
            return 0.0, 0.0, None
        sq, da2 = snapshot_direction(va, Sa, rho, alpha2 / m, bufs[2], bufs[3])
        Db = rho * vb + (A["e"] / m) * Sb
        if r == 0:
            return tot / m + 0.5 * sig * sq, da2, (vb.copy(), Db)
        w = va + A["U"](vb)  # F(w) = F^(u): the transformed problem is an exact rewrite
        c = precondition.Ut_apply(bufs[3])  # ||g^||^2 = D^T H D, D = Da + U Db (H^-1 above)
        perp = max(da2 - kahan_dot(c, c), 0.0) / alpha2
        return tot / m + 0.5 * sig * kahan_dot(w, w), \
            perp + float(np.sum((c + Db) ** 2 / (alpha2 + A["e"]))), (vb.copy(), Db)

    def fall_back():
        """The gradient step from the held snapshot replaces the current point."""
        (hb, hDb), _, _ = held[-1]
        va[:] = bufs[0] - bufs[1] / Lhat
        vb[:] = hb - hDb / Lhat
        last[:] = 0.0
        state[:] = (1.0, 0.0)

    def certified():
        """False when sigma r(u) > F(w~) (1 + 2 tol) or u is not finite: then the test
        would reject u; the pending lazy updates are folded in, as the snapshot pass
        does first (the same bits)."""
        w2 = catch_up_norm2(va, vb, last, Sa, state)
        if r:
            w2 = kahan_dot(*(2 * (va + A["U"](vb),)))
        return 0.5 * sig * w2 <= held[-1][1] * (1.0 + 2.0 * ulp)

    def take_snapshot():
        restore()
        if coin is not None and full[0] > 0:  # loopless: the coins take the snapshots
            return
        F, g2, small = snap_pass()
        if guard:
            if held:
                _, hF, hg2 = held[-1]
                if early[0]:  # the stage overflowed: already replaced, no pass wasted
                    early[0] = False
                elif not F <= hF - hg2 / (2.0 * Lhat) + ulp * abs(hF):  # NaN: rejected
                    rejected.append(len(snap_F))  # the stage that starts at v instead
                    extra.append(len(snap_F))
                    fall_back()
                    F, g2, small = snap_pass()
                held.pop()
            bufs[0], bufs[1], bufs[2], bufs[3] = bufs[2], bufs[3], bufs[0], bufs[1]
            held.append((small, F, g2))
            snap_F.append(F)
        if pick is not None:
            picks.append(int(pick.integers(P.inner)))
        if coin is not None:
            nxt[0] = int(coin.geometric(1.0 / P.inner)) - 1

    def loopless(rows, yy, ind, ptr, idx, start, stop, t):
        """Steps t .. t + stop - start - 1; at step k = nxt, the snapshot moves to w_k."""
        while nxt[0] < t + stop - start:
            cut = start + nxt[0] - t
            run_steps(idx, ind, ptr, rows, yy, start, cut)
            catch_up_all(va, vb, last, Sa, state)  # w_k in full, then its gradients
            svrg_snapshot(*args, A["shift"], A["code"], va, vb, last, fresh[1],
                          fresh[2], fresh[0], state)
            run_steps(idx, ind, ptr, rows, yy, cut, cut + 1)  # step k: old snapshot
            catch_up_all(va, vb, last, Sa, state)  # the old S~'s pending updates
            for dst, src in zip((gsnap, Sa, Sb), fresh):
                dst[:] = src
            picks.append(nxt[0])
            full[0] += 1
            t += cut + 1 - start
            start = cut + 1
            nxt[0] += int(coin.geometric(1.0 / P.inner))
        run_steps(idx, ind, ptr, rows, yy, start, stop)

    def run_steps(idx, ind, ptr, rows, yy, a, b):
        svrg_steps(rows.data, ind, ptr, yy, A["Q"], A["e"], A["alpha2"], A["rho"],
                   A["shift"], A["code"], A["step"], va, vb, last, Sa, Sb, gsnap, state, idx,
                   a, b)

    def steps(rows, yy, ind, ptr, idx, start, stop, t, look):
        if coin is not None:
            return loopless(rows, yy, ind, ptr, idx, start, stop, t)
        if pick is None:
            run_steps(idx, ind, ptr, rows, yy, start, stop)
            end = t + stop - start
            if guard and end % P.inner == 0 and not certified():
                # O(n) certificate that the proposal fails the test (F >= sigma r, every
                # loss >= 0): it is rejected now, without the wasted pass, so that a run
                # whose inner steps blow up (a step far beyond 2/L_max) ends at a point
                rejected.append(end // P.inner)
                fall_back()
                early[0] = True
            return
        cut = start + picks[-1] - t % P.inner  # where step t* of this stage falls
        if start <= cut < stop:
            run_steps(idx, ind, ptr, rows, yy, start, cut)
            catch_up_all(va, vb, last, Sa, state)
            saved.append(tuple(v.copy() for v in (va, vb, last, state)))
            start = cut
        run_steps(idx, ind, ptr, rows, yy, start, stop)

    def get_w():
        restore()
        catch_up_all(va, vb, last, Sa, state)
        return va + A["U"](vb)

    params = {"sigma": P.sigma, "epochs": P.epochs, "stages": stages, "inner": P.inner,
              "loss": loss, "step": A["step"], "L_max": A["Lmax"],
              "preconditioned": precondition is not None,
              "beta": None if precondition is None else precondition.beta,
              "seed": P.seed, "order": P.order, "kappa": kappa, "snapshot": snapshot,
              "default": rule if step is None or inner_given is None else None}
    # rows stay in storage order: the preconditioner's Q and gsnap are indexed by row
    info = {"snapshot_steps": picks}
    res = P.run(steps, get_w, params, state=lambda: (va, vb), copy_rows=False,
                snapshot=take_snapshot, info=info,
                hint=f"step={A['step']:.3g} is too long (L_max = {A['Lmax']:.3g})")
    if coin is not None:
        info["snapshots"] = full[0]
        info["passes"] = full[0] + stages * P.inner / m
    if guard:  # the fallbacks' extra passes, in the info and the trace's pass count
        info["safeguard_steps"] = rejected
        info["safeguard_passes"] = extra
        info["snapshot_objective"] = snap_F
        info["passes"] = full[0] + stages * P.inner / m
        res.trace.epoch = res.trace.epoch + np.searchsorted(extra, res.trace.iteration,
                                                            side="left")
    return res
