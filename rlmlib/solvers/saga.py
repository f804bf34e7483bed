"""SAGA (Defazio, Bach & Lacoste-Julien 2014) with the proximal step of σ‖w‖²/2 or σ‖w‖₁,
squared or logistic loss, just-in-time updates on sparse rows.

Minimizes  F(w) = σ r(w) + (1/m) Σ_i ℓ(<w, x_i>, y_i),  r = ½‖w‖² ('l2') or ‖w‖₁ ('l1').
SAGA keeps the last derivative a_i of every example and the average ḡ = (1/m) Σ_j a_j x_j;
at step t it draws j and steps

    g = ℓ'(<w, x_j>, y_j),   v = (g - a_j) x_j + ḡ,   w <- prox_{ησr}(w - η v),
    ḡ <- ḡ + (g - a_j) x_j / m,   a_j <- g

(the table starts at a = 0, ḡ = 0). prox of ησ‖·‖²/2: u / (1 + ησ); of ησ‖·‖₁: soft
thresholding at ησ.

Just in time. A coordinate k outside the row x_j receives only w_k <- prox(w_k - η ḡ_k),
and ḡ_k changes only when a row containing k is read; so the missed steps of k are applied
when k is next read, in closed form:
- 'l2': w = s v with s <- s/(1 + ησ) at every step; v_k -= ḡ_k (cum - last_k), cum the
  running sum of η/s (as in ``sag``);
- 'l1': c missed steps of u <- S_{ησ}(u - η ḡ_k) (S soft thresholding), ``l1_catch_up``.
A step costs O(nnz(x_j)).
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_choice, check_positive, sigma_keyword
from ..core.losses import LOSSES, loss_deriv
from ..core.order import ORDERS
from ..core.prefetch import AHEAD, prefetch, prefetch_ahead
from ..core.problem import Problem
from .l1 import soft
from .vr import RENORM, check_curvature, row_norms2, warn_step_limit

PENALTIES = ("l2", "l1")


@sigma_keyword
def saga(X, y, *, sigma, epochs=10, loss="logistic", penalty="l2", step=None, seed=0,
         order="replacement", n_checkpoints=None, X_test=None, y_test=None, progress=False):
    """SAGA with the proximal step of σ‖w‖²/2 ('l2') or σ‖w‖₁ ('l1'), dense or sparse.

    Minimizes F(w) = σ r(w) + (1/m) Σ ℓ(⟨w, xᵢ⟩, yᵢ). Each step reads one row, corrects
    its stored derivative and applies the averaged table (just in time on sparse rows).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
        Targets (squared loss) or two labels (logistic loss, mapped to -1/+1).
    sigma : float > 0
        Regularization weight σ.
    epochs : int >= 1
        Passes over the data (m steps each).
    loss : {'logistic', 'squared'}
    penalty : {'l2', 'l1'}
        r(w) = ½‖w‖² or ‖w‖₁, applied by its proximal map.
    step : float > 0 or None
        Step η. None: 1/(3 L_max), the step of Defazio et al.'s Theorem 1, with
        L_max = L·maxᵢ‖xᵢ‖² the largest smoothness of one loss term (L = 1 squared,
        1/4 logistic; ``res.params['L_max']``).
    seed : int >= 0
    order : {'replacement', 'reshuffle', 'shuffle_once', 'cyclic'}
        Default 'replacement' (uniform i.i.d. draws, as in the analysis).
    n_checkpoints, X_test, y_test, progress
        As in every solver (DESIGN.md).

    Returns
    -------
    Result
        ``res.w``; ``res.params`` holds ``step``, ``L_max``, ``penalty``; the objective in
        the trace is F with the chosen penalty.

    Raises
    ------
    ValueError
        Bad arguments (named): loss not squared/logistic, unknown penalty, step <= 0, ...
    TypeError
        ``lam=`` instead of ``sigma=``.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = np.sign(X[:, 0] + 0.5 * X[:, 1])
    >>> res = rlmlib.saga(X, y, sigma=0.1, epochs=60)
    >>> ref = rlmlib.lbfgs(X, y, sigma=0.1, loss="logistic")
    >>> bool(res.objective - ref.objective < 1e-10)
    True
    >>> w1 = rlmlib.saga(X, y, sigma=0.05, epochs=60, penalty="l1").w
    >>> int(np.sum(w1 == 0.0)) >= 2      # the l1 prox sets coordinates exactly to zero
    True
    """
    check_choice("penalty", penalty, PENALTIES)
    P = Problem("saga", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed, order=order,
                orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test,
                progress=progress, losses=("squared", "logistic"), penalty=penalty,
                compact_dense=False)
    if penalty == "l2":
        P.check_scale(*P.minimizer_bound())
    else:  # sigma ||w*||_1 <= F(w*) <= F(0)
        P.check_scale(P.F0 / P.sigma, "F(0) / sigma")
    sigma, m, n = P.sigma, P.m, P.n
    Lmax = LOSSES[loss]["smoothness"] * float(row_norms2(P.rows).max())
    check_curvature("saga", Lmax, "L_max = max_i smoothness * ||x_i||^2")
    if step is None:
        step = 1.0 / (3.0 * Lmax) if Lmax > 0.0 else 1.0
    else:
        step = check_positive("step", step)
        if Lmax > 0.0:  # the prox of sigma r only contracts: sag's limit on the loss step
            warn_step_limit("saga", step, Lmax, "max_i smoothness * ||x_i||^2",
                            "1/(3 L_max)")
    l1 = penalty == "l1"
    # w, ḡ and last side by side, one row of W per coordinate: a step reads all three at
    # the row's coordinates, scattered over n, and then finds them in one cache line
    W = np.zeros((n, 3))
    w, gbar, last, table = W[:, 0], W[:, 1], W[:, 2], np.zeros(m)
    state = np.array([1.0, 0.0, 0.0])  # [s, cum, t] (l2: scale and running sum; l1: t)

    def steps(rows, yy, ind, ptr, idx, start, stop, t, look):
        saga_steps(rows.data, ind, ptr, yy, P.code, step, sigma, l1, w, last, gbar, table,
                   state, idx, start, stop)

    def get_w():
        saga_catch_up_all(w, last, gbar, state, step, sigma, l1)
        return np.ascontiguousarray(w)  # w is a column of W

    params = {"sigma": sigma, "epochs": P.epochs, "loss": loss, "penalty": penalty,
              "step": float(step), "L_max": Lmax, "seed": P.seed, "order": P.order}
    return P.run(steps, get_w, params, state=lambda: (w, gbar), copy_rows=False,
                 hint=f"step={step:.3g} is too long for these rows (L_max = {Lmax:.3g})")


@njit(cache=True)
def l1_catch_up(u, c, eta, tau, k):
    """k steps of u <- S_tau(u - eta c) (S: soft thresholding at tau = eta σ), in O(1):
    with |c| <= σ they are one soft thresholding of u - k eta c at k tau (as scikit-learn's
    lazy prox does); with |c| > σ it walks the stretches of constant sign until the sign
    settles."""
    if k <= 0.0:
        return u
    d = eta * c
    if abs(d) <= tau:  # each step moves u towards 0 by tau ± d and 0 stays: one step
        return soft(u - k * d, k * tau)
    # while u stays on one side with u - d beyond the threshold, each step moves it by a
    # constant: -(d + tau) when positive, -(d - tau) when negative
    while k > 0.0:
        if u > 0.0:
            rate = d + tau
            if rate <= 0.0:  # drifts up (or stays): never leaves the positive side
                return u - k * rate
            n_same = math.floor((u - d - tau) / rate) + 1.0 if u - d > tau else 0.0
            if n_same >= k:
                return u - k * rate
            u -= n_same * rate
            k -= n_same
            u = soft(u - d, tau)  # the step that leaves the positive side
            k -= 1.0
        elif u < 0.0:
            rate = tau - d
            if rate <= 0.0:
                return u + k * rate
            n_same = math.floor((-tau - (u - d)) / rate) + 1.0 if u - d < -tau else 0.0
            if n_same >= k:
                return u + k * rate
            u += n_same * rate
            k -= n_same
            u = soft(u - d, tau)
            k -= 1.0
        else:
            if abs(d) <= tau:
                return 0.0
            u = soft(-d, tau)
            k -= 1.0
    return u


@njit(cache=True)
def saga_catch_up_all(w, last, gbar, state, eta, sigma, l1):
    """Apply every coordinate's missed steps (and, l2, fold the scale in: s = 1, cum = 0)."""
    if l1:
        t = state[2]
        for j in range(w.shape[0]):
            w[j] = l1_catch_up(w[j], gbar[j], eta, eta * sigma, t - last[j])
            last[j] = t
        return
    s = state[0]
    cum = state[1]
    for j in range(w.shape[0]):
        w[j] = (w[j] - gbar[j] * (cum - last[j])) * s
        last[j] = 0.0
    state[0] = 1.0
    state[1] = 0.0


@njit(cache=True)
def saga_steps(data, indices, indptr, y, code, eta, sigma, l1, w, last, gbar, table, state,
               order, start, stop):
    """SAGA steps on examples order[start:stop], in place (module docstring).

    l2: w holds v with x = s v, state = [s, cum, t]; l1: w is x, last[k] the step count at
    which coordinate k was last brought up to date. The columns of a row are distinct
    (checked rows), so the loop of the step reads each ḡ_q before it moves ḡ_q."""
    m = indptr.shape[0] - 1
    s = state[0]
    cum = state[1]
    t = state[2]
    tau = eta * sigma
    shrink = 1.0 / (1.0 + eta * sigma)
    for k in range(start, stop):
        j = order[k]
        prefetch_ahead(data, indices, indptr, order, k, stop, True)
        if k + AHEAD < stop:  # the example's label and table entry, random reads too
            prefetch(y, order[k + AHEAD])
            prefetch(table, order[k + AHEAD])
        a = indptr[j]
        b = indptr[j + 1]
        z = 0.0
        if l1:
            for p in range(a, b):  # the missed steps of the row's coordinates
                q = indices[p]
                u = l1_catch_up(w[q], gbar[q], eta, tau, t - last[q])
                w[q] = u
                last[q] = t
                z += data[p] * u
        else:
            for p in range(a, b):  # (last[q] is set by the step below)
                q = indices[p]
                u = w[q] - gbar[q] * (cum - last[q])
                w[q] = u
                z += data[p] * u
            z *= s
        g = loss_deriv(code, z, y[j])  # ℓ'(<w, x_j>)
        d = g - table[j]
        if d != 0.0:  # a_j <- g; ḡ <- ḡ + (g - a_j) x_j / m in the step's loop, below
            table[j] = g
        c = d / m
        if l1:  # w <- S_{ησ}(w - η (d x_j + ḡ)) on the row; ḡ is the old average
            for p in range(a, b):
                q = indices[p]
                gq = gbar[q]
                w[q] = soft(w[q] - eta * (d * data[p] + gq), tau)
                last[q] = t + 1.0
                if d != 0.0:
                    gbar[q] = gq + c * data[p]
        else:  # x <- (x - η d x_j - η ḡ)/(1 + ησ), i.e. v <- v - (η/s)(d x_j + ḡ)
            f = eta / s
            cum += f
            for p in range(a, b):
                q = indices[p]
                gq = gbar[q]
                w[q] -= f * (d * data[p] + gq)
                last[q] = cum
                if d != 0.0:
                    gbar[q] = gq + c * data[p]
            s *= shrink
        t += 1.0
        if not l1 and s < RENORM:
            state[0] = s
            state[1] = cum
            saga_catch_up_all(w, last, gbar, state, eta, sigma, l1)
            s = 1.0
            cum = 0.0
    state[0] = s
    state[1] = cum
    state[2] = t
