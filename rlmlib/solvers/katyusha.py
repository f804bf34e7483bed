"""Katyusha (Allen-Zhu 2017, Algorithm 1, strongly convex case, option I of the y-step):
SVRG with Nesterov momentum and a "negative momentum" that pulls towards the snapshot,
for σ‖w‖²/2 + mean smooth loss.

A stage takes the snapshot x̃ (the weighted average of the previous stage's y-iterates),
its full loss gradient μ̃ and the derivatives ℓ'(⟨x̃, xᵢ⟩) of every row, then ``inner``
steps (default 2m) of

    x = τ₁ z + τ₂ x̃ + (1 - τ₁ - τ₂) y
    g = μ̃ + (ℓ'(⟨x, xᵢ⟩) - ℓ'(⟨x̃, xᵢ⟩)) xᵢ
    z ← (z - α g)/(1 + ασ),    y ← (3L x - g)/(3L + σ)

with τ₂ = 1/2, τ₁ = min(√(inner·σ/(3L)), 1/2), α = 1/(3τ₁L), L = L_max of the loss part;
the next snapshot is Σ_j (1 + ασ)^j y_j / Σ_j (1 + ασ)^j over the stage's steps.

On sparse (CSR) input the steps are lazy, O(nnz(x_i)) each
(``katyusha_lazy_steps``): outside the drawn row g_p = μ̃_p, so a coordinate p follows one
fixed affine map on ζ_p = (z_p, y_p, Y_p), ζ ← Mζ + μ̃_p u + x̃_p v, where
Y_j = Y_{j-1}/(1 + ασ) + y_j is the stage's discounted sum of y (the next snapshot is
Y_{J-1}/Σ_{i<J}(1 + ασ)^{-i}). A step brings the row's coordinates up to date by the
d-th power of that map (d = steps since the coordinate was last written; the table of M^d
and of the d-fold constant, d ≤ K, is computed once per run), and every coordinate is
brought up to date at the end of a stage, or every K steps when K < inner, with
K = min(inner, max(4096, n/4)). Dense input keeps the dense steps, O(n) each
(``katyusha_steps``): there a row holds every coordinate anyway. Both give the box's
iterates up to rounding.
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_int, sigma_keyword
from ..core.losses import loss_deriv
from ..core.prefetch import prefetch_ahead
from .vr import accelerated_problem


def katyusha_parameters(Lmax, sigma, inner):
    """(τ₁, τ₂, α) of Allen-Zhu's Algorithm 1 for an inner length ``inner`` (his m).

    Parameters
    ----------
    Lmax : float > 0
        Smoothness of one loss term (the paper's L).
    sigma : float > 0
        Strong convexity of the regularizer.
    inner : int >= 1
        Steps per stage.

    Returns
    -------
    tuple of float
        τ₁ = min(√(inner σ/(3L)), 1/2), τ₂ = 1/2, α = 1/(3τ₁L).

    Examples
    --------
    >>> katyusha_parameters(2.0, 3.0, 1)   # √(1·3/(3·2)) > 1/2: τ₁ = 1/2, α = 1/(3 L/2)
    (0.5, 0.5, 0.3333333333333333)
    """
    tau1 = min(math.sqrt(inner * sigma / (3.0 * Lmax)), 0.5)
    return tau1, 0.5, 1.0 / (3.0 * tau1 * Lmax)


@sigma_keyword
def katyusha(X, y, *, sigma, epochs=30, loss="logistic", inner=None, seed=0,
             order="replacement", n_checkpoints=None, X_test=None, y_test=None,
             progress=False):
    """Katyusha (Allen-Zhu 2017): accelerated SVRG for σ‖w‖²/2 + mean smooth loss.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Dense (steps of O(n)) or sparse (lazy steps of O(nnz(x_i)), the same iterates up
        to rounding; see the module docstring).
    y : array-like, shape (m,)
        Targets (squared loss) or two labels (logistic loss, mapped to -1/+1).
    sigma : float > 0
        Regularization weight σ (the strong convexity of the regularizer).
    epochs : int >= 1
        Budget in passes (gradients of one term over m). A stage costs 1 + inner/m
        passes (the snapshot's full gradient, then ``inner`` steps of one new gradient;
        the snapshot's derivatives are stored), so ceil(epochs / (1 + inner/m)) stages
        run.
    loss : {'logistic', 'squared'}
    inner : int >= 1 or None
        Steps per stage (the paper's m). None: 2m, the paper's choice.
    seed, order, n_checkpoints, X_test, y_test, progress
        As ``rlmlib.svrg``.

    Returns
    -------
    Result
        ``res.w`` is the last snapshot x̃ (the weighted average of the last stage's
        y-iterates); ``res.params`` holds ``tau1``, ``tau2``, ``alpha``, ``inner``,
        ``stages`` and ``L_max``; ``res.info['steps']`` is 'lazy' (sparse X) or 'dense',
        ``res.info['coordinate_updates']`` counts the coordinates of (z, y) written:
        n a step when dense; lazy, nnz(x_i) a step plus n at each full catch-up (the end
        of a stage, every K steps within a long one, a checkpoint inside a stage).

    Raises
    ------
    ValueError
        Bad arguments (named): loss not squared/logistic, inner < 1, ...
    TypeError
        ``lam=`` instead of ``sigma=``.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = np.sign(X[:, 0] + 0.5 * X[:, 1])
    >>> res = rlmlib.katyusha(X, y, sigma=1e-3, epochs=150)
    >>> ref = rlmlib.lbfgs(X, y, sigma=1e-3, loss="logistic", tol=1e-13)
    >>> bool(res.objective - ref.objective < 1e-8 * ref.objective)
    True
    """
    P, Lmax = accelerated_problem("katyusha", X, y, sigma, loss, epochs, seed, order,
                                  n_checkpoints, X_test, y_test, progress)
    sigma, m, n = P.sigma, P.m, P.n
    inner = 2 * m if inner is None else check_int("inner", inner)
    Lk = Lmax if Lmax > 0.0 else sigma  # all-zero rows: any L > 0 gives the same run
    tau1, tau2, alpha = katyusha_parameters(Lk, sigma, inner)
    stages = P.set_stages(inner)
    lazy = bool(P.rows.sparse)
    xt, mu, z, yv = (np.zeros(n) for _ in range(4))
    gsnap = np.zeros(m)
    # [steps of the stage, r_{j-1} (dense), coordinate updates, step of the last sweep]
    state = np.array([0.0, 1.0, 0.0, 0.0])
    ind, ptr = P.unsigned()
    if lazy:
        Y, last = np.zeros(n), np.zeros(n, dtype=np.int64)
        T = katyusha_lazy_tables(Lk, sigma, alpha, tau1, tau2,
                                 min(P.inner, max(4096, n // 4)))

        def take_snapshot():
            katyusha_lazy_snapshot(P.rows.data, ind, ptr, P.y, P.code, sigma, alpha, xt,
                                   mu, gsnap, z, yv, Y, last, T, state)

        def steps(rows, yy, ind_, ptr_, idx, start, stop, t, look):
            katyusha_lazy_steps(rows.data, ind_, ptr_, yy, P.code, Lk, sigma, alpha, tau1,
                                tau2, xt, mu, gsnap, z, yv, Y, last, T, state, idx, start,
                                stop)

        def get_w():
            if state[0] == 0.0:
                return xt.copy()
            lazy_catch_up_all(xt, mu, z, yv, Y, last, T, state)
            return Y / stage_weight(alpha * sigma, int(state[0]))
    else:
        x, g, acc = np.zeros(n), np.zeros(n), np.zeros(n)

        def take_snapshot():
            katyusha_snapshot(P.rows.data, ind, ptr, P.y, P.code, xt, mu, gsnap, acc,
                              state)

        def steps(rows, yy, ind_, ptr_, idx, start, stop, t, look):
            katyusha_steps(rows.data, ind_, ptr_, yy, P.code, Lk, sigma, alpha, tau1,
                           tau2, xt, mu, gsnap, z, yv, x, g, acc, state, idx, start, stop)

        def get_w():
            return acc.copy() if state[0] > 0.0 else xt.copy()

    params = {"sigma": sigma, "epochs": P.epochs, "loss": loss, "inner": P.inner,
              "stages": stages, "tau1": tau1, "tau2": tau2, "alpha": alpha,
              "L_max": Lmax, "seed": P.seed, "order": P.order}
    info = {"steps": "lazy" if lazy else "dense"}
    # rows stay in storage order: gsnap is indexed by row
    checked = (z, yv, Y) if lazy else (z, yv)
    res = P.run(steps, get_w, params, state=lambda: checked, copy_rows=False,
                snapshot=take_snapshot, info=info,
                hint=f"these rows overflow (L_max = {Lmax:.3g})")
    info["coordinate_updates"] = int(state[2])
    return res


@njit(cache=True)
def snapshot_gradient(data, indices, indptr, y, code, xt, mu, gsnap):
    """The snapshot's derivatives gsnap[i] = ℓ'(⟨x̃, xᵢ⟩) and μ̃ = (1/m) Σ gsnap[i] xᵢ.
    O(nnz + n)."""
    m, n = y.shape[0], xt.shape[0]
    for k in range(n):
        mu[k] = 0.0
    for i in range(m):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * xt[indices[p]]
        g = loss_deriv(code, s, y[i])
        gsnap[i] = g
        for p in range(indptr[i], indptr[i + 1]):
            mu[indices[p]] += g * data[p] / m


@njit(cache=True)
def katyusha_snapshot(data, indices, indptr, y, code, xt, mu, gsnap, acc, state):
    """Dense steps: close a stage (x̃ = weighted average of its y's, if it ran) and take
    the full gradient at x̃ (``snapshot_gradient``). O(nnz + n)."""
    n = xt.shape[0]
    if state[0] > 0.0:
        for k in range(n):
            xt[k] = acc[k]
            acc[k] = 0.0
    state[0] = 0.0
    state[1] = 1.0
    snapshot_gradient(data, indices, indptr, y, code, xt, mu, gsnap)


@njit(cache=True)
def katyusha_steps(data, indices, indptr, y, code, L, sigma, alpha, tau1, tau2, xt, mu,
                   gsnap, z, yv, x, g, acc, state, idx, start, stop):
    """Steps idx[start:stop] of the box. ``acc`` is the running weighted average of the
    stage's y (weights (1 + ασ)^j), kept as avg ← avg + r_j (y_j - avg) with
    r_j = w_j / Σ_{i≤j} w_i = 1/(1 + 1/(r_{j-1}(1 + ασ))), r_0 = 1: the weights
    themselves overflow when ασ is large. state = [steps of the stage, r_{j-1}, coordinate
    updates so far (n a step)]."""
    n = xt.shape[0]
    grow = 1.0 + alpha * sigma
    for t in range(start, stop):
        i = idx[t]
        s = 0.0
        for k in range(n):
            x[k] = tau1 * z[k] + tau2 * xt[k] + (1.0 - tau1 - tau2) * yv[k]
            g[k] = mu[k]
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * x[indices[p]]
        c = loss_deriv(code, s, y[i]) - gsnap[i]
        for p in range(indptr[i], indptr[i + 1]):
            g[indices[p]] += c * data[p]
        r = 1.0 if state[0] == 0.0 else 1.0 / (1.0 + 1.0 / (state[1] * grow))
        for k in range(n):
            z[k] = (z[k] - alpha * g[k]) / grow
            yv[k] = (3.0 * L * x[k] - g[k]) / (3.0 * L + sigma)
            acc[k] += r * (yv[k] - acc[k])
        state[0] += 1.0
        state[1] = r
    state[2] += (stop - start) * n


@njit(cache=True)
def katyusha_lazy_tables(L, sigma, alpha, tau1, tau2, K):
    """The d-step map of a coordinate outside the drawn rows, for d = 0 .. K (module
    docstring): row d holds the lower-triangular M^d (M^d_zz = M^d_YY = θ^{-d}, M^d_yz,
    M^d_yy, M^d_Yz, M^d_Yy) and the constants c_u = Σ_{r<d} M^r u (three) and
    c_v = Σ_{r<d} M^r v (its y and Y entries; the z entry is 0), θ = 1 + ασ.

    One step: z ← (z - αμ̃)/θ, y ← (3L(τ₁z + τ₂x̃ + (1 - τ₁ - τ₂)y) - μ̃)/(3L + σ),
    Y ← Y/θ + y (new y): M = [[1/θ, 0, 0], [b, c, 0], [b, c, 1/θ]], u = (-α/θ, e, e),
    v = (0, f, f) with b = 3Lτ₁/(3L + σ), c = 3L(1 - τ₁ - τ₂)/(3L + σ), e = -1/(3L + σ),
    f = 3Lτ₂/(3L + σ). Built by d ← d + 1: M^{d+1} = M M^d, C_{d+1} = M C_d + (u, v).
    Columns: [θ^{-d}, yz, yy, Yz, Yy, cu_z, cu_y, cu_Y, cv_y, cv_Y]."""
    a = 1.0 / (1.0 + alpha * sigma)
    d3 = 3.0 * L + sigma
    b = 3.0 * L * tau1 / d3
    c = 3.0 * L * (1.0 - tau1 - tau2) / d3
    u0, e, f = -alpha * a, -1.0 / d3, 3.0 * L * tau2 / d3
    T = np.zeros((K + 1, 10))
    T[0, 0] = 1.0
    T[0, 2] = 1.0
    for d in range(K):
        p00, p10, p11, p20, p21, cu0, cu1, cu2, cv1, cv2 = T[d]
        T[d + 1, 0] = a * p00
        T[d + 1, 1] = b * p00 + c * p10
        T[d + 1, 2] = c * p11
        T[d + 1, 3] = b * p00 + c * p10 + a * p20
        T[d + 1, 4] = c * p11 + a * p21
        T[d + 1, 5] = a * cu0 + u0
        T[d + 1, 6] = b * cu0 + c * cu1 + e
        T[d + 1, 7] = b * cu0 + c * cu1 + a * cu2 + e
        T[d + 1, 8] = c * cv1 + f
        T[d + 1, 9] = c * cv1 + a * cv2 + f
    return T


@njit(cache=True)
def lazy_catch_up(k, d, xt, mu, z, yv, Y, T):
    """Coordinate k, last written d steps ago, brought up to date: ζ ← M^d ζ + c_d."""
    z0, y0 = z[k], yv[k]
    z[k] = T[d, 0] * z0 + T[d, 5] * mu[k]
    yv[k] = T[d, 1] * z0 + T[d, 2] * y0 + T[d, 6] * mu[k] + T[d, 8] * xt[k]
    Y[k] = (T[d, 3] * z0 + T[d, 4] * y0 + T[d, 0] * Y[k] + T[d, 7] * mu[k]
            + T[d, 9] * xt[k])


@njit(cache=True)
def lazy_catch_up_all(xt, mu, z, yv, Y, last, T, state):
    """Every coordinate brought up to date at step j = state[0] of the stage; counts n
    coordinate updates (state[2]) unless the last sweep (state[3]) was at j."""
    j = int(state[0])
    for k in range(xt.shape[0]):
        d = j - last[k]
        if d > 0:
            lazy_catch_up(k, d, xt, mu, z, yv, Y, T)
            last[k] = j
    if state[0] > state[3]:
        state[2] += xt.shape[0]
        state[3] = state[0]


@njit(cache=True)
def stage_weight(a_sigma, J):
    """Σ_{i<J} θ^{-i}, θ = 1 + ασ: the normalizer of the stage's discounted sum Y."""
    theta = 1.0 + a_sigma
    W, q = 0.0, 1.0
    for _ in range(J):
        W += q
        q /= theta
    return W


@njit(cache=True)
def katyusha_lazy_snapshot(data, indices, indptr, y, code, sigma, alpha, xt, mu, gsnap,
                           z, yv, Y, last, T, state):
    """Lazy steps: close a stage (every coordinate up to date, then x̃ = Y / Σ_{i<J} θ^{-i}
    with J its steps) and take the full gradient at x̃ (``snapshot_gradient``)."""
    J = int(state[0])
    if J > 0:
        lazy_catch_up_all(xt, mu, z, yv, Y, last, T, state)
        W = stage_weight(alpha * sigma, J)
        for k in range(xt.shape[0]):
            xt[k] = Y[k] / W
            Y[k] = 0.0
            last[k] = 0
    state[0] = 0.0
    state[3] = 0.0
    snapshot_gradient(data, indices, indptr, y, code, xt, mu, gsnap)


@njit(cache=True)
def katyusha_lazy_steps(data, indices, indptr, y, code, L, sigma, alpha, tau1, tau2, xt,
                        mu, gsnap, z, yv, Y, last, T, state, idx, start, stop):
    """Steps idx[start:stop] of the box, O(nnz(x_i)) each: the row's coordinates are
    brought up to date (``lazy_catch_up``; last[k] is the step of the stage after which k
    was last written), then stepped as in ``katyusha_steps``, Y ← Y/θ + y with them; every
    K = len(T) - 1 steps all coordinates are brought up to date. state = [steps of the
    stage, unused, coordinate updates so far, step of the last full catch-up]."""
    K = T.shape[0] - 1
    theta = 1.0 + alpha * sigma
    d3 = 3.0 * L + sigma
    tb = 1.0 - tau1 - tau2
    j = int(state[0])
    ops = 0
    for t in range(start, stop):
        if j > 0 and j % K == 0:
            state[0] = j
            lazy_catch_up_all(xt, mu, z, yv, Y, last, T, state)
        i = idx[t]
        prefetch_ahead(data, indices, indptr, idx, t, stop, True)
        a, b = indptr[i], indptr[i + 1]
        s = 0.0
        for p in range(a, b):
            k = indices[p]
            d = j - last[k]
            if d > 0:
                lazy_catch_up(k, d, xt, mu, z, yv, Y, T)
            s += data[p] * (tau1 * z[k] + tau2 * xt[k] + tb * yv[k])
        c = loss_deriv(code, s, y[i]) - gsnap[i]
        for p in range(a, b):
            k = indices[p]
            x = tau1 * z[k] + tau2 * xt[k] + tb * yv[k]
            g = mu[k] + c * data[p]
            z[k] = (z[k] - alpha * g) / theta
            yv[k] = (3.0 * L * x - g) / d3
            Y[k] = Y[k] / theta + yv[k]
            last[k] = j + 1
        ops += b - a
        j += 1
    state[0] = j
    state[2] += ops
