"""The common objective and metrics (DESIGN.md, "Objective and metrics").

    F(w) = sigma * r(w) + (1/m) sum_i loss(<w, x_i>, y_i),   r(w) = ||w||_p^2 / (2 (p - 1)),

with p in (1, 2]; at p = 2, r(w) = ||w||^2 / 2. X may be dense or sparse: the kernels below
take CSR rows (see ``_checks.Rows``).
"""
import numpy as np
from numba import njit

from . import pnorm
from ._checks import (as_rows, check_positive, check_test_set, check_weights, check_X_y,
                      check_y, is_compact, n_rows)
from .losses import loss_code, loss_deriv, loss_task, loss_value, loss_values


# ----------------------------------------------------------------------------------- kernels
@njit(cache=True)
def row_dot(data, indices, start, stop, w):
    """<w, x_i> for the CSR row stored in data/indices[start:stop]."""
    z = 0.0
    for j in range(start, stop):
        z += data[j] * w[indices[j]]
    return z


@njit(cache=True)
def margins(data, indices, indptr, w, out):
    """out[i] = <w, x_i> for the CSR rows."""
    m = indptr.shape[0] - 1
    for i in range(m):
        z = row_dot(data, indices, indptr[i], indptr[i + 1], w)
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
        out[i] = z
    return out


@njit(cache=True)
def mean_loss(data, indices, indptr, w, y, code):
    """(1/m) sum_i loss(<w, x_i>, y_i)."""
    m = indptr.shape[0] - 1
    total = 0.0
    for i in range(m):
        z = row_dot(data, indices, indptr[i], indptr[i + 1], w)
        total += loss_value(code, z, y[i])
    return total / m


@njit(cache=True)
def mean_loss_grad(data, indices, indptr, w, y, code, grad):
    """Mean loss, and grad = (1/m) sum_i loss'(<w, x_i>, y_i) x_i (written into grad)."""
    m = indptr.shape[0] - 1
    grad[:] = 0.0
    total = 0.0
    for i in range(m):
        z = row_dot(data, indices, indptr[i], indptr[i + 1], w)
        total += loss_value(code, z, y[i])
        d = loss_deriv(code, z, y[i]) / m
        if d != 0.0:
            for j in range(indptr[i], indptr[i + 1]):
                grad[indices[j]] += d * data[j]
    return total / m


# ------------------------------------------------------------------------------ regularizer
# r(w) = ||w||_p^2 / (2(p-1)) is phi_p of rlmlib.pnorm: one overflow-safe implementation
# (max|w_i| factored out) serves the objective, the reference solver and the PGS chapter.
check_p = pnorm.check_p


def regularizer(w, p=2.0):
    """r(w) = ||w||_p^2 / (2(p-1)), computed by factoring out max|w_i| (no overflow)."""
    return pnorm.r(w, p)


def regularizer_grad(w, p=2.0):
    """grad r(w)_i = ||w||_p^(2-p) |w_i|^(p-1) sgn(w_i) / (p-1), without overflow; at p = 2
    it is w itself."""
    return pnorm.grad_r(w, p)


# -------------------------------------------------------------------------------- objective
def objective_rows(rows, y, w, sigma, code, p=2.0):
    """F(w) on already-checked rows (used by the solvers at checkpoints; no checks).
    At w = 0 (every solver's start) no margin needs the rows: O(m), not a pass over X."""
    if not w.any():
        z = np.zeros(y.shape[0])
        return sigma * pnorm._phi(w, p) + float(np.mean(loss_values(code, z, y, z.copy())))
    if is_compact(rows):
        z = decision_function_rows(rows, w)
        loss = float(np.mean(loss_values(code, z, y, np.empty_like(z))))
    else:
        loss = mean_loss(rows.data, rows.indices, rows.indptr, w, y, code)
    reg = pnorm._phi(w, p)  # scaled: a huge but finite w gives inf, not an overflow warning
    return sigma * reg + loss


def objective(X, y, w, *, sigma, loss, p=2.0):
    """F(w) = sigma * r(w) + (1/m) sum_i loss(<w, x_i>, y_i), with r the p-norm regularizer.

    For classification losses any two labels are mapped to -1/+1 in sorted order, as the
    solvers do.
    """
    code = loss_code(loss)
    sigma = check_positive("sigma", sigma)
    p = check_p(p)
    rows, yf, _ = check_X_y(X, y, task=loss_task(loss), compact_dense=True)
    w = check_weights(w, rows.n_features)
    return objective_rows(rows, yf, w, sigma, code, p)


# ---------------------------------------------------------------------------------- metrics
def decision_function_rows(rows, w):
    if is_compact(rows):  # dense rows in compact form: a matrix-vector product
        return dense_margins(rows.data, rows.n_features, w, np.empty(n_rows(rows)))
    out = np.empty(n_rows(rows))
    return margins(rows.data, rows.indices, rows.indptr, w, out)


def decision_function(X, w):
    """<w, x_i> for every row of X (dense or sparse)."""
    rows = as_rows(X, compact_dense=True)
    w = check_weights(w, rows.n_features)
    return decision_function_rows(rows, w)


def _labels_pm1(X, y, w, classes):
    rows = as_rows(X, compact_dense=True)
    w = check_weights(w, rows.n_features)
    if classes is None:
        yf, _ = check_y(y, n_rows(rows), task="binary")
    else:
        yf = check_test_set(X, y, rows.n_features, "binary", np.asarray(classes))[1]
    return rows, yf, w


def accuracy(X, y, w, classes=None):
    """Fraction of rows with sign(<w, x_i>) equal to the label (z > 0 predicts +1).

    Labels are mapped to -1/+1 in sorted order, or by ``classes`` (classes[0] <-> -1) when
    given, which allows a test set that holds only one of the two classes.
    """
    rows, yf, w = _labels_pm1(X, y, w, classes)
    z = decision_function_rows(rows, w)
    pred = np.where(z > 0.0, 1.0, -1.0)
    return float(np.mean(pred == yf))


def test_error(X, y, w, classes=None):
    """1 - accuracy."""
    return 1.0 - accuracy(X, y, w, classes)


test_error.__test__ = False   # not a test: pytest would collect it where it is imported by name


def mse(X, y, w):
    """Mean squared error (1/m) sum_i (<w, x_i> - y_i)^2."""
    rows = as_rows(X, compact_dense=True)
    w = check_weights(w, rows.n_features)
    yf, _ = check_y(y, n_rows(rows), task="regression")
    r = decision_function_rows(rows, w) - yf
    return float(np.dot(r, r) / r.shape[0])
