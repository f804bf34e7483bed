"""Row kernels shared by the solvers: <w, x>, w + c x and the diagonal updates, on one row
stored either as a compact dense row (feature j at offset a + j) or as a CSR row.

Inlined into the solvers' loops (``inline="always"``); the numba cache is keyed to every
source file of the package (``rlmlib/__init__.py``), so an edit here recompiles them.
"""
from numba import njit


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
