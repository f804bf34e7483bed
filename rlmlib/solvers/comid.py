"""Composite objective mirror descent (Duchi, Shalev-Shwartz, Singer and Tewari 2010) with the
l1 regularizer and the Euclidean distance: the loss is linearized, the regularizer kept:

    w+ = argmin_w  l'(<v, x>) <w, x> + sigma ||w||_1 + ||w - v||^2 / (2 eta)
       = S_{eta sigma}(v - eta l'(<v, x>) x).

The coordinates the row does not touch only shrink; the solver shrinks them lazily
(``_l1.settle``), so a sparse step costs O(nnz(x)).
"""
from numba import njit

from ..core.checks import sigma_keyword

from .l1 import enter, leave, soft, solver_doc
from .l1run import run_l1
from ..core.losses import loss_deriv
from ..core.objective import row_dot


@njit(cache=True)
def comid_row(w, data, indices, start, stop, y, eta, sigma, code):
    """One COMID step on a row (w settled on the row's coordinates), in place."""
    d = loss_deriv(code, row_dot(data, indices, start, stop, w), y)  # l'(<v, x>)
    thr = eta * sigma
    for p in range(start, stop):
        j = indices[p]
        w[j] = soft(w[j] - eta * d * data[p], thr)


@sigma_keyword
def comid(X, y, *, sigma, eta=None, epochs, loss, schedule=None, seed=0, order="reshuffle",
          n_checkpoints=None, X_test=None, y_test=None, progress=False):
    return run_l1("comid", comid_steps, X, y, sigma=sigma, eta=eta, epochs=epochs, loss=loss,
                  schedule=schedule, seed=seed, order=order, n_checkpoints=n_checkpoints,
                  X_test=X_test, y_test=y_test, progress=progress)


comid.__doc__ = solver_doc(
    "comid", "COMID (proximal SGD) on sigma ||w||_1 + mean loss.",
    " (the step is the linearized one)")


@njit(cache=True)
def comid_steps(data, indices, indptr, y, w, last, state, order, start, stop, t_first, eta0,
                sched, sigma, code, look_ahead):
    """COMID steps on examples order[start:stop] from step t_first; state[0]
    is U (the loop of every l1 method, ``l1.py``)."""
    U = state[0]
    for k in range(start, stop):
        i, a, b, eta = enter(data, indices, indptr, order, k, stop, w, last, U,
                             t_first + k - start, eta0, sched, look_ahead)
        comid_row(w, data, indices, a, b, y[i], eta, sigma, code)
        U = leave(indices, a, b, last, U, eta * sigma)
    state[0] = U
