"""The loop and the driver shared by the l1 online methods (fiol, comid, isgd, sgd_l1).

Each method contributes its step on one row (``fiol.step_row``, ``comid.comid_row``,
``isgd.isgd_row``, ``sgd_l1.sgd_l1_row``); the loop walks the example order, settles the
row's coordinates with the lazy cumulative shrink (``_l1.settle``: U = sigma * sum of the
past eta_t, and per coordinate the U of its last settlement), takes the step, and records
that the row's coordinates have received the shrink of this step. So a step costs the row's
non-zeros, never n. The reported weights settle every coordinate (on a copy).
"""
import math

import numpy as np
from numba import njit

from ..core.checks import (check_choice, check_int, check_interval, check_positive,
                           check_seed, check_sigma, check_steps, sigma_keyword)
from ..core.rows import (check_scale, check_test_set, check_X_y, row_scale, n_rows,
                         unsigned_index)
from .l1 import settle, soft
from .limits import warn_step
from ..core.order import ExampleStream, check_order
from ..core.prefetch import prefetch_ahead
from ..core.result import Result
from ..core.runner import check_checkpoints, holdout_metric, run_checkpointed
from .comid import comid_row
from .fiol import METHODS, pivot_state, step_row
from .isgd import isgd_row
from ..core.losses import LOSSES, NAMES, loss_code, loss_deriv, loss_task, loss_values
from ..core.objective import decision_function_rows
from .sgd_l1 import sgd_l1_row

ALGOS = {"fiol": 0, "comid": 1, "isgd": 2, "sgd_l1": 3}
SCHEDULES = {"constant": 0, "invsqrt": 1}


@njit(cache=True)
def eta_at(sched, eta0, t):
    """eta_t for step t = 0, 1, ...: eta0 (constant) or eta0 / sqrt(t + 1) (invsqrt)."""
    if sched == 0:
        return eta0
    return eta0 / math.sqrt(t + 1.0)


@njit(cache=True)
def l1_steps(algo, data, indices, indptr, y, w, last, state, order, start, stop, t_first,
             eta0, sched, sigma, code, method, val, sw, rng):
    """Steps of method ``algo`` on examples order[start:stop]; state[0] holds U."""
    U = state[0]
    t = t_first
    for k in range(start, stop):
        i = order[k]
        prefetch_ahead(data, indices, indptr, order, k, stop, True)
        a = indptr[i]
        b = indptr[i + 1]
        eta = eta_at(sched, eta0, t)
        settle(w, indices, a, b, last, U)  # the shrinks of the steps that missed the row
        if algo == 0:
            step_row(w, data, indices, a, b, y[i], eta, sigma, code, method, val, sw, rng)
        elif algo == 1:
            comid_row(w, data, indices, a, b, y[i], eta, sigma, code)
        elif algo == 2:
            isgd_row(w, data, indices, a, b, y[i], eta, sigma, code)
        else:
            sgd_l1_row(w, data, indices, a, b, y[i], eta, sigma, code)
        U += eta * sigma  # this step's shrink, already applied to the row's coordinates
        for p in range(a, b):
            last[indices[p]] = U
        t += 1
    state[0] = U


@njit(cache=True)
def settled(w, last, U):
    """A copy of w with every coordinate's missed shrinks applied."""
    out = np.empty_like(w)
    for j in range(w.shape[0]):
        out[j] = soft(w[j], U - last[j])
    return out


def _check_scale(algo, rows, y, code, sigma, eta_sum):
    """The data-scale bounds of the l1 methods (the shared ``_checks.check_scale``), with a
    bound W on ||w_t|| over the run from w_0 = 0, R = max ||x_i||, E = sum of the eta_t:

    - fiol: w+ = prox_{eta F_t}(w), F_t = loss_t + sigma ||.||_1, and a prox moves 0 by at
      most eta times the smallest subgradient of F_t at 0, |l'(0; y)| ||x|| (prox is
      non-expansive): W = E R G0 with G0 = max_i |l'(0; y_i)|.
    - isgd: the same for its loss step, plus its l1 subgradient step eta sigma sqrt(n):
      W = E (R G0 + sigma sqrt(n)).
    - comid, sgd_l1 for losses with |l'| <= 1: W = E (R + sigma sqrt(n)) (sgd_l1) or E R.
      For the other losses the explicit methods have no a-priori bound (large rates diverge);
      their overflow is caught by the divergence check instead.
    """
    stats = row_scale(rows)
    R = stats[0]
    if not math.isfinite(R):
        return check_scale(rows, y, code, 1.0, "1", algo, stats=stats)  # raises its clear message
    n = rows.n_features
    name = NAMES[code]
    if algo in ("fiol", "isgd"):
        ys = np.unique(y) if LOSSES[name]["task"] == "binary" else np.array([0.0, 1.0])
        g0 = max(abs(loss_deriv(code, 0.0, float(v))) for v in ys)
        if LOSSES[name]["task"] == "regression" and code == loss_code("squared"):
            g0 = float(np.max(np.abs(y))) if y.size else 0.0
        extra = sigma * math.sqrt(n) if algo == "isgd" else 0.0
        W = eta_sum * (R * g0 + extra)
        why = "sum(eta_t) (max||x|| |l'(0)|" + (" + sigma sqrt(n))" if extra else ")")
    elif math.isfinite(LOSSES[name]["lipschitz"]):
        extra = sigma * math.sqrt(n) if algo == "sgd_l1" else 0.0
        W = eta_sum * (R * LOSSES[name]["lipschitz"] + extra)
        why = "sum(eta_t) (max||x||" + (" + sigma sqrt(n))" if extra else ")")
    else:
        return R
    return check_scale(rows, y, code, W, why, algo, stats=stats)


def l1_sigma(sigma):
    """sigma = 0 (no l1 term: implicit SGD, plain SGD) or the shared range of every solver's
    sigma (``_checks.check_sigma``: a normal double up to 2^960)."""
    x = check_interval("sigma", sigma, 0.0, math.inf, True, False)
    return x if x == 0.0 else check_sigma(sigma)


def l1_objective_rows(rows, y, w, sigma, code):
    """sigma ||w||_1 + mean loss on checked rows."""
    z = decision_function_rows(rows, w) if w.any() else np.zeros(y.shape[0])
    return sigma * float(np.abs(w).sum()) + float(np.mean(loss_values(code, z, y,
                                                                      np.empty_like(z))))


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
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (rows.n_features,):
        raise ValueError(f"w must have shape ({rows.n_features},); got {w.shape}")
    return l1_objective_rows(rows, yf, w, sigma, code)


@sigma_keyword
def run_l1(algo, X, y, *, sigma, eta, epochs, loss, method="partition", schedule="constant",
           seed=0, order="reshuffle", n_checkpoints=None, X_test=None, y_test=None,
           progress=False):
    """Checks, the example stream, the lazy shrink and the trace for one of ALGOS."""
    code = loss_code(loss)
    sigma = l1_sigma(sigma)
    eta = check_positive("eta", eta)
    epochs = check_int("epochs", epochs)
    mc = METHODS[check_choice("method", method, tuple(METHODS))]
    sched = SCHEDULES[check_choice("schedule", schedule, tuple(SCHEDULES))]
    seed = check_seed(seed)
    order = check_order(order)
    n_checkpoints = check_checkpoints(n_checkpoints)
    task = loss_task(loss)
    rows, yf, classes = check_X_y(X, y, task=task)  # CSR (dense rows as a CSR view)
    test = check_test_set(X_test, y_test, rows.n_features, task, classes)
    m = n_rows(rows)
    total = check_steps("epochs", epochs * m, "epochs * m")
    eta_sum = eta * total if sched == 0 else eta * 2.0 * math.sqrt(total)
    R = _check_scale(algo, rows, yf, code, sigma, eta_sum)
    if algo in ("sgd_l1", "comid"):  # explicit loss steps (fiol, isgd: implicit, any eta)
        warn_step(algo, "eta", eta, R, code, stacklevel=5)
    n = rows.n_features
    w = np.zeros(n)
    last = np.zeros(n)
    state = np.zeros(1)  # U = sigma * sum of the past eta_t
    indices, indptr = unsigned_index(rows)
    width = int(np.max(np.diff(rows.indptr))) if m else 0
    scratch = (np.empty(2 * width + 1), np.empty(2 * width + 1))
    rng = pivot_state(seed)
    stream = ExampleStream(m, order, seed)
    a_code = ALGOS[algo]

    def advance(t_begin, t_end):
        t = t_begin
        for idx, start, stop in stream.segments(t_end - t_begin):
            l1_steps(a_code, rows.data, indices, indptr, yf, w, last, state, idx, start,
                     stop, t, eta, sched, sigma, code, mc, *scratch, rng)
            t += stop - start
        if not np.isfinite(w).all():
            raise FloatingPointError(
                f"{algo} diverged: the weights overflowed by step {t_end} with eta={eta}, "
                f"schedule={schedule!r}; use a smaller eta")

    def get_w():
        return settled(w, last, state[0])

    def evaluate():
        wf = get_w()
        return l1_objective_rows(rows, yf, wf, sigma, code), holdout_metric(test, wf, task)

    trace = run_checkpointed(advance, epochs * m, m, evaluate, n_checkpoints, progress,
                             desc=algo, test_metric_name="mse" if task == "regression"
                             else "accuracy")
    params = {"sigma": sigma, "eta": eta, "epochs": epochs, "loss": loss,
              "schedule": schedule, "seed": seed, "order": order}
    if algo == "fiol":
        params["method"] = method
    return Result(w=get_w(), solver=algo, params=params, trace=trace, classes=classes)
