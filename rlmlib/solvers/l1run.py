"""The driver shared by the l1 online methods (fiol, comid, isgd, sgd_l1): their common
arguments, checks and data-scale bound, on the one driver ``core.problem.Problem``.

Each method file holds its step on one row and its loop kernel (``<method>_steps``, built
from the inline pieces of ``l1.py``: the lazy cumulative shrink, so a step costs the row's
non-zeros, never n), and calls :func:`run_l1` with that kernel. This module imports none of
them (no import circle); the reported weights settle every coordinate (on a copy).
"""
import math

import numpy as np

from ..core.checks import check_choice, check_interval, check_positive, sigma_keyword
from ..core.losses import LOSSES, NAMES, loss_code, loss_deriv, loss_task
from ..core.problem import Problem, l1_objective_rows
from ..core.rows import Rows, check_weights, check_X_y
from .l1 import settled
from .limits import smoothness, warn_step

SCHEDULES = {"constant": 0, "invsqrt": 1, "slow_invsqrt": -1}
#: the default when eta is not given: eta_t = DEFAULT_ETA / L / sqrt(1 + t / (DEFAULT_DECAY
#: m)) ('slow_invsqrt': the rate of the first DEFAULT_DECAY epochs, then eta / sqrt(epochs)),
#: L = smoothness * max||x||^2 + sigma (1 for a kinked loss), half the explicit steps'
#: stability limit 2/L (measured in l1.solver_doc, "Accuracy")
DEFAULT_ETA = 1.0
DEFAULT_DECAY = 10
#: stack levels from warn_step to the caller of sgd_l1/comid
WARN_LEVEL = 5


def _check_scale(p, eta_sum):
    """The data-scale bounds of the l1 methods (``Problem.check_scale``), with a bound W on
    ||w_t|| over the run from w_0 = 0, R = max ||x_i||, E = sum of the eta_t:

    - fiol: w+ = prox_{eta F_t}(w), F_t = loss_t + sigma ||.||_1, and a prox moves 0 by at
      most eta times the smallest subgradient of F_t at 0, |l'(0; y)| ||x|| (prox is
      non-expansive): W = E R G0 with G0 = max_i |l'(0; y_i)|.
    - isgd: the same for its loss step, plus its l1 subgradient step eta sigma sqrt(n):
      W = E (R G0 + sigma sqrt(n)).
    - comid, sgd_l1 for losses with |l'| <= 1: W = E (R + sigma sqrt(n)) (sgd_l1) or E R.
      For the other losses the explicit methods have no a-priori bound (large rates diverge);
      their overflow is caught by the divergence check instead (W = None).
    """
    R = p.R
    if not math.isfinite(R):
        return p.check_scale(None, "")  # raises its clear message
    algo, name, y = p.name, NAMES[p.code], p.y
    if algo in ("fiol", "isgd"):
        ys = np.unique(y) if LOSSES[name]["task"] == "binary" else np.array([0.0, 1.0])
        g0 = max(abs(loss_deriv(p.code, 0.0, float(v))) for v in ys)
        if LOSSES[name]["task"] == "regression" and p.code == loss_code("squared"):
            g0 = float(np.max(np.abs(y))) if y.size else 0.0
        extra = p.sigma * math.sqrt(p.n) if algo == "isgd" else 0.0
        W = eta_sum * (R * g0 + extra)
        why = "sum(eta_t) (max||x|| |l'(0)|" + (" + sigma sqrt(n))" if extra else ")")
    elif math.isfinite(LOSSES[name]["lipschitz"]):
        extra = p.sigma * math.sqrt(p.n) if algo == "sgd_l1" else 0.0
        W = eta_sum * (R * LOSSES[name]["lipschitz"] + extra)
        why = "sum(eta_t) (max||x||" + (" + sigma sqrt(n))" if extra else ")")
    else:
        return p.check_scale(None, "")
    return p.check_scale(W, why)


def without_stored_zeros(rows):
    """``rows`` with every stored zero dropped (the rows themselves when there is none, so
    their results stay the same to the bit): a stored zero then means exactly what an absent
    entry means. For isgd and sgd_l1, whose kernels take the l1 subgradient step
    w_j - eta sigma sign(w_j) on a row's stored coordinates (which can cross zero) and the
    lazy soft-thresholding on the others: without this a dense X (every entry stored) and
    its CSR form gave different weights. One O(nnz) pass."""
    if rows.stats is not None and rows.stats.zeros == 0:
        return rows  # the validation pass found none: no pass here
    keep = rows.data != 0.0
    if keep.all():
        return rows
    kept = np.zeros(keep.shape[0] + 1, np.int64)   # kept[k]: entries kept before k
    np.cumsum(keep, out=kept[1:])
    indptr = kept[rows.indptr]
    out = Rows(rows.data[keep], rows.indices[keep], indptr, rows.n_features, True)  # CSR now
    out.stats = None if rows.stats is None else rows.stats._replace(zeros=0)  # same norms
    return out


def l1_objective(X, y, w, *, sigma, loss):
    """F(w) = sigma ||w||_1 + (1/m) sum_i loss(<w, x_i>, y_i) (labels mapped to -1/+1 as the
    solvers do).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
    w : array-like, shape (n,)
    sigma : float >= 0
    loss : str

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For bad arguments.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rlmlib.l1_objective(np.eye(2), [1.0, 2.0], [1.0, 0.0], sigma=0.5, loss="squared")
    1.5
    """
    code = loss_code(loss)
    sigma = check_interval("sigma", sigma, 0.0, math.inf, True, False)
    rows, yf, _ = check_X_y(X, y, task=loss_task(loss), compact_dense=True)
    w = check_weights(w, rows.n_features)  # finite, real, of length n
    return l1_objective_rows(rows, yf, w, sigma, code)


@sigma_keyword
def run_l1(name, kernel, X, y, *, sigma, eta=None, epochs, loss, schedule=None, seed=0,
           order="reshuffle", n_checkpoints=None, X_test=None, y_test=None, progress=False,
           own=None, own_params=None, zeros_absent=False, hint=None):
    """Run the l1 method ``name`` whose loop kernel is ``kernel(data, indices, indptr, y, w,
    last, state, order, start, stop, t_first, eta0, sched, sigma, code, look_ahead,
    *own(p))``: ``own(problem)`` returns the method's further kernel arguments (after the
    checks), ``own_params`` its hyperparameters for ``res.params``; ``zeros_absent``: run on
    the rows without their stored zeros (:func:`without_stored_zeros`); ``hint(p, eta)``:
    the solver's own likely cause when the run ends above F(0) (default: steps too long for
    the rows). The checks (sigma >= 0, eta, schedule, then everything ``Problem``
    checks), the scale bound and the run are shared. ``eta`` None: DEFAULT_ETA / L with ``schedule`` (None: 'slow_invsqrt');
    ``schedule`` None with a given eta: 'constant'; ``p.eta`` holds the eta used."""
    if eta is not None:
        eta = check_positive("eta", eta)
    schedule = check_choice("schedule", "constant" if schedule is None and eta is not None
                            else "slow_invsqrt" if schedule is None else schedule,
                            tuple(SCHEDULES))
    p = Problem(name, X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed, order=order,
                n_checkpoints=n_checkpoints, X_test=X_test, y_test=y_test, progress=progress,
                sigma_zero=True, penalty="l1", compact_dense=False)
    if zeros_absent:
        p.rows = without_stored_zeros(p.rows)
    total = p.total
    default = eta is None
    if default:
        L = smoothness(p.code, p.R, p.sigma)
        eta = DEFAULT_ETA / L if L > 0 else 1.0  # L = 0: every row zero, w stays 0
    # the kernels' sched: 0 constant, tau > 0: eta_t = eta / sqrt(1 + t / tau)
    tau = float(SCHEDULES[schedule] if schedule != "slow_invsqrt" else DEFAULT_DECAY * p.m)
    p.eta = eta
    _check_scale(p, eta * total if tau == 0 else eta * 2.0 * math.sqrt(total) if tau == 1
                 else eta * min(total, 2.0 * math.sqrt(tau * (tau + total))))
    if name in ("sgd_l1", "comid"):  # explicit loss steps (fiol, isgd: implicit, any eta)
        warn_step(name, "eta", eta, p.R, p.code, stacklevel=WARN_LEVEL)
    w = np.zeros(p.n)
    last = np.zeros(p.n)
    state = np.zeros(1)  # U = sigma * sum of the past eta_t
    args = own(p) if own is not None else ()

    def steps(rows, yy, indices, indptr, idx, start, stop, t, look_ahead):
        kernel(rows.data, indices, indptr, yy, w, last, state, idx, start, stop, t, eta, tau,
               p.sigma, p.code, look_ahead, *args)

    params = {"sigma": p.sigma, "eta": eta, "epochs": p.epochs, "loss": loss,
              "schedule": schedule, "default": default, "seed": p.seed, "order": p.order,
              **(own_params or {})}
    why = (hint(p, eta) if hint is not None else
           f"eta={eta:.6g}: the steps are too long for these rows (max||x|| = {p.R:.3g}); "
           f"use a smaller eta")
    return p.run(steps, lambda: settled(w, last, state[0]), params, state=lambda: (w,),
                 hint=why)
