"""Implicit SGD (Kulis and Bartlett 2010; Toulis and Airoldi 2017) for sigma ||w||_1 + loss:
the loss is kept, the regularizer linearized at v by its subgradient sigma sign(v):

    w+ = argmin_w  l(<w, x>) + sigma <sign(v), w> + ||w - v||^2 / (2 eta)
       = u - eta s x,   u = v - eta sigma sign(v),   s in dl(<u, x> - eta ||x||^2 s).

The scalar s is the root of s in dl(a - c s) with a = <u, x>, c = eta ||x||^2: the last-piece
equation of the fully implicit step (``_l1.piece_root``), here with one piece only. It is the
fully implicit step with sigma = 0 taken from u. On sparse rows the l1 subgradient steps of the
untouched coordinates are applied lazily (``_l1.settle``, clipped at zero).
"""
from numba import njit

from ..core.checks import sigma_keyword

from .l1 import enter, leave, piece_root, solver_doc
from .l1run import run_l1
from ..core.losses import loss_deriv


@njit(cache=True)
def isgd_row(w, data, indices, start, stop, y, eta, sigma, code):
    """One implicit SGD step on a row (w settled on the row's coordinates), in place;
    returns s."""
    a = 0.0
    c = 0.0
    for p in range(start, stop):
        j = indices[p]
        wj = w[j]
        if wj > 0.0:  # u = v - eta sigma sign(v)
            wj -= eta * sigma
        elif wj < 0.0:
            wj += eta * sigma
        w[j] = wj
        a += data[p] * wj
        c += data[p] * data[p]
    c *= eta
    s = piece_root(code, a, c, y) if c > 0.0 else loss_deriv(code, a, y)
    for p in range(start, stop):
        w[indices[p]] -= eta * s * data[p]
    return s


@sigma_keyword
def isgd(X, y, *, sigma, eta=None, epochs, loss, schedule=None, seed=0, order="reshuffle",
         n_checkpoints=None, X_test=None, y_test=None, progress=False):
    return run_l1("isgd", isgd_steps, X, y, sigma=sigma, eta=eta, epochs=epochs, loss=loss,
                  schedule=schedule, seed=seed, order=order, n_checkpoints=n_checkpoints,
                  X_test=X_test, y_test=y_test, progress=progress, zeros_absent=True,
                  hint=_hint)


def _hint(p, eta):
    """Why an isgd run ends above F(0): its loss step is implicit (stable for every eta),
    its l1 step is not clipped at zero."""
    return (f"eta={eta:.6g}: isgd's l1 step v - eta sigma sign(v) is not clipped at zero, "
            f"so a coordinate whose optimum is 0 swings around it by up to eta*sigma = "
            f"{eta * p.sigma:.3g} (sigma ||w||_1 up to {p.sigma * eta * p.sigma * p.n:.3g})"
            f"; use a smaller eta or schedule='invsqrt'")


isgd.__doc__ = solver_doc(
    "isgd", "Implicit SGD on sigma ||w||_1 + mean loss (implicit in the loss only).")


@njit(cache=True)
def isgd_steps(data, indices, indptr, y, w, last, state, order, start, stop, t_first, eta0,
               sched, sigma, code, look_ahead):
    """Implicit SGD steps on examples order[start:stop] from step t_first; state[0]
    is U (the loop of every l1 method, ``l1.py``)."""
    U = state[0]
    for k in range(start, stop):
        i, a, b, eta = enter(data, indices, indptr, order, k, stop, w, last, U,
                             t_first + k - start, eta0, sched, look_ahead)
        isgd_row(w, data, indices, a, b, y[i], eta, sigma, code)
        U = leave(indices, a, b, last, U, eta * sigma)
    state[0] = U
