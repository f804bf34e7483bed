"""Stochastic dual coordinate ascent, SDCA (Shalev-Shwartz & Zhang 2013), for the hinge,
squared hinge, logistic and squared losses, with the duality gap as a certificate.

Primal  P(w) = (σ/2)‖w‖² + (1/m) Σ_i ℓ(<w, x_i>, y_i).  Dual, over α ∈ R^m,

    D(α) = (1/m) Σ_i -ℓ*(-α_i) - (σ/2)‖w(α)‖²,   w(α) = (1/(σm)) Σ_i α_i x_i,

and P(w(α)) - P* <= P(w(α)) - D(α) (weak duality): the gap certifies the primal accuracy.
For a classification loss write α_i = y_i β_i; then -ℓ*(-α_i) is β_i (hinge, β ∈ [0, 1]),
β_i - β_i²/2 (squared hinge, β >= 0), the binary entropy H(β_i) (logistic, β ∈ [0, 1]);
for the squared loss -ℓ*(-α) = α y - α²/2. With q_i = ‖x_i‖²/(σm) and z = <w, x_i>, the
maximization of D over coordinate i alone is

    hinge           β <- clip(β + (1 - y z)/q_i, 0, 1)
    squared hinge   β <- max(0, β + (1 - y z - β)/(1 + q_i))
    squared         α <- α + (y - z - α)/(1 + q_i)
    logistic        β <- the root in (0, 1) of log((1-b)/b) - y z - q_i (b - β) = 0
                    (Newton on the log-odds in [-U_EDGE, U_EDGE], NEWTON steps
                    at most: bisection alone narrows 80 to 1e-22 in 80)

followed by w <- w + (α_new - α_old) x_i/(σm). A step costs O(nnz(x_i)).
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_bool, sigma_keyword
from ..core.losses import HINGE, LOGISTIC, SQUARED, SQUARED_HINGE
from ..core.order import ORDERS
from ..core.prefetch import AHEAD, prefetch, prefetch_ahead
from ..core.problem import Problem
from ..core.rowops import axpy, dot

SDCA_LOSSES = ("hinge", "squared_hinge", "logistic", "squared")
NEWTON = 80  # at most this many safeguarded Newton steps per logistic coordinate step
BETA_EDGE = 1e-15  # logistic dual variables are kept in [BETA_EDGE, 1 - BETA_EDGE]
U_EDGE = 40.0  # |log-odds| beyond which b is outside [BETA_EDGE, 1 - BETA_EDGE] (e^-40 < 1e-17)
#: shrinking: a pass visits every example again (unshrinks) once the projected gradients of
#: the active examples span at most SHRINK_REL times their span in the last such full pass
#: (LIBLINEAR unshrinks when the active set meets its tolerance; without a tolerance the
#: span is relative), at least SHRINK_MIN and at most SHRINK_MAX passes after the last one
SHRINK_REL, SHRINK_MIN, SHRINK_MAX = 0.1, 2, 100


@sigma_keyword
def sdca(X, y, *, sigma, epochs=10, loss="hinge", shrinking=True, seed=0, order="reshuffle",
         n_checkpoints=None, X_test=None, y_test=None, progress=False):
    """Stochastic dual coordinate ascent on (σ/2)‖w‖² + mean loss, dense or sparse.

    Each step maximizes the dual exactly over one coordinate (closed form for the hinge,
    squared hinge and squared losses, a few safeguarded Newton steps for the logistic loss)
    and keeps w = (1/(σm)) Σ αᵢ xᵢ. The duality gap P(w) − D(α) bounds P(w) − P*.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
        Two labels (classification losses, mapped to -1/+1) or targets (squared loss).
    sigma : float > 0
        Regularization weight σ.
    epochs : int >= 1
        Passes over the data (m coordinate steps each).
    loss : {'hinge', 'squared_hinge', 'logistic', 'squared'}
    shrinking : bool
        Hinge loss only: LIBLINEAR's shrinking (Hsieh et al. 2008). With G = yᵢzᵢ − 1, an
        example with βᵢ = 0 and G above the largest projected gradient of the previous
        pass (or βᵢ = 1 and G below the smallest) is skipped until the next full pass,
        which visits all examples again: once the active examples' projected gradients
        span at most ``SHRINK_REL`` = 0.1 times their span in the last full pass (as
        LIBLINEAR unshrinks when the active set meets its tolerance), and at least every
        ``SHRINK_MAX`` = 100 passes. Skipped examples count as steps of the budget.
        ``False`` runs the algorithm box exactly.
    seed : int >= 0
    order : {'reshuffle', 'replacement', 'shuffle_once', 'cyclic'}
        Default 'reshuffle' (a new permutation per pass, as LIBLINEAR does; the analysis
        assumes 'replacement').
    n_checkpoints, X_test, y_test, progress
        As in every solver (DESIGN.md).

    Returns
    -------
    Result
        ``res.w`` = w(α); ``res.info['alpha']`` the dual variables α (αᵢ = yᵢβᵢ for the
        classification losses), ``res.info['dual']`` D(α), ``res.info['gap']`` the duality
        gap P(w) − D(α) at the end and ``res.info['gaps']`` at every checkpoint (one per
        entry of the trace), ``res.info['active']`` the examples not shrunk at the end.
        The end objective is evaluated during the call (the gap's primal value is the
        trace's, one pass; D(α) costs O(m + n)).

    Raises
    ------
    ValueError
        Bad arguments (named), a loss SDCA does not handle.
    TypeError
        ``lam=`` instead of ``sigma=``.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 5)); y = np.sign(X[:, 0] + 0.5 * X[:, 1])
    >>> res = rlmlib.sdca(X, y, sigma=0.1, epochs=40)
    >>> bool(0.0 <= res.info["gap"] < 1e-5)          # certified without a reference
    True
    >>> ref = rlmlib.lbfgs(X, y, sigma=0.01, loss="squared_hinge", tol=1e-12)
    >>> sq = rlmlib.sdca(X, y, sigma=0.01, epochs=60, loss="squared_hinge")
    >>> bool(abs(sq.objective - ref.objective) < 1e-12 and sq.info["gap"] < 1e-12)
    True
    """
    P = Problem("sdca", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed, order=order,
                orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test,
                progress=progress, losses=SDCA_LOSSES)
    # ||x_i||^2 / (sigma m) is each coordinate's curvature: an infinite one freezes alpha_i
    P.check_scale(*P.minimizer_bound(), extra=((P.R * P.R, "max||x_i||^2 (the dual "
                                                "coordinates' curvature)"),))
    check_bool("shrinking", shrinking)
    sigma, m, n, code, yf, dense = P.sigma, P.m, P.n, P.code, P.y, P.dense
    sm = sigma * m
    q = np.full(m, -1.0)  # ||x_i||^2 / (σm), formed by the kernel at the first visit of i
    w = np.zeros(n)
    alpha = np.zeros(m)
    if code == LOGISTIC:  # the entropy's derivative is infinite at 0: start inside (0, 1)
        alpha[:] = yf * BETA_EDGE
        dual_to_primal(P.rows.data, P.rows.indices, P.rows.indptr, alpha, sm, w, dense)
    shrink = bool(shrinking) and code == HINGE
    active = np.ones(m, dtype=np.bool_)
    visit = np.empty(m if shrink else 0, dtype=np.uint64)
    # [pass, M_old, m_old, M, m, span of the last full pass, its pass]: the projected
    # gradients' range over the examples a pass kept, previous and current pass
    pg = np.array([-1.0, np.inf, -np.inf, -np.inf, np.inf, np.inf, 0.0])

    def steps(rows, yy, ind, ptr, idx, start, stop, t, look):
        p = t // m  # segments never cross a pass (the driver cuts them at each pass's end)
        if shrink and t % m + stop - start > m:  # visit holds m indices: never write past it
            raise RuntimeError(f"sdca: a segment of {stop - start} steps from step {t} "
                               f"crosses a pass of m = {m}")
        if shrink and p != pg[0]:
            pg[0] = p
            if p > 0:
                span = pg[3] - pg[4]   # -inf when the pass kept no example
                if pg[6] == p - 1:
                    pg[5] = span
                since = p - pg[6]
                if since >= SHRINK_MAX or since >= SHRINK_MIN and span <= SHRINK_REL * pg[5]:
                    active[:] = True   # a full pass (shrinking with the last bounds)
                    pg[6] = p
                pg[1] = pg[3] if pg[3] > 0.0 else np.inf
                pg[2] = pg[4] if pg[4] < 0.0 else -np.inf
            pg[3], pg[4] = -np.inf, np.inf
        sdca_steps(rows.data, ind, ptr, yy, code, q, sm, w, alpha, idx, start, stop,
                   active, shrink, pg, dense, visit)

    duals = []

    def on_checkpoint():  # after the driver's evaluation of P(w): D(alpha) is O(m + n)
        duals.append(_dual_objective(code, alpha, yf, w, sigma))

    params = {"sigma": sigma, "epochs": P.epochs, "loss": loss, "shrinking": shrink,
              "seed": P.seed, "order": P.order}
    info = {"alpha": alpha}
    kappa = P.R * P.R / sm  # the largest coordinate curvature max||x_i||^2 / (sigma m)
    hint = (f"SDCA takes no step length; exact dual coordinate ascent never ends above "
            f"F(0), so rounding spoiled its coordinate steps at this conditioning "
            f"(max||x_i||^2/(sigma m) = {kappa:.3g}): scale the rows or raise sigma")
    res = P.run(steps, lambda: w, params, info=info, on_checkpoint=on_checkpoint,
                copy_rows=False, hint=hint)
    # the certificate's primal values are the trace's (a lazy end is settled now: its one
    # pass is the pass the gap needs, and the end check runs with it)
    gaps = res.trace.objective - np.asarray(duals)
    info.update(dual=duals[-1], gap=float(gaps[-1]), gaps=gaps, active=int(active.sum()))
    _check_certificate(np.asarray(duals), gaps, res.trace.objective, hint)
    return res


def _check_certificate(duals, gaps, primal, hint):
    """ConvergenceWarning when the certificate contradicts itself: the dual decreased from
    one checkpoint to the next (exact coordinate ascent never lowers it) or the gap
    P(w) - D(alpha) is negative (weak duality), beyond the rounding of their sums."""
    import warnings

    from ..core.result import ConvergenceWarning

    tol = 1e-9 * np.maximum(1.0, np.maximum(np.abs(primal), np.abs(duals)))
    drop = np.flatnonzero(np.diff(duals) < -tol[1:])
    if drop.size:
        k = int(drop[0])
        warnings.warn(ConvergenceWarning(
            f"sdca's dual decreased from {duals[k]:.6g} to {duals[k + 1]:.6g} between "
            f"checkpoints {k} and {k + 1}: {hint}"), stacklevel=3)
    neg = np.flatnonzero(gaps < -tol)
    if neg.size:
        k = int(neg[0])
        warnings.warn(ConvergenceWarning(
            f"sdca's duality gap is negative at checkpoint {k} ({gaps[k]:.3g}), which weak "
            f"duality forbids: {hint}"), stacklevel=3)


@njit(cache=True)
def dual_to_primal(data, indices, indptr, alpha, sm, w, dense):
    """w <- w + (1/(σm)) Σ αᵢ xᵢ (sm = σm), row by row."""
    for i in range(indptr.shape[0] - 1):
        if alpha[i] != 0.0:
            axpy(data, indices, indptr[i], indptr[i + 1], w, alpha[i] / sm, dense)


def _dual_objective(code, alpha, y, w, sigma):
    """D(α) = (1/m) Σ -ℓ*(-αᵢ) - (σ/2)‖w‖², with w = w(α) (module docstring)."""
    if code == SQUARED:
        c = alpha * y - 0.5 * alpha * alpha
    else:
        b = alpha * y  # β
        if code == HINGE:
            c = b
        elif code == SQUARED_HINGE:
            c = b - 0.5 * b * b
        else:  # binary entropy, 0 log 0 = 0
            with np.errstate(divide="ignore", invalid="ignore"):
                c = -(np.where(b > 0, b * np.log(b), 0.0)
                      + np.where(b < 1, (1 - b) * np.log1p(-b), 0.0))
    return float(np.mean(c) - 0.5 * sigma * np.dot(w, w))


@njit(cache=True)
def logistic_coordinate(beta, yz, qi):
    """The root b in (0, 1) of log((1-b)/b) - yz - qi (b - beta) = 0, by Newton on the
    log-odds u = log(b/(1-b)): g(u) = -u - yz - qi (s(u) - beta), s the logistic sigmoid,
    decreasing with slope in [-1 - qi/4, -1]; the root lies in [-yz - qi, -yz + qi], and a
    step leaving the current bracket bisects it instead."""
    # the kept b lies in [BETA_EDGE, 1 - BETA_EDGE], |u| <= U_EDGE: a root beyond gives the
    # edge either way. Without this cut a curvature qi of 1e10 (sigma = 1e-8) leaves a
    # bracket that NEWTON bisections cannot narrow: the step then lands far from the root
    # and decreases the dual (exact coordinate ascent never does)
    lo = max(-yz - qi, -U_EDGE)
    hi = min(-yz + qi, U_EDGE)
    if lo > hi:  # the root lies beyond an edge
        return BETA_EDGE if hi <= -U_EDGE else 1.0 - BETA_EDGE
    u = math.log(beta / (1.0 - beta))
    if not (lo <= u <= hi):
        u = 0.5 * (lo + hi)
    for _ in range(NEWTON):
        s = 1.0 / (1.0 + math.exp(-u))
        g = -u - yz - qi * (s - beta)
        if g > 0.0:
            lo = u
        else:
            hi = u
        du = g / (1.0 + qi * s * (1.0 - s))  # -g/g'
        nu = u + du
        if not (lo <= nu <= hi):
            nu = 0.5 * (lo + hi)
        if abs(nu - u) <= 1e-15 * max(1.0, abs(u)):
            u = nu
            break
        u = nu
    b = 1.0 / (1.0 + math.exp(-u))
    return min(max(b, BETA_EDGE), 1.0 - BETA_EDGE)


@njit(cache=True)
def sdca_steps(data, indices, indptr, y, code, q, sm, w, alpha, order, start, stop, active,
               shrink, pg, dense, visit):
    """SDCA coordinate steps on examples order[start:stop], in place (module docstring);
    sm = σm; q[i] = ||x_i||^2 / sm, formed at the first visit of i (q[i] < 0 before, in the
    same loop as the margin). With ``shrink`` (hinge), inactive examples are skipped and
    each visit may shrink its example; pg = [pass, M_old, m_old, M, m, ...] (see ``sdca``).
    ``dense``: compact dense rows (``core.rowops``); ``visit``: scratch of m indices.
    LIBLINEAR walks its active set the same way."""
    if shrink:  # the active examples in the pass's order (what the look-ahead must load)
        end = 0
        for k in range(start, stop):
            if active[order[k]]:
                visit[end] = order[k]
                end += 1
        order = visit
        start, stop = 0, end
    for k in range(start, stop):
        i = order[k]
        if shrink and not active[i]:
            continue
        prefetch_ahead(data, indices, indptr, order, k, stop, not dense)
        if k + AHEAD < stop:  # and its q, label and dual variable (random reads)
            prefetch(q, order[k + AHEAD])
            prefetch(y, order[k + AHEAD])
            prefetch(alpha, order[k + AHEAD])
        a = indptr[i]
        b = indptr[i + 1]
        qi = q[i]
        if qi < 0.0:  # first visit: the squared norm with the margin, one read of the row
            z = 0.0
            s2 = 0.0
            if dense:
                for j in range(b - a):
                    x = data[a + j]
                    z += x * w[j]
                    s2 += x * x
            else:
                for p in range(a, b):
                    x = data[p]
                    z += x * w[indices[p]]
                    s2 += x * x
            qi = s2 / sm
            q[i] = qi
        else:
            z = dot(data, indices, a, b, w, dense)
        yi = y[i]
        old = alpha[i]
        if code == SQUARED:
            new = old + (yi - z - old) / (1.0 + qi)
        else:
            beta = old * yi
            if code == HINGE:  # (a zero row, qi = 0: the dual term alone, beta = 1)
                if shrink:
                    G = yi * z - 1.0
                    if beta == 0.0 and G > pg[1] or beta == 1.0 and G < pg[2]:
                        active[i] = False
                        continue
                    pgi = min(G, 0.0) if beta == 0.0 else max(G, 0.0) if beta == 1.0 else G
                    pg[3] = max(pg[3], pgi)
                    pg[4] = min(pg[4], pgi)
                nb = min(max(beta + (1.0 - yi * z) / qi, 0.0), 1.0) if qi > 0.0 else 1.0
            elif code == SQUARED_HINGE:
                nb = max(beta + (1.0 - yi * z - beta) / (1.0 + qi), 0.0)
            else:
                nb = logistic_coordinate(beta, yi * z, qi)
            new = nb * yi
        d = new - old
        if d != 0.0:
            alpha[i] = new
            axpy(data, indices, a, b, w, d / sm, dense)
