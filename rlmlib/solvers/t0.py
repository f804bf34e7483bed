"""The step offset t0 and the skip of the scheduled solvers of Bordes, Bottou and Gallinari
2009 (SVMSGD2, SGD-QN in both versions) and of oLBFGS: the default ``skip``, the paper's t0
selection procedure (on a sample of fixed size), the stability limit of a given t0, and one
storage-order pass for the selection.

Sparse data: a step of SGD on (sigma/2)||w||^2 + loss costs O(n) for the regularization part
(every coordinate shrinks) and O(d) for the loss part (the non-zeros of x). SVMSGD2 applies
the regularization every ``skip`` steps with a ``skip``-times larger gain, which has the same
expectation; with skip = 16 n / d the dense work is one sixteenth of the sparse work.

Stability. The first step of all four solvers is SGD's, w <- w - (1/(sigma t0)) g with
g = sigma w + loss'(<w, x>) x. For a loss of smoothness beta (squared hinge 1, logistic 1/4)
the example's objective (sigma/2)||w||^2 + loss(<w, x>) is L-smooth with
L = beta max||x||^2 + sigma, and a gradient step on an L-smooth quadratic is stable only for
steps below 2/L: t0 >= t0_min = L / (2 sigma). With a smaller t0 the steps
eta_t = 1/(sigma (t + t0)) exceed 2/L until t = c/2 - t0, c = L/sigma, and the component of
w along the longest row can grow by the factor A = prod_t (c/(t + t0) - 1) over those
steps; log A ~ G(c/2) - G(t0) with G(u) = -(c - u) ln(c - u) - u ln u (the integral of
ln(c/u - 1)), counted per row for the 1/m of the steps that visit it
(:func:`amplification`). A given t0 warns when A > AMPLIFICATION_MAX = 1e3 (a t0 just below the limit is
harmless: the steps fall below 2/L within a few examples). The corrected SGD-QN's first regularization
step multiplies w by 1 - skip/t0 (its B is still 1/(sigma t0) then), below -1 for
t0 < skip/2: for it t0_min is also at least skip / 2 (SVMSGD2 and SGD-QN 2009 take their
first one at t = skip - 1, where 1 - skip/(t + t0) > -1 for every t0 > 0).
"""
import math
import time
import warnings

import numpy as np

from ..core.checks import check_first_step, check_int, check_positive
from ..core.rows import Rows, is_compact, n_rows
from ..core.objective import objective_rows
from .limits import StepLimitWarning

#: the paper's constant c of skip = c n / d
SKIP_C = 16
#: the t0 grid of the selection procedure: 10^0 ... 10^10
T0_GRID = tuple(10.0 ** k for k in range(11))
#: a given t0 warns when w can grow by more than this factor on the steps beyond 2/L
AMPLIFICATION_MAX = 1e3
#: rows of the selection sample: min(m, T0_SAMPLE), as Bottou's programs (a fixed sample, so
#: the selection costs the same whatever m)
T0_SAMPLE = 1000
#: a candidate must lower the sample's objective below (1 - T0_DECREASE) F(0) to count as a
#: decrease; candidates that do not "tie" at F(0) (w barely moved) and never win over one
#: that decreased
T0_DECREASE = 1e-3


# ------------------------------------------------------------------------- hyperparameters
def default_skip(rows):
    """skip = 16 n / d (n features, d average non-zeros per example), at least 1.

    d counts the non-zero values, whatever the storage: a dense X and its CSR form (or a CSR
    holding explicit zeros) get the same skip (dense data without zeros: 16). Bottou's
    programs compute the same quantity (``calibrate``)."""
    if rows.stats is not None:  # the validation pass counted the stored zeros
        nnz = rows.data.shape[0] - rows.stats.zeros
    else:
        nnz = int(np.count_nonzero(rows.data))
    d = nnz / n_rows(rows)
    return max(1, int(SKIP_C * rows.n_features / max(d, 1e-300)))


def check_skip(skip, rows):
    """``skip`` validated (an integer >= 1), or the default 16 n / d for None."""
    if skip is None:
        return default_skip(rows), True
    return check_int("skip", skip, 1), False


def subset(rows, y, idx):
    """The examples ``idx`` of ``rows`` in the same form (compact dense or CSR), built with
    array operations (no loop over the rows)."""
    if is_compact(rows):
        n = rows.n_features
        data = rows.data.reshape(-1, n)[idx].ravel()
        indptr = np.arange(0, idx.shape[0] * n + 1, n, dtype=np.int64)
        return Rows(data, rows.indices, indptr, n, False), y[idx]
    starts = rows.indptr[idx]
    lengths = rows.indptr[idx + 1] - starts
    indptr = np.zeros(idx.shape[0] + 1, np.int64)
    np.cumsum(lengths, out=indptr[1:])
    # entry k of the subset is entry k - indptr[row] + starts[row] of the rows
    take = np.arange(indptr[-1], dtype=np.int64) + np.repeat(starts - indptr[:-1], lengths)
    return Rows(rows.data[take], rows.indices[take], indptr, rows.n_features,
                rows.sparse), y[idx]


def t0_min(sigma, code, R, skip=1):
    """The smallest stable t0 (module docstring): max(L / (2 sigma), skip / 2) with
    L = beta R^2 + sigma, beta the loss's smoothness (no smoothness bound for a loss of
    infinite smoothness, hinge and exponential: then skip / 2 only), R = max ||x||."""
    from ..core.losses import LOSSES, NAMES
    beta = LOSSES[NAMES[code]]["smoothness"]
    lo = skip / 2.0
    if math.isfinite(beta):
        lo = max(lo, (beta * R * R + sigma) / (2.0 * sigma))
    return lo


def row_norms2(rows):
    """||x_i||^2 of every row, one numba pass (m floats)."""
    from ..precond.preconditioner import _row_norms2
    m = n_rows(rows)
    indptr = (np.arange(0, m * rows.n_features + 1, rows.n_features, dtype=np.int64)
              if is_compact(rows) else rows.indptr)
    return _row_norms2(rows.data, indptr, np.empty(m))


def norm_bins(norms2):
    """(values, counts): the squared row norms binned to 1/64 of an octave (each bin at its
    upper edge, so a bound computed on them is conservative); zero rows dropped. A few
    hundred bins at most, so :func:`amplification` costs O(bins), not O(m), per t0."""
    v = norms2[norms2 > 0]
    if not v.size:
        return np.zeros(0), np.zeros(0), norms2.size
    k, counts = np.unique(np.ceil(np.log2(v) * 64.0), return_counts=True)
    return np.exp2(k / 64.0), counts.astype(np.float64), norms2.size


def amplification(t0, sigma, code, norms2, skip=1):
    """log of the growth factor of w over the steps beyond 2/L with this t0 (module
    docstring), plus log(skip/t0 - 1) for the corrected SGD-QN's first shrink when skip > 1.

    A step beyond 2/L_i = 2/(beta ||x_i||^2 + sigma) grows w along x_i only when x_i is the
    example visited, about once in m steps: row i contributes (G_i(c_i/2) - G_i(t0)) / m,
    c_i = L_i / sigma, and the contributions add up (rows in one direction compound).
    ``norms2``: the rows' squared norms (:func:`row_norms2`), or their :func:`norm_bins`."""
    from ..core.losses import LOSSES, NAMES
    beta = LOSSES[NAMES[code]]["smoothness"]
    out = 0.0
    values, counts, m = (norms2 if isinstance(norms2, tuple)
                         else (norms2, np.ones(norms2.size), norms2.size))
    if math.isfinite(beta) and m:
        c = (beta * values + sigma) / sigma
        keep = t0 < c / 2
        c, counts = c[keep], counts[keep]
        if c.size:
            def G(u):
                return -(c - u) * np.log(c - u) - u * np.log(u)
            out += float(np.sum(counts * (G(c / 2) - G(t0)))) / m
    if skip / t0 > 2:
        out += math.log(skip / t0 - 1)
    return out


def select_t0(one_pass, rows, y, sigma, code, seed, grid=T0_GRID, lo=0.0,
              sample=T0_SAMPLE, allowed=None, fallback=None):
    """The paper's procedure on a sample of fixed size: one pass over min(m, ``sample``)
    examples drawn with ``seed`` (in storage order) for each t0 of ``grid`` that is at least
    ``lo`` and ``allowed(t0)`` (stable: :func:`amplification` below AMPLIFICATION_MAX), and
    ``lo`` itself when it is allowed and no such grid value lies in [lo, 10 lo] (``fallback``,
    e.g. the strict limit :func:`t0_min`, when no candidate is left), keeping the t0 whose
    primal on the sample is lowest among those that lowered it below (1 - T0_DECREASE) F(0).

    ``one_pass(rows, y, t0) -> w`` runs the solver's own pass. Returns ``(t0, table, tie)``:
    ``table`` the list of (t0, primal) tried (NaN for a run that overflowed), ``tie`` True
    when no candidate decreased the primal (then the smallest candidate, the largest first
    step, is returned: the one most likely to move)."""
    m = n_rows(rows)
    k = min(m, int(sample))
    if k < m:
        rng = np.random.default_rng((seed, 10))
        idx = np.sort(rng.choice(m, k, replace=False)).astype(np.int64)
        sub, ys = subset(rows, y, idx)
    else:
        sub, ys = rows, y
    cands = [float(t) for t in grid if t >= lo and (allowed is None or allowed(float(t)))]
    if lo > 0 and (allowed is None or allowed(float(lo))) and (not cands or
                                                             cands[0] > 10 * lo):
        cands.insert(0, float(lo))  # a stable t0 within a factor 10 of the limit
    if not cands:
        cands = [float(lo if fallback is None else fallback)]
    f0 = objective_rows(sub, ys, np.zeros(rows.n_features), sigma, code)
    table = []
    with np.errstate(over="ignore", invalid="ignore"):
        for t0 in cands:
            w = one_pass(sub, ys, t0)
            f = objective_rows(sub, ys, w, sigma, code) if np.isfinite(w).all() else np.nan
            table.append((t0, float(f) if np.isfinite(f) else np.nan))
    costs = np.array([c for _, c in table])
    decreased = costs < (1.0 - T0_DECREASE) * f0   # NaN compares False
    if not decreased.any():
        return cands[0], table, True
    return table[int(np.argmin(np.where(decreased, costs, np.inf)))][0], table, False


# ------------------------------------------------------------------------------- the driver


def storage_pass(steps, rows, y):
    """Run ``steps(rows, y, indices, indptr, order, start, stop, t_first, look_ahead)`` once
    over ``rows`` in storage order from t = 0 (the one pass of the t0 selection)."""
    m = rows.indptr.shape[0] - 1
    steps(rows, y, rows.indices.view(np.uint32), rows.indptr.view(np.uint64),
          np.arange(m, dtype=np.uint64), 0, m, 0, False)


def check_skip_reaches(skip, p, name):
    """Warn (before the run) when ``skip`` exceeds the run's step count: the regularization
    step would never be applied."""
    total = p.epochs * p.m
    if skip > total:
        warnings.warn(
            f"{name}: skip={skip} exceeds the run's {total} steps (epochs * m = "
            f"{p.epochs} * {p.m}): the regularization step is never applied, so the run "
            f"minimizes the loss alone; expected skip <= epochs * m (default 16 n / d)",
            StepLimitWarning, stacklevel=5)


def choose_t0(p, t0, one_pass, skip=1, name="solver", skip_given=False, skip_limit=False,
              any_t0_stable=False):
    """(t0, selected, info) for the checked problem ``p``: a checked ``t0`` as given (with a
    warning before the run when w can grow a thousandfold on the steps beyond the stability limit,
    :func:`amplification`), or, for None, the paper's selection (:func:`select_t0`, on
    stable candidates t0 >= :func:`t0_min` only) with ``one_pass(rows, y, t0) -> w``.
    ``info`` holds ``t0_min`` and, for a selection, the table of primals, the sample size,
    the seconds the selection took and whether it tied at F(0) (a tie also warns). A given
    ``skip`` (``skip_given``) beyond the run's step count warns too (the regularization step
    would never be taken; the default 16 n/d can exceed a short run on sparse data without
    a word). ``skip_limit``: the corrected SGD-QN, whose first shrink needs t0 >= skip/2."""
    t0 = None if t0 is None else check_first_step(name, "t0", check_positive("t0", t0), p.sigma)
    if skip_given:
        check_skip_reaches(skip, p, name)
    reg_skip = skip if skip_limit and skip <= p.epochs * p.m else 1
    limit = math.log(AMPLIFICATION_MAX)
    if t0 is not None and (any_t0_stable or t0 >= t0_min(p.sigma, p.code, p.R, reg_skip)):
        # stable as given: no pass over X for the row norms (the validation pass's R)
        return t0, False, {"t0_min": 0.0 if any_t0_stable
                           else t0_min(p.sigma, p.code, p.R, reg_skip)}
    norms2 = row_norms2(p.rows)
    R = math.sqrt(float(norms2.max())) if norms2.size else 0.0
    bins = norm_bins(norms2)
    lo = 0.0 if any_t0_stable else t0_min(p.sigma, p.code, R, reg_skip)

    def log_growth(t):
        return amplification(t, p.sigma, p.code, bins, reg_skip) if t < lo else 0.0

    if t0 is not None:
        log_a = log_growth(t0)
        if log_a > limit:
            warnings.warn(
                f"{name}: t0={t0:.6g} is below the stability limit t0_min = {lo:.6g} (the "
                f"first steps 1/(sigma (t + t0)) exceed 2/L, L = smoothness * max||x||^2 + "
                f"sigma = {p.sigma * 2 * t0_min(p.sigma, p.code, R):.3g}"
                f"{f', or t0 < skip/2 = {reg_skip / 2:g}' if reg_skip > 1 else ''}): w can "
                f"grow by a factor of about 10^{log_a / math.log(10.0):.3g} on those steps "
                f"and the objective end far above F(0); expected t0 >= {lo:.6g}, or t0=None "
                f"(selection)", StepLimitWarning, stacklevel=4)
        return t0, False, {"t0_min": lo}
    start = time.perf_counter()
    # the corrected SGD-QN's candidates keep its first shrink 1 - skip/t0 from flipping w's
    # sign (t0 >= skip): a one-pass trial favours a t0 at the edge, which stalls later
    t0, table, tie = select_t0(one_pass, p.rows, p.y, p.sigma, p.code, p.seed,
                               lo=float(reg_skip) if reg_skip > 1 else 0.0,
                               allowed=lambda t: log_growth(t) <= limit,
                               fallback=max(lo, float(reg_skip)))
    info = {"t0_table": table, "t0_seconds": time.perf_counter() - start,
            "t0_sample": min(p.m, T0_SAMPLE), "t0_min": lo, "t0_tie": tie}
    if tie:
        warnings.warn(
            f"{name}: t0 selection found no t0 in {[c for c, _ in table]} that lowers the "
            f"objective on a sample of {info['t0_sample']} examples below F(0) (a tie at "
            f"w = 0); using the smallest stable t0 = {t0:.6g}: pass t0 explicitly, or check "
            f"sigma (a sigma this large may make w = 0 nearly optimal)",
            RuntimeWarning, stacklevel=4)
    return t0, True, info
