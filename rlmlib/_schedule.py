"""Shared pieces of the scheduled solvers of Bordes, Bottou and Gallinari 2009 (SVMSGD2,
SGD-QN in both versions) and of oLBFGS: row kernels that serve dense (compact) and CSR rows,
the diagonal updates, the default ``skip``, the t0 selection procedure, and the common driver
(checks, example order, checkpoints).

Sparse data: a step of SGD on (sigma/2)||w||^2 + loss costs O(n) for the regularization part
(every coordinate shrinks) and O(d) for the loss part (the non-zeros of x). SVMSGD2 applies
the regularization every ``skip`` steps with a ``skip``-times larger gain, which has the same
expectation; with skip = 16 n / d the dense work is one sixteenth of the sparse work.
"""
import math
import time

import numpy as np
from numba import njit

from ._checks import (check_int, check_positive, check_seed, check_test_set, check_X_y,
                      is_compact, n_rows, unsigned_index)
from ._order import ExampleStream, check_order
from ._result import Result
from ._runner import check_checkpoints, make_evaluate, run_checkpointed
from .losses import loss_code, loss_task
from .objective import objective_rows

#: the paper's constant c of skip = c n / d
SKIP_C = 16
#: the t0 grid of the selection procedure: 10^0 ... 10^10
T0_GRID = tuple(10.0 ** k for k in range(11))


# ------------------------------------------------------------------------------ row kernels
@njit(cache=True, inline="always")
def dot(data, indices, a, b, w, dense):
    """<w, x> for the row stored in data[a:b] (dense compact: feature j at a + j)."""
    z = 0.0
    if dense:
        for j in range(b - a):
            z += data[a + j] * w[j]
    else:
        for k in range(a, b):
            z += data[k] * w[indices[k]]
    return z


@njit(cache=True, inline="always")
def axpy(data, indices, a, b, w, c, dense):
    """w <- w + c x (touches the non-zeros of x only)."""
    if dense:
        for j in range(b - a):
            w[j] += c * data[a + j]
    else:
        for k in range(a, b):
            w[indices[k]] += c * data[k]


@njit(cache=True, inline="always")
def axpy_diag(data, indices, a, b, w, c, diag, dense):
    """w <- w + c D x with D = diag(diag) (touches the non-zeros of x only)."""
    if dense:
        for j in range(b - a):
            w[j] += c * diag[j] * data[a + j]
    else:
        for k in range(a, b):
            j = indices[k]
            w[j] += c * diag[j] * data[k]


@njit(cache=True, inline="always")
def scale(w, f):
    """w <- f w (the scheduled regularization step of SVMSGD2, O(n))."""
    for j in range(w.shape[0]):
        w[j] *= f


@njit(cache=True, inline="always")
def shrink_diag(w, c, diag):
    """w <- w - c D w (the scheduled regularization step of SGD-QN, O(n))."""
    for j in range(w.shape[0]):
        w[j] -= c * diag[j] * w[j]


# ------------------------------------------------------------------------- hyperparameters
def default_skip(rows):
    """skip = 16 n / d (n features, d average non-zeros per example), at least 1.

    Dense data: 16. Bottou's programs compute the same quantity (``calibrate``)."""
    nnz = rows.data.shape[0]
    d = nnz / n_rows(rows)
    return max(1, int(SKIP_C * rows.n_features / max(d, 1e-300)))


def check_skip(skip, rows):
    """``skip`` validated (an integer >= 1), or the default 16 n / d for None."""
    if skip is None:
        return default_skip(rows), True
    return check_int("skip", skip, 1), False


def subset(rows, y, idx):
    """The examples ``idx`` of ``rows`` in the same form (compact dense or CSR)."""
    from ._checks import Rows

    if is_compact(rows):
        n = rows.n_features
        data = rows.data.reshape(-1, n)[idx].ravel()
        indptr = np.arange(0, idx.shape[0] * n + 1, n, dtype=np.int64)
        return Rows(data, rows.indices, indptr, n, False), y[idx]
    starts, stops = rows.indptr[idx], rows.indptr[idx + 1]
    lengths = stops - starts
    indptr = np.zeros(idx.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=indptr[1:])
    take = np.concatenate([np.arange(a, b) for a, b in zip(starts, stops)]) if idx.size \
        else np.zeros(0, np.int64)
    return Rows(rows.data[take], rows.indices[take], indptr, rows.n_features,
                rows.sparse), y[idx]


def select_t0(one_pass, rows, y, sigma, code, seed, grid=T0_GRID):
    """The paper's procedure: one pass over a random 10 % of the examples for each t0 in
    ``grid``, keep the t0 whose primal (on that subset) is lowest, i.e. decreased most.

    ``one_pass(rows, y, t0) -> w`` runs the solver's own pass. Returns ``(t0, table)`` with
    ``table`` the list of (t0, primal) tried (NaN for a run that overflowed)."""
    m = n_rows(rows)
    k = max(1, int(math.ceil(m / 10)))
    rng = np.random.default_rng((seed, 10))
    idx = np.sort(rng.choice(m, k, replace=False)).astype(np.int64)
    sub, ys = subset(rows, y, idx)
    table = []
    with np.errstate(over="ignore", invalid="ignore"):
        for t0 in grid:
            w = one_pass(sub, ys, float(t0))
            f = objective_rows(sub, ys, w, sigma, code) if np.isfinite(w).all() else np.nan
            table.append((float(t0), float(f) if np.isfinite(f) else np.nan))
    costs = np.array([c for _, c in table])
    if np.isnan(costs).all():
        raise FloatingPointError(
            "t0 selection: every t0 in the grid overflowed on the 10 % subset; scale the rows")
    return table[int(np.nanargmin(costs))][0], table


# ------------------------------------------------------------------------------- the driver
class Problem:
    """Checked inputs shared by the scheduled solvers (built once per call)."""

    def __init__(self, X, y, sigma, epochs, loss, seed, order, n_checkpoints, X_test,
                 y_test):
        self.code = loss_code(loss)
        self.loss = loss
        self.sigma = check_positive("sigma", sigma)
        self.epochs = check_int("epochs", epochs)
        self.seed = check_seed(seed)
        self.order = check_order(order)
        self.look_ahead = self.order != "cyclic"  # storage order: the hardware streams it
        self.n_checkpoints = check_checkpoints(n_checkpoints)
        self.task = loss_task(loss)
        if self.task != "binary":
            raise ValueError(f"loss must be a classification loss for these solvers, got "
                             f"{loss!r}")
        self.rows, self.y, self.classes = check_X_y(X, y, task="binary", compact_dense=True)
        self.dense = is_compact(self.rows)  # m = 1 dense rows are valid CSR rows too
        self.test = check_test_set(X_test, y_test, self.rows.n_features, self.task,
                                   self.classes)
        self.m = n_rows(self.rows)
        self.n = self.rows.n_features

    def check_t0(self, t0):
        """None (select) or a finite t0 > 0."""
        return None if t0 is None else check_positive("t0", t0)

    def choose_t0(self, t0, one_pass):
        """(t0, selected, info): a checked ``t0`` as given, or, for None, the paper's
        selection (:func:`select_t0`) with ``one_pass(rows, y, t0) -> w``; ``info`` then holds
        the table of primals and the seconds the selection took."""
        t0 = self.check_t0(t0)
        if t0 is not None:
            return t0, False, {}
        secs, (t0, table) = timed(select_t0, one_pass, self.rows, self.y, self.sigma,
                                  self.code, self.seed)
        return t0, True, {"t0_table": table, "t0_seconds": secs}

    def run(self, name, steps, get_w, params, info=None, on_checkpoint=None):
        """Run ``steps(idx, start, stop, t)`` over epochs * m steps in the chosen order,
        with checkpoints; return the Result."""
        rows, m = self.rows, self.m
        stream = ExampleStream(m, self.order, self.seed)
        done = [0]

        def advance(t_begin, t_end):
            t = t_begin
            for idx, start, stop in stream.segments(t_end - t_begin):
                steps(idx, start, stop, t)
                t += stop - start
            done[0] = t_end
            if not np.isfinite(get_w()).all():
                diverged(t_end)

        def diverged(t):
            raise FloatingPointError(
                f"{name} diverged: the weights or the objective overflowed by step {t} "
                f"(epoch {t / m:.3g}) with sigma={self.sigma}, params={params}: the first "
                f"steps are too long for this data; scale the rows or pass a larger t0")

        evaluate_w = make_evaluate(rows, self.y, self.sigma, self.code, 2.0, self.test,
                                   self.task, get_w)

        def evaluate():
            obj, tm = evaluate_w()
            if not np.isfinite(obj):
                diverged(done[0])
            if on_checkpoint is not None:
                on_checkpoint()
            return obj, tm

        trace = run_checkpointed(advance, self.epochs * m, m, evaluate, self.n_checkpoints,
                                 False, desc=name, test_metric_name="accuracy")
        return Result(w=get_w().copy(), solver=name, params=params, trace=trace,
                      classes=self.classes, info=info or {})

    def unsigned(self):
        """(indices, indptr) as unsigned views for the kernels."""
        return unsigned_index(self.rows)


def storage_pass(steps, rows, y):
    """Run ``steps(rows, y, indices, indptr, order, start, stop, t_first, look_ahead)`` once
    over ``rows`` in storage order from t = 0 (the one pass of the t0 selection)."""
    m = rows.indptr.shape[0] - 1
    steps(rows, y, rows.indices.view(np.uint32), rows.indptr.view(np.uint64),
          np.arange(m, dtype=np.uint64), 0, m, 0, False)


def timed(f, *args):
    """(seconds, f(*args))."""
    t = time.perf_counter()
    out = f(*args)
    return time.perf_counter() - t, out
