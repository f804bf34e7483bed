"""The step offset t0 and the skip of the scheduled solvers of Bordes, Bottou and Gallinari
2009 (SVMSGD2, SGD-QN in both versions) and of oLBFGS: the default ``skip``, the paper's t0
selection procedure, and one storage-order pass for it.

Sparse data: a step of SGD on (sigma/2)||w||^2 + loss costs O(n) for the regularization part
(every coordinate shrinks) and O(d) for the loss part (the non-zeros of x). SVMSGD2 applies
the regularization every ``skip`` steps with a ``skip``-times larger gain, which has the same
expectation; with skip = 16 n / d the dense work is one sixteenth of the sparse work.
"""
import math
import time

import numpy as np

from ..core.checks import check_int, check_positive
from ..core.rows import is_compact, n_rows
from ..core.objective import objective_rows

#: the paper's constant c of skip = c n / d
SKIP_C = 16
#: the t0 grid of the selection procedure: 10^0 ... 10^10
T0_GRID = tuple(10.0 ** k for k in range(11))



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
    from ..core.rows import Rows

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


def storage_pass(steps, rows, y):
    """Run ``steps(rows, y, indices, indptr, order, start, stop, t_first, look_ahead)`` once
    over ``rows`` in storage order from t = 0 (the one pass of the t0 selection)."""
    m = rows.indptr.shape[0] - 1
    steps(rows, y, rows.indices.view(np.uint32), rows.indptr.view(np.uint64),
          np.arange(m, dtype=np.uint64), 0, m, 0, False)




def choose_t0(p, t0, one_pass):
    """(t0, selected, info) for the checked problem ``p``: a checked ``t0`` as given, or, for
    None, the paper's selection (:func:`select_t0`) with ``one_pass(rows, y, t0) -> w``;
    ``info`` then holds the table of primals and the seconds the selection took."""
    t0 = None if t0 is None else check_positive("t0", t0)
    if t0 is not None:
        return t0, False, {}
    start = time.perf_counter()
    t0, table = select_t0(one_pass, p.rows, p.y, p.sigma, p.code, p.seed)
    return t0, True, {"t0_table": table, "t0_seconds": time.perf_counter() - start}
