"""Adam (Kingma and Ba 2015) and AMSGrad (Reddi, Kale and Kumar 2018), with the l2
regularizer kept in the composite (proximal) step of the diagonal metric.

Minimizes  F(w) = (sigma/2) ||w||^2 + (1/m) sum_i loss(<w, x_i>, y_i).  At step tau = 1, 2,
... the loss gradient g = loss'(<w, x_i>, y_i) x_i of the example drawn enters two
exponential moving averages, and the step divides by the root of the second:

    m_j <- beta1 m_j + (1 - beta1) g_j,    v_j <- beta2 v_j + (1 - beta2) g_j^2,
    (AMSGrad: vmax_j <- max(vmax_j, v_j), used in place of v_j below)
    mhat_j = m_j / (1 - beta1^tau),        H_j = sqrt(v_j / (1 - beta2^tau)) + eps,
    w_j <- (H_j w_j - eta mhat_j) / (H_j + eta sigma)       for every coordinate j.

beta1 = 0 is RMSProp (with Adam's bias correction of v).

Two variants, ``lazy=``:

- ``lazy=False``: the box above on every coordinate at every step, O(n) per step (a
  coordinate the row does not touch still has its averages decayed and moves by its
  momentum).
- ``lazy=True`` (default): *lazy Adam*, a different algorithm. A coordinate's averages
  change, and its step uses them, only at the steps whose row touches it (a non-zero entry);
  tau in the bias corrections is then k_j, the number of rows that touched coordinate j so
  far. At the other steps only the regularizer acts: w_j <- rho_j w_j, rho_j = H_j / (H_j +
  eta sigma) with the coordinate's frozen H_j, applied lazily (rho_j^c for c missed steps).
  O(nnz(x_i)) per step. It equals ``lazy=False`` exactly when every row touches every
  coordinate (dense rows without zeros); otherwise it differs, since dense Adam keeps
  moving a coordinate by its decaying momentum after the rows that touch it have gone.
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_bool, check_interval, check_positive, sigma_keyword
from ..core.losses import loss_deriv
from ..core.order import ORDERS
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem

DEFAULT_STEP = 1e-3   # Kingma and Ba's alpha
DEFAULT_BETA1 = 0.9
DEFAULT_BETA2 = 0.999
DEFAULT_EPS = 1e-8


@njit(cache=True)
def _metric(v, vmax, b2, j, eps, amsgrad):
    """H_j = sqrt(vhat_j) + eps, b2 = beta2^k after k updates of coordinate j's averages
    (b2 = 1: no update yet, H_j = eps)."""
    if b2 == 1.0:
        return eps
    vj = vmax[j] if amsgrad else v[j]
    return math.sqrt(vj / (1.0 - b2)) + eps


@njit(cache=True)
def adam_settle(w, v, vmax, pw, last, j, t, eta, sigma, eps, amsgrad):
    """Lazy Adam: bring coordinate j up to step t (its missed steps are the regularizer's
    factor rho_j = H_j / (H_j + eta sigma), H_j frozen)."""
    c = t - last[j]
    if c > 0:
        h = _metric(v, vmax, pw[1, j], j, eps, amsgrad)
        w[j] *= math.exp(-c * math.log1p(eta * sigma / h))   # rho^c, accurate at large c
        last[j] = t


@njit(cache=True)
def adam_steps(data, indices, indptr, y, w, m, v, vmax, pw, last, order, start, stop,
               t_first, eta, sigma, beta1, beta2, eps, amsgrad, lazy, code, look_ahead):
    """Adam steps on examples order[start:stop] from global step t_first (0-based), in
    place. ``lazy``: lazy Adam (pw[:, j] = beta1^k, beta2^k after k updates of j,
    last[j] its settled step); otherwise every coordinate steps (pw unused, tau = t + 1)."""
    n = w.shape[0]
    es = eta * sigma
    t = t_first
    for k in range(start, stop):
        i = order[k]
        if look_ahead:
            prefetch_ahead(data, indices, indptr, order, k, stop, True)
        a = indptr[i]
        b = indptr[i + 1]
        z = 0.0
        if lazy:
            # adam_settle and the coordinate's update written out in the loops (a
            # call per touched coordinate made a step cost ten times as much)
            for p in range(a, b):
                j = indices[p]
                if data[p] != 0.0:
                    c = t - last[j]
                    if c > 0:
                        b2k = pw[1, j]
                        if b2k != 1.0:
                            vj = vmax[j] if amsgrad else v[j]
                            h = math.sqrt(vj / (1.0 - b2k)) + eps
                        else:
                            h = eps
                        w[j] *= math.exp(-c * math.log1p(es / h))
                        last[j] = t
                    z += data[p] * w[j]
        else:
            for p in range(a, b):
                z += data[p] * w[indices[p]]
        d = loss_deriv(code, z, y[i])   # the gradient is g = d x_i
        if lazy:
            for p in range(a, b):
                if data[p] != 0.0:
                    j = indices[p]
                    g = d * data[p]
                    b1k = pw[0, j] * beta1
                    b2k = pw[1, j] * beta2
                    pw[0, j] = b1k
                    pw[1, j] = b2k
                    mj = beta1 * m[j] + (1.0 - beta1) * g
                    vj = beta2 * v[j] + (1.0 - beta2) * g * g
                    m[j] = mj
                    v[j] = vj
                    if amsgrad:
                        if vj > vmax[j]:
                            vmax[j] = vj
                        else:
                            vj = vmax[j]
                    h = math.sqrt(vj / (1.0 - b2k)) + eps
                    w[j] = (h * w[j] - eta * (mj / (1.0 - b1k))) / (h + es)
                    last[j] = t + 1
        else:
            tau = t + 1
            # every coordinate: the averages first take g_j = 0 (beta m, beta v), the row's
            # entries then add their (1 - beta) g_j, the same arithmetic as the box
            for j in range(n):
                m[j] = beta1 * m[j]
                v[j] = beta2 * v[j]
            for p in range(a, b):
                j = indices[p]
                g = d * data[p]
                m[j] = m[j] + (1.0 - beta1) * g
                v[j] = v[j] + (1.0 - beta2) * g * g
            c1 = 1.0 - beta1 ** tau
            c2 = 1.0 - beta2 ** tau
            for j in range(n):
                if amsgrad and v[j] > vmax[j]:
                    vmax[j] = v[j]
                h = math.sqrt((vmax[j] if amsgrad else v[j]) / c2) + eps
                w[j] = (h * w[j] - eta * (m[j] / c1)) / (h + es)
        t += 1


@njit(cache=True)
def adam_settle_all(w, v, vmax, pw, last, t, eta, sigma, eps, amsgrad):
    """Lazy Adam: bring every coordinate up to step t (O(n))."""
    for j in range(w.shape[0]):
        adam_settle(w, v, vmax, pw, last, j, t, eta, sigma, eps, amsgrad)


def adam_scale_bound(eta, beta1, beta2, T, n):
    """A bound on ||w_t|| over T Adam steps from w = 0, or None.

    With gamma = beta1^2 / beta2 < 1, Cauchy-Schwarz gives |m_t| <= (1 - beta1) /
    sqrt((1 - beta2)(1 - gamma)) sqrt(v_t), and the bias corrections multiply the ratio by
    sqrt(1 - beta2^tau) / (1 - beta1^tau) <= 1 / (1 - beta1): so a step moves a coordinate
    by at most eta / sqrt((1 - beta2)(1 - gamma)) (AMSGrad's vmax >= v: less), and the
    regularizer's factor only shrinks it.

    Parameters
    ----------
    eta, beta1, beta2 : float
        Adam's step and averaging weights.
    T, n : int
        Steps and features.

    Returns
    -------
    float or None
        eta T sqrt(n) / sqrt((1 - beta2)(1 - gamma)); None when beta1^2 >= beta2.

    Examples
    --------
    >>> from rlmlib.solvers.adam import adam_scale_bound
    >>> adam_scale_bound(0.1, 0.0, 0.75, 4, 1)   # 0.1 * 4 / sqrt(0.25)
    0.8
    >>> adam_scale_bound(0.1, 0.9, 0.5, 4, 1) is None
    True
    """
    gamma = beta1 * beta1 / beta2
    if gamma >= 1.0:
        return None
    return eta * T * math.sqrt(n) / math.sqrt((1.0 - beta2) * (1.0 - gamma))


@sigma_keyword
def adam(X, y, *, sigma, epochs=10, loss="logistic", step=DEFAULT_STEP,
         beta1=DEFAULT_BETA1, beta2=DEFAULT_BETA2, eps=DEFAULT_EPS, amsgrad=False,
         lazy=True, seed=0, order="reshuffle", n_checkpoints=None, X_test=None,
         y_test=None, progress=False):
    """Adam or AMSGrad on (σ/2)‖w‖² + mean loss, the regularizer in the composite step.

    Step τ on example i: g = ℓ'(⟨w, x_i⟩; y_i) x_i, m ← β₁m + (1 − β₁)g,
    v ← β₂v + (1 − β₂)g² (AMSGrad: v̄ = max(v̄, v) in v's place), H = √(v/(1 − β₂^τ)) + ε,
    w_j ← (H_j w_j − η m_j/(1 − β₁^τ))/(H_j + ησ). β₁ = 0 is RMSProp.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Training rows, dense or sparse.
    y : array-like, shape (m,)
        Labels (two values) for a classification loss, targets for a regression loss.
    sigma : float > 0
        Regularization weight σ of (σ/2)‖w‖².
    epochs : int >= 1, default 10
        Passes over the data (m steps each).
    loss : str, default 'logistic'
        One of ``rlmlib.LOSSES``.
    step : float > 0, default 1e-3
        η (Kingma and Ba's α).
    beta1 : float in [0, 1), default 0.9
        β₁, the first moment's average (0: RMSProp).
    beta2 : float in (0, 1), default 0.999
        β₂, the second moment's average.
    eps : float > 0, default 1e-8
        ε added to √v̂.
    amsgrad : bool, default False
        AMSGrad: divide by the running maximum of v (Reddi, Kale and Kumar's fix).
    lazy : bool, default True
        True: lazy Adam, O(nnz(x_i)) per step: a coordinate's averages and gradient step
        change only at the steps whose row has a non-zero entry there (the bias
        corrections count those steps), the regularizer's factor H_j/(H_j + ησ) acts at
        every step (applied lazily). False: the box on every coordinate at every step,
        O(n). The two are equal when every row touches every coordinate.
    seed, order, n_checkpoints, X_test, y_test, progress
        As in every solver (DESIGN.md).

    Returns
    -------
    Result
        ``res.w``; ``res.params`` every setting; ``res.info['v']`` the second moments.

    Raises
    ------
    ValueError
        For a bad argument (named in the message), before any step is taken.
    TypeError
        For ``amsgrad`` or ``lazy`` that is not a bool.
    FloatingPointError
        When the weights overflow.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 4)); y = np.sign(X @ [1.0, -1.0, 0.5, 0.0])
    >>> res = rlmlib.adam(X, y, sigma=0.01, epochs=50, step=0.01)
    >>> ref = rlmlib.lbfgs(X, y, sigma=0.01, loss="logistic")
    >>> bool(res.objective - ref.objective < 1e-2 * ref.objective)
    True
    """
    p = Problem("adam", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed,
                order=order, orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test,
                y_test=y_test, progress=progress, compact_dense=False)
    eta = check_positive("step", step)
    beta1 = check_interval("beta1", beta1, 0.0, 1.0, True, False)
    beta2 = check_interval("beta2", beta2, 0.0, 1.0, False, False)
    eps = check_positive("eps", eps)
    amsgrad, lazy = check_bool("amsgrad", amsgrad), check_bool("lazy", lazy)
    W = adam_scale_bound(eta, beta1, beta2, p.total, p.n)
    p.check_scale(W, "step T sqrt(n) / sqrt((1 - beta2)(1 - beta1^2/beta2))")
    w, m, v = np.zeros(p.n), np.zeros(p.n), np.zeros(p.n)
    vmax = np.zeros(p.n)
    pw = np.ones((2, p.n))   # lazy: beta1^k_j, beta2^k_j
    last = np.zeros(p.n, np.int64)
    clock = [0]

    def steps(rows, yy, indices, indptr, idx, start, stop, t, look_ahead):
        adam_steps(rows.data, indices, indptr, yy, w, m, v, vmax, pw, last, idx, start,
                   stop, t, eta, p.sigma, beta1, beta2, eps, amsgrad, lazy, p.code,
                   look_ahead)
        clock[0] = t + stop - start

    def get_w():
        if lazy:
            adam_settle_all(w, v, vmax, pw, last, clock[0], eta, p.sigma, eps, amsgrad)
        return w.copy()

    params = {"sigma": p.sigma, "epochs": p.epochs, "loss": loss, "step": eta,
              "beta1": beta1, "beta2": beta2, "eps": eps, "amsgrad": amsgrad,
              "lazy": lazy, "seed": p.seed, "order": p.order}
    return p.run(steps, get_w, params, info={"v": v}, state=lambda: (w, m, v),
                 hint=f"step={eta:.3g} is too long for these rows: pass a smaller step")
