"""The common objective and metrics (DESIGN.md, "Objective and metrics").

    F(w) = sigma * r(w) + (1/m) sum_i loss(<w, x_i>, y_i),   r(w) = ||w||_p^2 / (2 (p - 1)),

with p in (1, 2]; at p = 2, r(w) = ||w||^2 / 2. X may be dense or sparse: the kernels below
take CSR rows (see ``_checks.Rows``).
"""
import math

import numpy as np
from numba import njit

from . import pnorm
from .rows import (Rows, as_rows, check_test_set, check_weights, check_X_y, check_y,
                   is_compact, n_rows)
from .checks import check_sigma
from .losses import (ABSOLUTE, HINGE, LOGISTIC, LOSSES, NAMES, SQUARED, loss_code,
                     loss_deriv, loss_task, loss_value, loss_values)


# ----------------------------------------------------------------------------------- kernels
@njit(cache=True)
def row_dot(data, indices, start, stop, w):
    """<w, x_i> for the CSR row stored in data/indices[start:stop]."""
    z = 0.0
    for j in range(start, stop):
        z += data[j] * w[indices[j]]
    return z


_DBL_MAX = 1.7976931348623157e308


@njit(cache=True)
def _pow2(z, e):
    """z * 2^e in two factors (each within the double range for |e| <= 2100)."""
    h = e // 2
    return z * math.ldexp(1.0, h) * math.ldexp(1.0, e - h)


@njit(cache=True)
def _scaled_dot(data, indices, start, stop, w, dense):
    """<w, x> for a row whose plain sum left the double range (a product or partial sum beyond
    1.8e308, or inf - inf = NaN): entries and weights are scaled by powers of two so that every
    product is at most 1, then the sum is scaled back (exact scalings). The result is inf only
    when the true value is beyond the double range. dense: the row is data[start:stop] with
    feature j at offset j (compact dense rows); else CSR with ``indices``."""
    a = 0.0
    b = 0.0
    for j in range(start, stop):
        a = max(a, abs(data[j]))
        b = max(b, abs(w[j - start] if dense else w[indices[j]]))
    if a == 0.0 or b == 0.0:
        return 0.0
    ea = math.frexp(a)[1]
    eb = math.frexp(b)[1]
    fa = math.ldexp(1.0, -ea)
    fb = math.ldexp(1.0, -eb)
    z = 0.0
    for j in range(start, stop):
        wj = w[j - start] if dense else w[indices[j]]
        z += (data[j] * fa) * (wj * fb)
    return _pow2(z, ea + eb)


@njit(cache=True)
def _scaled_dot_over(data, indices, start, stop, w, m):
    """<w, x> / m for a CSR row whose margin itself is beyond the double range (see
    _scaled_dot); finite when the quotient is."""
    a = 0.0
    b = 0.0
    for j in range(start, stop):
        a = max(a, abs(data[j]))
        b = max(b, abs(w[indices[j]]))
    ea = math.frexp(a)[1]
    eb = math.frexp(b)[1]
    fa = math.ldexp(1.0, -ea)
    fb = math.ldexp(1.0, -eb)
    z = 0.0
    for j in range(start, stop):
        z += (data[j] * fa) * (w[indices[j]] * fb)
    return _pow2(z / m, ea + eb)


@njit(cache=True)
def _huge_loss_over_m(code, zm, y):
    """loss(z, y) / m for a margin z beyond the double range, given zm = z / m: the losses
    grow like |z| there (hinge, logistic, absolute: the constant is below rounding), or
    faster (squared, squared hinge, exponential: the value is beyond the double range too)."""
    if code == HINGE or code == LOGISTIC:
        return max(0.0, -y * zm)
    if code == ABSOLUTE:
        return abs(zm)
    if code == SQUARED or (y * zm < 0.0):
        return math.inf
    return 0.0  # squared hinge, exponential on the right side of a huge margin


@njit(cache=True)
def safe_row_dot(data, indices, start, stop, w):
    """row_dot, recomputed in scaled form when the plain sum is not finite (see _scaled_dot);
    one comparison per row otherwise. For the objective and metrics, not the solver loops."""
    z = row_dot(data, indices, start, stop, w)
    if not abs(z) <= _DBL_MAX:
        z = _scaled_dot(data, indices, start, stop, w, False)
    return z


@njit(cache=True)
def margins(data, indices, indptr, w, out):
    """out[i] = <w, x_i> for the CSR rows (finite whenever the true value is)."""
    m = indptr.shape[0] - 1
    for i in range(m):
        z = safe_row_dot(data, indices, indptr[i], indptr[i + 1], w)
        out[i] = z
    return out


@njit(cache=True)
def dense_margins(data, n, w, out):
    """out[i] = <w, x_i> for dense rows stored one after another in data (compact form).

    A plain loop rather than BLAS: BLAS threads that keep spinning after a call would slow
    down the single-threaded solver kernels that run next."""
    for i in range(out.shape[0]):
        z = 0.0
        a = i * n
        for j in range(n):
            z += data[a + j] * w[j]
        if not abs(z) <= _DBL_MAX:
            z = _scaled_dot(data, np.empty(0, dtype=np.int32), a, a + n, w, True)
        out[i] = z
    return out


@njit(cache=True)
def mean_loss(data, indices, indptr, w, y, code):
    """(1/m) sum_i loss(<w, x_i>, y_i)."""
    m = indptr.shape[0] - 1
    total = 0.0
    for i in range(m):
        z = safe_row_dot(data, indices, indptr[i], indptr[i + 1], w)
        total += loss_value(code, z, y[i])
    if not total <= _DBL_MAX:  # the sum overflowed: the mean may still be a double
        total = 0.0
        for i in range(m):
            z = safe_row_dot(data, indices, indptr[i], indptr[i + 1], w)
            if abs(z) <= _DBL_MAX:
                total += loss_value(code, z, y[i]) / m
            else:  # the margin is beyond the double range, z / m may not be
                zm = _scaled_dot_over(data, indices, indptr[i], indptr[i + 1], w, m)
                total += _huge_loss_over_m(code, zm, y[i])
        return total
    return total / m


@njit(cache=True)
def mean_loss_grad(data, indices, indptr, w, y, code, grad):
    """Mean loss, and grad = (1/m) sum_i loss'(<w, x_i>, y_i) x_i (written into grad)."""
    m = indptr.shape[0] - 1
    grad[:] = 0.0
    total = 0.0
    for i in range(m):
        z = safe_row_dot(data, indices, indptr[i], indptr[i + 1], w)
        total += loss_value(code, z, y[i])
        d = loss_deriv(code, z, y[i]) / m
        if d != 0.0:
            for j in range(indptr[i], indptr[i + 1]):
                grad[indices[j]] += d * data[j]
    return total / m


@njit(cache=True)
def mean_loss_derivs(code, z, y, out):
    """Mean loss over the margins z, and out_i = loss'(z_i, y_i) / m: with z = X w from
    BLAS and grad = X^T out, :func:`mean_loss_grad` for dense rows (finite z only)."""
    m = z.shape[0]
    total = 0.0
    for i in range(m):
        total += loss_value(code, z[i], y[i])
        out[i] = loss_deriv(code, z[i], y[i]) / m
    return total / m


#: rows per block of :func:`mean_loss_grad_blocks`: the block's rows (about 64 x 12 bytes per
#: non-zero, a few kB on text data) are still in cache when the scatter reads them again
GRAD_BLOCK = 64


@njit(cache=True)
def mean_loss_grad_blocks(data, indices, indptr, w, y, code, grad, zb):
    """Mean loss and grad = (1/m) X^T loss'(X w, y) (written into grad) in one pass over
    CSR rows, ``zb.shape[0]`` rows at a time: their margins z_i = <w, x_i>, then
    loss'(z_i, y_i) / m, then the scatter of those rows into grad while they are in cache.

    The same operations in the same order as ``z = X @ w`` (scipy's CSR product: each
    z_i summed from 0.0 over the row as stored), :func:`mean_loss_derivs` and
    ``X.T @ d`` (scipy's CSC product of the transpose: grad[c] += x_ic d_i, rows in
    order), so the same bits, reading X once instead of twice. ``indices`` and ``indptr``
    unsigned (:func:`rlmlib.core.rows.unsigned_index`); ``data`` float64, or float32
    (each entry widened exactly, the arithmetic in float64). Returns (row, f): row = -1
    and f the mean loss, or the first row whose margin is not finite (grad is then
    meaningless: the caller takes the overflow-safe :func:`mean_loss_grad`)."""
    m = indptr.shape[0] - 1
    B = zb.shape[0]
    grad[:] = 0.0
    total = 0.0
    for r0 in range(0, m, B):
        r1 = min(r0 + B, m)
        for i in range(r0, r1):
            z = 0.0
            for j in range(indptr[i], indptr[i + 1]):
                z += np.float64(data[j]) * w[indices[j]]
            zb[i - r0] = z
        for i in range(r0, r1):
            if not np.isfinite(zb[i - r0]):
                return np.int64(i), 0.0
        for i in range(r0, r1):
            z = zb[i - r0]
            total += loss_value(code, z, y[i])
            zb[i - r0] = loss_deriv(code, z, y[i]) / m
        for i in range(r0, r1):
            d = zb[i - r0]
            for j in range(indptr[i], indptr[i + 1]):
                grad[indices[j]] += np.float64(data[j]) * d
    return np.int64(-1), total / m


# ------------------------------------------------------------------------------ regularizer
# r(w) = ||w||_p^2 / (2(p-1)) is phi_p of rlmlib.pnorm: one overflow-safe implementation
# (max|w_i| factored out) serves the objective, the reference solver and the PGS chapter.
check_p = pnorm.check_p


def regularizer(w, p=2.0):
    """The regularizer r(w) = ‖w‖_p²/(2(p − 1)) (½‖w‖² at p = 2).

    Computed with max|w_i| factored out, so it is finite whenever the true value is.

    Parameters
    ----------
    w : array-like, shape (n,)
        Weights.
    p : float in [1.0001, 2]
        Exponent of the norm.

    Returns
    -------
    float
        r(w).

    Raises
    ------
    ValueError
        For p outside [1.0001, 2].

    Examples
    --------
    >>> import rlmlib
    >>> rlmlib.regularizer([3.0, 4.0])          # ½ · 5²
    12.5
    >>> round(rlmlib.regularizer([1.0, 1.0], p=1.5), 12)   # (2^(2/3))² / 1
    2.51984209979
    """
    return pnorm.r(w, p)


def regularizer_grad(w, p=2.0):
    """The gradient of r: ∇r(w)_i = ‖w‖_p^(2−p) |w_i|^(p−1) sgn(w_i) / (p − 1).

    At p = 2 it is w itself; computed without overflow.

    Parameters
    ----------
    w, p
        As in :func:`rlmlib.regularizer`.

    Returns
    -------
    numpy.ndarray, shape (n,)
        ∇r(w).

    Raises
    ------
    ValueError
        As :func:`rlmlib.regularizer`.

    Examples
    --------
    >>> from rlmlib.core.objective import regularizer_grad
    >>> regularizer_grad([3.0, -4.0]).tolist()
    [3.0, -4.0]
    >>> g = regularizer_grad([1.0, 1.0], p=1.5)   # 2^(1/3) / 0.5 per coordinate
    >>> [round(float(v), 12) for v in g]
    [2.51984209979, 2.51984209979]
    """
    return pnorm.grad_r(w, p)


# -------------------------------------------------------------------------------- objective
def objective_rows(rows, y, w, sigma, code, p=2.0):
    """F(w) on rows already checked by :func:`rlmlib.check_X_y` (no checks).

    Used by the solvers at their checkpoints. At w = 0 (every solver's start) no margin
    needs the rows: O(m), not a pass over X.

    Parameters
    ----------
    rows : Rows
        From :func:`rlmlib.check_X_y` (or :func:`rlmlib.as_rows`).
    y : numpy.ndarray of float, shape (m,)
        Labels in {-1, +1}, or real targets.
    w : numpy.ndarray of float, shape (n,)
        Weights.
    sigma : float
        Regularization weight σ.
    code : int
        Loss code, from :func:`rlmlib.loss_code`.
    p : float
        Exponent of the regularizer.

    Returns
    -------
    float
        F(w), as :func:`objective` computes it.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> from rlmlib.core.objective import objective_rows
    >>> X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
    >>> rows, yf, classes = rlmlib.check_X_y(X, [1, -1, 1], task="binary")
    >>> w = np.array([0.5, -0.25])
    >>> F = objective_rows(rows, yf, w, 0.1, rlmlib.loss_code("hinge"))
    >>> F == rlmlib.objective(X, [1, -1, 1], w, sigma=0.1, loss="hinge")
    True
    """
    if not w.any():  # sigma r(0) = 0 exactly
        return mean_loss_at_zero(code, y)
    if is_compact(rows):
        z = decision_function_rows(rows, w)
        loss = _mean(loss_values(code, z, y, np.empty_like(z)))
        if not math.isfinite(loss):  # a margin beyond the double range: the CSR path copes
            full = Rows(rows.data, np.tile(rows.indices, n_rows(rows)), rows.indptr,
                        rows.n_features, False)
            loss = mean_loss(full.data, full.indices, full.indptr, w, y, code)
    else:
        loss = mean_loss(rows.data, rows.indices, rows.indptr, w, y, code)
    return sigma_r(w, sigma, p) + loss


def mean_loss_at_zero(code, y):
    """F(0) without its regularizer: (1/m) sum_i loss(0, y_i), the same float as
    ``_mean(loss_values(code, zeros, y, ...))``, in O(1) when that is certain.

    A margin loss (hinge, squared hinge, logistic, exponential) at z = 0 is loss(y * 0) =
    loss(±0), one value c for every finite y. When c = M 2^e with odd M and M m <= 2^53,
    every partial sum k c (k <= m) is a double, so numpy's sum is exactly m c and the mean
    exactly c. Otherwise (logistic: c = log 2; regression losses) one O(m) pass.

    Parameters
    ----------
    code : int
        Loss code, from :func:`rlmlib.loss_code`.
    y : numpy.ndarray of float64, shape (m,)
        Finite labels (-1/+1) or targets.

    Returns
    -------
    float
        (1/m) sum_i loss(0, y_i), bit for bit the value of the O(m) pass.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.core.losses import loss_code
    >>> from rlmlib.core.objective import mean_loss_at_zero
    >>> mean_loss_at_zero(loss_code("squared_hinge"), np.array([1.0, -1.0, 1.0]))
    0.5
    >>> mean_loss_at_zero(loss_code("squared"), np.array([1.0, -3.0]))   # (1/2 + 9/2) / 2
    2.5
    """
    m = y.shape[0]
    if LOSSES[NAMES[code]]["task"] == "binary" and m > 0:
        c = loss_value(code, 0.0, 1.0)
        if math.isfinite(c) and c == loss_value(code, 0.0, -1.0):
            num = c.as_integer_ratio()[0]
            odd = num >> ((num & -num).bit_length() - 1) if num else 0
            if odd * m <= 2 ** 53:
                return c
    z = np.zeros(m)
    return _mean(loss_values(code, z, y, np.empty_like(z)))


def _mean(values):
    """Mean of finite values, also when their sum overflows but the mean does not."""
    with np.errstate(over="ignore"):
        mean = float(np.mean(values))
    if not math.isfinite(mean) and np.isfinite(values).all():
        mean = float(np.sum(values / values.shape[0]))
    return mean


def sigma_r(w, sigma, p=2.0):
    """σ r(w), finite whenever the true value is.

    r(w) itself may be beyond the double range (huge w) while σ r(w) is not (tiny σ); then
    it is computed as (√σ ‖w‖_p)²/(2(p − 1)), with ‖w‖_p = M ν and M = max|w_i| factored.

    Parameters
    ----------
    w : numpy.ndarray of float, shape (n,)
        Weights.
    sigma : float > 0
        Regularization weight σ.
    p : float in [1.0001, 2]
        Exponent of the norm.

    Returns
    -------
    float
        σ r(w).

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.core.objective import sigma_r
    >>> sigma_r(np.array([3.0, 4.0]), 0.1)
    1.25
    >>> float(f"{sigma_r(np.array([1e160, 1e160]), 1e-100):.12g}")   # r(w) = 1e320 alone
    1e+220
    """
    val = sigma * pnorm._phi(w, p)  # scaled: a huge but finite w gives inf, no warning
    if not math.isfinite(val):
        M, nu = pnorm._scaled_norm(w, p)
        a = math.sqrt(sigma) * M * nu
        val = a * (a / (2.0 * (p - 1.0)))
    return val


def objective(X, y, w, *, sigma, loss, p=2.0):
    """The objective F(w) = σ r(w) + (1/m) Σ_i ℓ(⟨w, x_i⟩, y_i), r(w) = ‖w‖_p²/(2(p − 1)).

    Exact, and finite whenever the true value is.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Rows, dense or sparse.
    y : array-like, shape (m,)
        For classification losses any two labels, mapped to -1/+1 in sorted order as the
        solvers do; real targets for 'squared' and 'absolute'.
    w : array-like, shape (n,)
        Weights.
    sigma : float > 0
        Regularization weight σ.
    loss : str
        One of ``rlmlib.LOSSES``.
    p : float in [1.0001, 2]
        Exponent of the regularizer (½‖w‖² at p = 2).

    Returns
    -------
    float
        F(w).

    Raises
    ------
    ValueError, TypeError
        For a bad argument (named in the message): unknown loss, σ <= 0, a w whose length
        is not the number of columns, labels that do not fit the loss.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
    >>> rlmlib.objective(X, [1, -1, 1], np.zeros(2), sigma=0.1, loss="hinge")
    1.0
    >>> w = np.array([0.5, -0.25])   # margins 0, -0.625, 0.25; ½‖w‖² = 0.15625
    >>> round(rlmlib.objective(X, [1, -1, 1], w, sigma=0.1, loss="hinge"), 12)
    0.723958333333
    """
    code = loss_code(loss)
    sigma = check_sigma(sigma)
    p = check_p(p)
    rows, yf, _ = check_X_y(X, y, task=loss_task(loss), compact_dense=True)
    w = check_weights(w, rows.n_features)
    return objective_rows(rows, yf, w, sigma, code, p)


# ---------------------------------------------------------------------------------- metrics
def decision_function_rows(rows, w):
    """⟨w, x_i⟩ for every row of checked rows (no checks).

    Parameters
    ----------
    rows : Rows
        From :func:`rlmlib.as_rows` or :func:`rlmlib.check_X_y`.
    w : numpy.ndarray of float, shape (n,)
        Weights.

    Returns
    -------
    numpy.ndarray, shape (m,)
        The margins, finite whenever the true values are.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> from rlmlib.core.objective import decision_function_rows
    >>> rows = rlmlib.as_rows(np.array([[1.0, 2.0], [-1.0, 0.5]]))
    >>> decision_function_rows(rows, np.array([0.5, -0.25])).tolist()
    [0.0, -0.625]
    """
    if is_compact(rows):  # dense rows in compact form: a matrix-vector product
        return dense_margins(rows.data, rows.n_features, w, np.empty(n_rows(rows)))
    out = np.empty(n_rows(rows))
    return margins(rows.data, rows.indices, rows.indptr, w, out)


def decision_function(X, w):
    """The margins ⟨w, x_i⟩ for every row of X.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Rows, dense or sparse.
    w : array-like, shape (n,)
        Weights.

    Returns
    -------
    numpy.ndarray, shape (m,)
        ⟨w, x_i⟩, finite whenever the true value is.

    Raises
    ------
    ValueError
        When X does not have len(w) columns, or X or w is not finite.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
    >>> rlmlib.decision_function(X, [0.5, -0.25]).tolist()
    [0.0, -0.625, 0.25]
    """
    rows = as_rows(X, compact_dense=True)
    w = _check_columns(rows, w)
    return decision_function_rows(rows, w)


def _check_columns(rows, w):
    """w checked, and X blamed (not w) when a valid weight vector does not match X's columns
    (``res.predict(X[:, :3])`` for a model fit on more features)."""
    wv = np.asarray(w)
    if wv.ndim == 1 and wv.dtype.kind in "biuf" and wv.shape[0] != rows.n_features:
        raise ValueError(f"X must have {wv.shape[0]} columns, the number of weights (features "
                         f"the model was fit on), got {rows.n_features}")
    return check_weights(w, rows.n_features)


def _labels_pm1(X, y, w, classes):
    rows = as_rows(X, compact_dense=True)
    w = _check_columns(rows, w)
    if classes is None:
        yf, _ = check_y(y, n_rows(rows), task="binary")
    else:
        yf = check_test_set(X, y, rows.n_features, "binary", np.asarray(classes))[1]
    return rows, yf, w


def accuracy(X, y, w, classes=None):
    """Fraction of rows whose predicted label is the true one (⟨w, x_i⟩ > 0 predicts +1).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Rows, dense or sparse.
    y : array-like, shape (m,)
        Labels: two values, mapped to -1/+1 in sorted order, or by ``classes``.
    w : array-like, shape (n,)
        Weights.
    classes : array-like of two labels, optional
        classes[0] is -1, classes[1] is +1 (a fit's ``res.classes``); allows a test set
        that holds only one of the two classes.

    Returns
    -------
    float
        Accuracy in [0, 1]; a margin of exactly 0 predicts -1.

    Raises
    ------
    ValueError
        When X does not have len(w) columns, or y has more than two labels or one that is
        not in ``classes``.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
    >>> w = [0.5, -0.25]                  # margins 0, -0.625, 0.25
    >>> rlmlib.accuracy(X, [1, -1, 1], w)  # the first row (margin 0) predicts -1
    0.6666666666666666
    >>> rlmlib.accuracy(X[1:2], ["no"], w, classes=["no", "yes"])
    1.0
    """
    rows, yf, w = _labels_pm1(X, y, w, classes)
    z = decision_function_rows(rows, w)
    pred = np.where(z > 0.0, 1.0, -1.0)
    return float(np.mean(pred == yf))


def test_error(X, y, w, classes=None):
    """The error rate 1 − :func:`accuracy`.

    Parameters
    ----------
    X, y, w, classes
        As in :func:`accuracy`.

    Returns
    -------
    float
        Fraction of misclassified rows, in [0, 1].

    Raises
    ------
    ValueError
        As :func:`accuracy`.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
    >>> rlmlib.test_error(X, [1, -1, 1], [0.5, -0.25])
    0.33333333333333337
    """
    return 1.0 - accuracy(X, y, w, classes)


test_error.__test__ = False   # not a test: pytest would collect it where it is imported by name


def mse(X, y, w):
    """The mean squared error (1/m) Σ_i (⟨w, x_i⟩ − y_i)².

    Finite whenever the true value is (the residuals are scaled by their largest).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        Rows, dense or sparse.
    y : array-like of float, shape (m,)
        Real targets.
    w : array-like, shape (n,)
        Weights.

    Returns
    -------
    float
        The mean squared error (note: twice the mean 'squared' loss ½(z − y)²).

    Raises
    ------
    ValueError
        When X does not have len(w) columns, or y is not finite or has the wrong length.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -1.0]])
    >>> round(rlmlib.mse(X, [0.0, 0.0, 1.0], [0.5, -0.25]), 12)  # residuals 0, -5/8, -3/4
    0.317708333333
    """
    rows = as_rows(X, compact_dense=True)
    w = _check_columns(rows, w)
    yf, _ = check_y(y, n_rows(rows), task="regression")
    r = decision_function_rows(rows, w) - yf
    M = float(np.max(np.abs(r)))
    if not 0.0 < M < math.inf:  # 0, or a residual beyond the double range: the MSE is too
        return M
    u = r / M  # scaled: (1/m) sum r^2 is inf only when the true value is
    with np.errstate(over="ignore"):
        return float(M * (M * (np.dot(u, u) / r.shape[0])))
