"""Stochastic subgradient descent on sigma ||w||_1 + loss: both terms linearized,

    w+ = v - eta (l'(<v, x>) x + sigma sign(v)).

On dense rows this is the exact subgradient step on every coordinate. On sparse rows the
regularizer's steps of the coordinates a row does not touch are applied lazily
(``_l1.settle``): exact while the coordinate keeps its sign, clipped at zero where plain
subgradient steps would cross it and oscillate within one step length of zero.
"""
from numba import njit

from ..core.checks import sigma_keyword

from .l1 import enter, leave, solver_doc
from .l1run import run_l1
from ..core.losses import loss_deriv
from ..core.objective import row_dot


@njit(cache=True)
def sgd_l1_row(w, data, indices, start, stop, y, eta, sigma, code):
    """One l1-subgradient SGD step on a row (w settled on its coordinates), in place."""
    d = loss_deriv(code, row_dot(data, indices, start, stop, w), y)
    for p in range(start, stop):
        j = indices[p]
        wj = w[j]
        g = d * data[p]
        if wj > 0.0:
            g += sigma
        elif wj < 0.0:
            g -= sigma
        w[j] = wj - eta * g


@sigma_keyword
def sgd_l1(X, y, *, sigma, eta, epochs, loss, schedule="constant", seed=0, order="reshuffle",
           n_checkpoints=None, X_test=None, y_test=None, progress=False):
    return run_l1("sgd_l1", sgd_l1_steps, X, y, sigma=sigma, eta=eta, epochs=epochs, loss=loss,
                  schedule=schedule, seed=seed, order=order, n_checkpoints=n_checkpoints,
                  X_test=X_test, y_test=y_test, progress=progress, zeros_absent=True)


sgd_l1.__doc__ = solver_doc(
    "sgd_l1", "Subgradient SGD on sigma ||w||_1 + mean loss.")


@njit(cache=True)
def sgd_l1_steps(data, indices, indptr, y, w, last, state, order, start, stop, t_first, eta0,
                 sched, sigma, code, look_ahead):
    """l1-subgradient SGD steps on examples order[start:stop] from step t_first; state[0]
    is U (the loop of every l1 method, ``l1.py``)."""
    U = state[0]
    for k in range(start, stop):
        i, a, b, eta = enter(data, indices, indptr, order, k, stop, w, last, U,
                             t_first + k - start, eta0, sched, look_ahead)
        sgd_l1_row(w, data, indices, a, b, y[i], eta, sigma, code)
        U = leave(indices, a, b, last, U, eta * sigma)
    state[0] = U
