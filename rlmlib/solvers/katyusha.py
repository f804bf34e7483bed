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

Steps are dense: x, y and z change in every coordinate at every step (the three-point
combination has no lazy form as simple as SAGA's), so a step costs O(n) on dense and on
sparse rows alike; sparse input is accepted and gives the same iterates, only without
the O(nnz) step cost of ``saga`` or ``catalyst``.
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_int, sigma_keyword
from ..core.losses import loss_deriv
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


@njit(cache=True)
def katyusha_snapshot(data, indices, indptr, y, code, xt, mu, gsnap, acc, state):
    """Close a stage (x̃ = weighted average of its y's, if it ran) and take the full
    gradient at x̃: gsnap[i] = ℓ'(⟨x̃, xᵢ⟩), μ̃ = (1/m) Σ gsnap[i] xᵢ. O(nnz + n)."""
    m, n = y.shape[0], xt.shape[0]
    if state[0] > 0.0:
        for k in range(n):
            xt[k] = acc[k]
            acc[k] = 0.0
    state[0] = 0.0
    state[1] = 1.0
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
def katyusha_steps(data, indices, indptr, y, code, L, sigma, alpha, tau1, tau2, xt, mu,
                   gsnap, z, yv, x, g, acc, state, idx, start, stop):
    """Steps idx[start:stop] of the box. ``acc`` is the running weighted average of the
    stage's y (weights (1 + ασ)^j), kept as avg ← avg + r_j (y_j - avg) with
    r_j = w_j / Σ_{i≤j} w_i = 1/(1 + 1/(r_{j-1}(1 + ασ))), r_0 = 1: the weights
    themselves overflow when ασ is large. state = [steps of the stage, r_{j-1}]."""
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


@sigma_keyword
def katyusha(X, y, *, sigma, epochs=30, loss="logistic", inner=None, seed=0,
             order="replacement", n_checkpoints=None, X_test=None, y_test=None,
             progress=False):
    """Katyusha (Allen-Zhu 2017): accelerated SVRG for σ‖w‖²/2 + mean smooth loss.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Dense or CSR; a step costs O(n) on both (see the module docstring).
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
        ``stages`` and ``L_max``.

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
    xt, mu, z, yv, x, g, acc = (np.zeros(n) for _ in range(7))
    gsnap = np.zeros(m)
    state = np.array([0.0, 1.0])
    ind, ptr = P.unsigned()

    def take_snapshot():
        katyusha_snapshot(P.rows.data, ind, ptr, P.y, P.code, xt, mu, gsnap, acc, state)

    def steps(rows, yy, ind_, ptr_, idx, start, stop, t, look):
        katyusha_steps(rows.data, ind_, ptr_, yy, P.code, Lk, sigma, alpha, tau1, tau2,
                       xt, mu, gsnap, z, yv, x, g, acc, state, idx, start, stop)

    def get_w():
        return acc.copy() if state[0] > 0.0 else xt.copy()

    params = {"sigma": sigma, "epochs": P.epochs, "loss": loss, "inner": P.inner,
              "stages": stages, "tau1": tau1, "tau2": tau2, "alpha": alpha,
              "L_max": Lmax, "seed": P.seed, "order": P.order}
    # rows stay in storage order: gsnap is indexed by row
    return P.run(steps, get_w, params, state=lambda: (z, yv), copy_rows=False,
                 snapshot=take_snapshot, hint=f"these rows overflow (L_max = {Lmax:.3g})")
