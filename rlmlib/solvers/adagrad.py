"""Diagonal AdaGrad (Duchi, Hazan and Singer 2011) with the l2 regularizer kept in its
composite (proximal) step.

Minimizes  F(w) = (sigma/2) ||w||^2 + (1/m) sum_i loss(<w, x_i>, y_i).  At step t the
example i's loss gradient g = loss'(<w, x_i>, y_i) x_i is linearized, the regularizer kept,
and the distance is the diagonal metric H_t = diag(delta + sqrt(G_t)):

    G_j <- G_j + g_j^2,            H_j = delta + sqrt(G_j),
    w+ = argmin_u  eta <g, u> + eta (sigma/2) ||u||^2 + (1/2) ||u - w||^2_{H}
    w_j <- (H_j w_j - eta g_j) / (H_j + eta sigma)          for every coordinate j.

Lazy steps. A coordinate the row does not touch has g_j = 0, so G_j, hence H_j, does not
change, and its step is the multiplication by the same factor rho_j = H_j / (H_j + eta sigma)
at every step until a row touches it again. The kernel records the step ``last[j]`` at which
coordinate j was last brought up to date and, when a row touches it, multiplies it by
rho_j^c for the c steps it missed: the dense algorithm exactly (to rounding: one power
instead of c products), at O(nnz(x_i)) per step. An entry stored as zero is a g_j = 0 too:
dense and sparse rows give the same iterates.
"""
import math

import numpy as np
from numba import njit

from ..core.checks import check_positive, sigma_keyword
from ..core.losses import loss_deriv
from ..core.order import ORDERS
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem

#: defaults: eta = 0.1 (the largest move of a coordinate per step, in units of w), and
#: delta = 1e-8 (H_j = delta + sqrt(G_j) stays positive before the first gradient)
DEFAULT_STEP = 0.1
DEFAULT_DELTA = 1e-8


@njit(cache=True)
def adagrad_settle(w, G, last, j, t, eta, sigma, delta):
    """Bring coordinate j up to step t: the c = t - last[j] steps it missed each multiplied
    it by rho_j = H_j / (H_j + eta sigma) (its G_j, hence H_j, did not change)."""
    c = t - last[j]
    if c > 0:
        h = delta + math.sqrt(G[j])
        # rho^c as exp(-c log1p(eta sigma / h)): a rounded rho raised to a huge c would
        # carry a relative error of c * 2^-53
        w[j] *= math.exp(-c * math.log1p(eta * sigma / h))
        last[j] = t


@njit(cache=True)
def adagrad_steps(data, indices, indptr, y, w, G, last, order, start, stop, t_first, eta,
                  sigma, delta, code, look_ahead):
    """AdaGrad steps on examples order[start:stop] from global step t_first; w, G, last
    are updated in place (coordinates outside the rows seen stay lazily behind)."""
    es = eta * sigma
    t = t_first
    for k in range(start, stop):
        i = order[k]
        if look_ahead:
            prefetch_ahead(data, indices, indptr, order, k, stop, True)
        a = indptr[i]
        b = indptr[i + 1]
        z = 0.0
        for p in range(a, b):   # settle the row's coordinates; z = <w, x_i>
            j = indices[p]
            c = t - last[j]     # adagrad_settle, written out (no call per coordinate)
            if c > 0:
                h = delta + math.sqrt(G[j])
                w[j] *= math.exp(-c * math.log1p(es / h))
                last[j] = t
            z += data[p] * w[j]
        d = loss_deriv(code, z, y[i])   # loss'(z; y_i); the gradient is g = d x_i
        for p in range(a, b):
            j = indices[p]
            g = d * data[p]
            G[j] += g * g                       # G_j <- G_j + g_j^2
            h = delta + math.sqrt(G[j])         # H_j = delta + sqrt(G_j)
            w[j] = (h * w[j] - eta * g) / (h + es)   # the composite step
            last[j] = t + 1
        t += 1


@njit(cache=True)
def adagrad_settle_all(w, G, last, t, eta, sigma, delta):
    """Bring every coordinate up to step t (O(n))."""
    for j in range(w.shape[0]):
        adagrad_settle(w, G, last, j, t, eta, sigma, delta)


@sigma_keyword
def adagrad(X, y, *, sigma, epochs=10, loss="logistic", step=DEFAULT_STEP,
            delta=DEFAULT_DELTA, seed=0, order="reshuffle", n_checkpoints=None,
            X_test=None, y_test=None, progress=False):
    """Diagonal AdaGrad on (σ/2)‖w‖² + mean loss, the regularizer in its composite step.

    Step t on example i: g = ℓ'(⟨w, x_i⟩; y_i) x_i, G ← G + g², H = δ + √G (per
    coordinate), w_j ← (H_j w_j − η g_j)/(H_j + ησ). A coordinate the row does not touch is
    multiplied by H_j/(H_j + ησ); these factors are applied lazily when a row next touches
    it (one power), so a step costs O(nnz(x_i)) and equals the dense algorithm to rounding.

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
    step : float > 0, default 0.1
        η: the first move of a touched coordinate is about η (units of w).
    delta : float > 0, default 1e-8
        δ in H = δ + √G.
    seed, order, n_checkpoints, X_test, y_test, progress
        As in every solver (DESIGN.md).

    Returns
    -------
    Result
        ``res.w``; ``res.info['squares']`` the accumulated squared gradients Γ (per coordinate).

    Raises
    ------
    ValueError
        For a bad argument (named in the message), before any step is taken.
    FloatingPointError
        When the weights overflow.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 4)); y = np.sign(X @ [1.0, -1.0, 0.5, 0.0])
    >>> res = rlmlib.adagrad(X, y, sigma=0.01, epochs=50)
    >>> ref = rlmlib.lbfgs(X, y, sigma=0.01, loss="logistic")
    >>> bool(res.objective - ref.objective < 1e-2 * ref.objective)
    True
    """
    p = Problem("adagrad", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed,
                order=order, orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test,
                y_test=y_test, progress=progress, compact_dense=False)
    eta = check_positive("step", step)
    delta = check_positive("delta", delta)
    # |w_j| moves by at most eta |g_j| / sqrt(G_j) <= eta per step that touches j, and the
    # regularizer's factor only shrinks it: ||w_t|| <= eta T sqrt(n)
    p.check_scale(eta * p.total * math.sqrt(p.n), "step T sqrt(n)")
    w = np.zeros(p.n)
    G = np.zeros(p.n)
    last = np.zeros(p.n, np.int64)
    clock = [0]

    def steps(rows, yy, indices, indptr, idx, start, stop, t, look_ahead):
        adagrad_steps(rows.data, indices, indptr, yy, w, G, last, idx, start, stop, t, eta,
                      p.sigma, delta, p.code, look_ahead)
        clock[0] = t + stop - start

    def get_w():
        adagrad_settle_all(w, G, last, clock[0], eta, p.sigma, delta)
        return w.copy()

    params = {"sigma": p.sigma, "epochs": p.epochs, "loss": loss, "step": eta,
              "delta": delta, "seed": p.seed, "order": p.order}
    return p.run(steps, get_w, params, info={"squares": G}, state=lambda: (w,),
                 hint=f"step={eta:.3g} is too long for these rows: pass a smaller step")
