"""The Primal Gradient Solver (Zhu, Chen, Zhu, Wang, Wang & Chen, ICDM 2009, Fig. 1):

    F(w) = sigma r(w) + (1/m) sum_i loss(<w, x_i>, y_i),     r(w) = ||w||_p^2 / (2 (p-1)).

Dual averaging with the mirror map grad r* (rlmlib.pnorm): theta_0 = 0, w_0 = 0, and for
t = 1..T with a batch A_t of k examples drawn uniformly with replacement

    g_t      = (1/k) sum_{A_t} loss'(<w_{t-1}, x>, y) x   (a subgradient of the batch's
                                                           mean loss; the paper's lambda_t)
    theta_t  = theta_{t-1} - g_t
    w_t      = grad r*(theta_t / ((t+1) sigma))                   (on the ball if radius)

The returned iterate is the last, w_T (the chapter explains why).

Cost of a step. grad r* is positively homogeneous of degree 1, so

    w_t = K_t u,   u_i = |theta_i|^(q-1) sgn(theta_i),
    K_t = (p-1) ||theta||_q^(2-q) / ((t+1) sigma)   [times min(1, B / ||w_t||_p) on the ball,
                                                     ||w_t||_p = (p-1) ||theta||_q/((t+1) sigma)].

u changes only where theta does (the batch's non-zeros), and ||theta||_q^q = sum |theta_i| |u_i|
is kept up to date there, so a step costs O(non-zeros of the batch) at every p (one power per
distinct touched coordinate at p < 2, none at p = 2, where u = theta and K_t = 1/((t+1) sigma)).
This is cheaper than the paper's O(dk + n) per step (which recomputes the whole mirror map).
theta is stored divided by ``scale`` so that max|theta_i/scale| lies in [lo, 1] with
lo = max(1/4, e^(-600/q)): the sum of q-th powers is then at least lo^q >= e^-600 and at most
n, so it can neither overflow nor underflow, at q = 101 (p = 1.01) as at q = 10^4
(p = 1.0001). For lo = 1/4 (q <= 432) the scale is a power of two, so rescaling is exact.
The sum is recomputed exactly (O(n)) whenever that range is left (O(log T) times in a run, as
theta grows about linearly in t) and after every n updated coordinates, so rounding cannot
accumulate in it (amortized O(1) per update).
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_int, check_memory, check_positive, sigma_keyword
from ..core.order import ORDERS
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem
from ..core.losses import SQUARED, loss_deriv
from .limits import warmup_1_over_sigma_t

PGS_LOSSES = ("hinge", "logistic", "squared")


@njit(cache=True, inline="always")
def _pow(a, e, n4):
    """a ** e for a >= 0. When n4 >= 0, e is exactly n4 / 4 (p = 1.8: e = q - 1 = 5/4;
    p = 1.5: 2; p = 1.01: 100) and the power is built from squarings and square roots,
    several times cheaper than pow and as accurate (a few ulps times the exponent)."""
    if n4 < 0:
        return a ** e
    r = 1.0
    base = a
    k = n4 // 4                              # integer part of e, by repeated squaring
    while k > 0:
        if k & 1:
            r *= base
        base *= base
        k >>= 1
    f = n4 % 4                               # quarters: a^(1/2) and a^(1/4)
    if f != 0:
        h = math.sqrt(a)
        if f >= 2:
            r *= h
        if f & 1:
            r *= math.sqrt(h)
    return r


@njit(cache=True)
def _quarters(e):
    """4 e if e is a multiple of 1/4 not above 1024, else -1 (see _pow)."""
    f = 4.0 * e
    if f == math.floor(f) and f <= 4096.0:
        return int(f)
    return -1


@njit(cache=True)
def _low(q):
    """lo = max(1/4, e^(-600/q)): the lower end of the range [lo, 1] kept for max|th|."""
    return max(0.25, math.exp(-600.0 / q))


@njit(cache=True)
def _refresh(th, u, q, state):
    """Recompute S = sum |th|^q exactly; if max|th| left [lo, 1], first rescale th (= theta /
    scale) so that max|th| is in [1/2, 1) (lo = 1/4: by a power of two, exactly) or equals
    sqrt(lo) (lo > 1/4, i.e. q > 432), and recompute u = |th|^(q-1) sgn(th).
    state = [scale, S, updates since the last refresh]."""
    M = 0.0
    for i in range(th.shape[0]):
        a = abs(th[i])
        if a > M:
            M = a
    S = 0.0
    n4 = _quarters(q - 1.0)
    lo = _low(q)
    if M > 0.0 and (M > 1.0 or M < lo):
        if lo == 0.25:
            mant, e = math.frexp(M)          # M = mant 2^e, mant in [1/2, 1)
            f = math.ldexp(1.0, -e)          # exact power of two
        else:
            f = math.sqrt(lo) / M            # q > 432: the range [lo, 1] is narrow
        for i in range(th.shape[0]):
            a = th[i] * f
            th[i] = a
            if q == 2.0:
                S += a * a
            elif a == 0.0:
                u[i] = 0.0
            else:
                ua = _pow(abs(a), q - 1.0, n4)
                u[i] = ua if a > 0.0 else -ua
                S += abs(a) * ua
        state[0] /= f
    elif q == 2.0:
        for i in range(th.shape[0]):
            S += th[i] * th[i]
    else:
        for i in range(th.shape[0]):
            S += abs(th[i]) * abs(u[i])
    state[1] = S
    state[2] = 0.0


@njit(cache=True)
def _coef(p, q, sigma, radius, t, state):
    """K with w = K u at the iterate that uses divisor t sigma (w_{t-1} = grad r*(theta/(t sigma)))."""
    S = state[1]
    if S <= 0.0:
        return 0.0
    scale = state[0]
    if radius > 0.0:
        norm_q = scale * S ** (1.0 / q)                        # ||theta||_q
        norm_w = (p - 1.0) * norm_q / (t * sigma)              # ||w||_p before the ball
        if norm_w > radius:
            # on the sphere K = radius S^((1-q)/q): scale and t sigma cancel, so K does not
            # overflow where the unconstrained K would (huge theta, tiny u = |th|^(q-1))
            return radius * S ** ((1.0 - q) / q)
    if q == 2.0:
        return scale / (t * sigma)
    return (p - 1.0) * scale * S ** ((2.0 - q) / q) / (t * sigma)


@njit(cache=True, inline="always")
def _move(th, u, q, n4, col, delta, S):
    """th[col] -= delta; update u[col] = |th|^(q-1) sgn(th) and S = sum |th|^q; return S."""
    old = th[col]
    new = old - delta
    th[col] = new
    if q == 2.0:                             # u is th itself
        return S + (new * new - old * old)
    ua = _pow(abs(new), q - 1.0, n4) if new != 0.0 else 0.0
    S += abs(new) * ua - abs(old) * abs(u[col])
    u[col] = ua if new > 0.0 else -ua
    return S


@njit(cache=True)
def _pgs_steps(data, indices, indptr, y, batch, k, code, p, sigma, radius, t_begin, th, u,
               state, coef, g, touched, mark, look_ahead):
    """Steps t = t_begin+1 .. t_begin+len(batch)/k. th = theta/scale, u = |th|^(q-1) sgn(th)
    (u is th itself at p = 2), state = [scale, S = sum |th|^q, updates since refresh]."""
    q = p / (p - 1.0)
    n = th.shape[0]
    n_steps = batch.shape[0] // k
    s_low = _low(q) ** q                     # S < s_low implies max|th| < lo
    n4 = _quarters(q - 1.0)
    for step in range(n_steps):
        t = t_begin + step + 1
        K = _coef(p, q, sigma, radius, t, state)               # w_{t-1} = K u
        # loss'(<w_{t-1}, x>, y) / k for the whole batch, before theta changes
        for b in range(k):
            i = batch[step * k + b]
            if look_ahead:   # not for storage order: the hardware streams it
                prefetch_ahead(data, indices, indptr, batch, step * k + b, batch.shape[0], True)
            z = 0.0
            for j in range(indptr[i], indptr[i + 1]):
                z += data[j] * u[indices[j]]
            coef[b] = loss_deriv(code, K * z, y[i]) / k
        inv_scale = 1.0 / state[0]
        S = state[1]
        overflow = False
        nt = 0
        if k == 1:
            # theta <- theta - g_t directly at the example's non-zeros
            if coef[0] != 0.0:
                i = batch[step]
                c = coef[0] * inv_scale
                for j in range(indptr[i], indptr[i + 1]):
                    col = indices[j]
                    S = _move(th, u, q, n4, col, c * data[j], S)
                    overflow |= abs(th[col]) > 1.0
                nt = np.int64(indptr[i + 1] - indptr[i])
        else:
            # g_t gathered into g at the distinct touched columns (one power each)
            for b in range(k):
                d = coef[b]
                if d != 0.0:
                    i = batch[step * k + b]
                    for j in range(indptr[i], indptr[i + 1]):
                        col = indices[j]
                        # branch-free "append col if not yet marked" (the branch would be
                        # mispredicted about half the time)
                        touched[nt] = col
                        nt += 1 - mark[col]
                        mark[col] = True
                        g[col] += d * data[j]
            # theta <- theta - g_t at the touched columns; keep u and S = ||th||_q^q
            for a in range(nt):
                col = touched[a]
                S = _move(th, u, q, n4, col, g[col] * inv_scale, S)
                overflow |= abs(th[col]) > 1.0
                g[col] = 0.0
                mark[col] = False
        state[1] = S
        state[2] += nt
        # rescale when max|th| left [lo, 1] (S < lo^q implies max|th| < lo: the small
        # entries' powers would underflow), and recompute S after n updated coordinates
        if nt > 0 and (overflow or state[2] > n or S < s_low):
            _refresh(th, u, q, state)


def _check_scale(pr, B):
    """PGS's data-scale bounds (``Problem.check_scale``). ||w_t||_2 <= ||w_t||_p <=
    (p-1) ||theta_t||_q / ((t+1) sigma) < (p-1) R / sigma for losses with |loss'| <= 1
    (||x||_q <= ||x||_2 = R for q >= 2), and <= B on a ball. The kernel keeps w = K u with
    max|u_i| >= lo^(q-1) (lo = max(1/4, e^(-600/q)), see the module docstring), so K <=
    ||w|| / lo^(q-1) must stay finite too."""
    p = pr.p
    W = (p - 1.0) * pr.R / pr.sigma if pr.code != SQUARED else math.inf
    why = "(p-1) max||x|| / sigma"
    if B > 0.0 and B < W:
        W, why = B, "radius"
    q = p / (p - 1.0)
    lo = max(0.25, math.exp(-600.0 / q))
    pr.check_scale(W, why, ((W / lo ** (q - 1.0), f"the kernel's scale factor ({why}) / lo^(q-1)"),))


def _setup(X, y, p, sigma, T, k, loss, radius, seed, order, **common):
    """Checks (one Problem), then the run's state: returns (problem, B, steps, get_w)."""
    check_memory("k", check_int("k", k), 8 * k, "an array of k entries")
    pr = Problem("pgs", X, y, sigma=sigma, loss=loss, p=p, T=T, k=k, seed=seed, order=order,
                 orders=ORDERS, losses=PGS_LOSSES, compact_dense=False, **common)
    p, sigma = pr.p, pr.sigma
    if radius is None and loss == "squared":
        # sigma r(w*) <= F(w*) <= F(0) = mean 1/2 y^2 <= 1/2 max y^2 (see the chapter)
        radius = float(np.max(np.abs(pr.y))) * math.sqrt((p - 1.0) / sigma)
        if radius == 0.0:
            radius = math.sqrt((p - 1.0) / sigma)   # y = 0: w* = 0, any ball will do
    B = -1.0 if radius is None else check_positive("radius", radius)
    _check_scale(pr, B)
    n = pr.n
    th = np.zeros(n)
    u = th if p == 2.0 else np.zeros(n)
    state = np.array([1.0, 0.0, 0.0])
    coef = np.empty(k)
    g = np.zeros(n)
    touched = np.empty(n + 1, dtype=np.uint32)  # the branch-free append writes one past
    mark = np.zeros(n, dtype=np.bool_)
    done = [0]

    def steps(rows, y, indices, indptr, batch, start, stop, t, look_ahead):
        _pgs_steps(rows.data, indices, indptr, y, batch, k, pr.code, p, sigma, B, t, th, u,
                   state, coef, g, touched, mark, look_ahead)
        done[0] = t + (stop - start) // k

    def get_w():
        # w_t = grad r*(theta_t / ((t+1) sigma)) after t = done[0] steps
        q = p / (p - 1.0)
        return _coef(p, q, sigma, B, done[0] + 1, state) * u

    return pr, B, steps, get_w


@sigma_keyword
def pgs(X, y, *, p, sigma, T, k=1, loss="hinge", radius=None, seed=0, order="replacement",
        n_checkpoints=None, X_test=None, y_test=None, progress=False):
    """Primal Gradient Solver for σ‖w‖_p²/(2(p−1)) + mean loss, p in [1.0001, 2].

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Training rows, dense or sparse.
    y : array-like, shape (m,)
        Any two labels (mapped to -1/+1 in sorted order) for 'hinge' and 'logistic',
        real targets for 'squared'.
    p : float in [1.0001, 2]
        Exponent of the regularizer (``pnorm.P_MIN`` is the lower end; DESIGN.md,
        "Validated ranges").
    sigma : float in [2^-1022, 2^960]
        Regularization weight σ.
    T : int >= 1
        Number of steps.
    k : int >= 1
        Examples per step (mini-batch size).
    loss : {'hinge', 'logistic', 'squared'}
        'squared' is rlmlib's ½(z − y)².
    radius : float > 0 or None
        B: restricts w to ‖w‖_p <= B. None: no constraint, except for 'squared', where
        the default is B = max|y| √((p−1)/σ), a ball that contains the minimizer.
    seed, order, n_checkpoints, X_test, y_test, progress
        As in :func:`rlmlib.pegasos` (by default the T·k examples are drawn uniformly
        with replacement; the held-out metric is the MSE for 'squared').

    Returns
    -------
    Result
        The last iterate w_T; ``res.params['radius']`` is the B used (None for no ball).

    Raises
    ------
    ValueError, TypeError
        For a bad argument (named in the message), before any step is taken.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> res = rlmlib.pgs(X, [1, 1, -1, -1], p=1.5, sigma=0.1, T=1000)
    >>> res.predict(X).tolist()
    [1, 1, -1, -1]
    >>> res.params["radius"] is None
    True
    """
    pr, B, steps, get_w = _setup(X, y, p, sigma, T, k, loss, radius, seed, order,
                                 n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test,
                                 progress=progress)
    params = dict(p=pr.p, sigma=pr.sigma, T=pr.T, k=pr.k, loss=loss,
                  radius=None if B < 0 else B, seed=pr.seed, order=pr.order, iterate="last")
    return pr.run(steps, get_w, params,
                  warmup=warmup_1_over_sigma_t(pr.R, pr.sigma, pr.p - 1),
                  hint=f"T={pr.T}: the last iterate of a short run can be far from the "
                       f"minimizer; run more steps")


def pgs_iterates(X, y, *, p, sigma, at, k=1, loss="hinge", radius=None, seed=0,
                 order="replacement"):
    """The iterates w_t of one :func:`rlmlib.pgs` run at the step counts ``at``.

    The run is ``pgs(X, y, p=p, sigma=sigma, T=max(at), ...)``: the same kernel and random
    stream, so the row for ``at[-1] = T`` is ``pgs(...).w``.

    Parameters
    ----------
    X, y, p, sigma, k, loss, radius, seed, order
        As in :func:`rlmlib.pgs`.
    at : 1-D array of int
        Increasing step counts t >= 0 (t = 0 is the start, w = 0).

    Returns
    -------
    numpy.ndarray, shape (len(at), n_features)
        Row j is w after ``at[j]`` steps.

    Raises
    ------
    ValueError
        When ``at`` is not a non-empty increasing 1-D array of integers >= 0, or for a bad
        argument of :func:`rlmlib.pgs`.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> from rlmlib.solvers.pgs import pgs_iterates
    >>> X = np.array([[1.0, 0.2], [0.1, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> y = [1, 1, -1, -1]
    >>> W = pgs_iterates(X, y, p=1.5, sigma=0.1, at=[0, 10, 100])
    >>> W.shape, bool(np.all(W[0] == 0))
    ((3, 2), True)
    >>> bool(np.array_equal(W[-1], rlmlib.pgs(X, y, p=1.5, sigma=0.1, T=100).w))
    True
    """
    at = np.asarray(at)
    if at.ndim != 1 or at.size == 0 or at.dtype.kind not in "iu" or np.any(at < 0) \
            or np.any(np.diff(at) <= 0):
        raise ValueError(f"at must be a non-empty increasing 1-D array of step counts >= 0, "
                         f"got {at!r}")
    pr, B, steps, get_w = _setup(X, y, p, sigma, max(1, int(at[-1])), k, loss, radius, seed,
                                 order)
    advance = pr.walker(steps)
    out = np.empty((at.size, pr.n))
    prev = 0
    for j, t in enumerate(at.tolist()):
        if t > prev:
            advance(prev, t)
            prev = t
        out[j] = get_w()
    return out
