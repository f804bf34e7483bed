"""Rows and the checks of data (DESIGN.md, "Checks"): the one home of the row representation.

Data reach the kernels as rows in CSR form, ``Rows(data, indices, indptr, n_features,
sparse)``: float64 values, int32 column indices, int64 row pointers. Dense input is passed as
a CSR *view* of itself (``data = X.ravel()`` without a copy, ``indices`` repeating
``0..n-1``), the indirection scikit-learn's ``ArrayDataset`` uses, so one kernel serves dense
and sparse input. Scalar arguments are checked in :mod:`rlmlib.core.checks`.
"""
import contextlib
import itertools
import math
import os
from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit

from .checks import SIGMA_MIN, _show, check_choice, check_int
from .cpus import usable_cores

_RowsBase = namedtuple("Rows", ["data", "indices", "indptr", "n_features", "sparse"])


class Rows(_RowsBase):
    """Rows of a data matrix in CSR form, as every kernel takes them.

    Attributes
    ----------
    data : numpy.ndarray of float64
        The stored values, row after row (float32 when a float32 sparse matrix was checked
        with ``keep_float32=True``: lbfgs's one-pass gradient widens each entry exactly).
    indices : numpy.ndarray of int32
        Column of each value (for compact dense rows, ``arange(n)`` once).
    indptr : numpy.ndarray of int64, length m + 1
        Row i is ``data[indptr[i]:indptr[i + 1]]``.
    n_features : int
        Number of columns n.
    sparse : bool
        Whether the caller passed a scipy.sparse matrix.
    stats : RowStats or None
        What the validation pass of :func:`as_rows` measured on these rows (max row norm,
        smallest subnormal entry), so that :func:`check_scale` never reads X again; None
        for rows built otherwise (a subset, a permutation: computed when asked). Not a tuple
        field: ``data, indices, indptr, n, sparse = rows`` keeps working.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, rlmlib
    >>> rows = rlmlib.as_rows(sp.csr_matrix(np.array([[0.0, 2.0], [3.0, 0.0]])))
    >>> rows.data.tolist(), rows.indices.tolist(), rows.indptr.tolist(), rows.n_features
    ([2.0, 3.0], [1, 0], [0, 1, 2], 2)
    >>> rows.stats.max_norm
    3.0
    """

    stats = None  # set on the instance by as_rows (the tuple's fields stay five)


RowStats = namedtuple("RowStats", ["max_norm", "tiny", "zeros"], defaults=(0,))
RowStats.__doc__ = """The scale of checked rows, measured by the validation pass.

max_norm is max_i ||x_i||_2 (inf when a norm is beyond the double range); tiny is the
smallest non-zero |x_ij| when it is below 2^-1022 (subnormal), inf when no entry is; zeros
the number of stored zeros (every zero of a dense X), so that the non-zero count d m is
``data.size - zeros`` without another pass."""


@njit(cache=True, fastmath={"reassoc"})
def all_finite(a):
    """Whether every entry of the 1-D float64 array a is finite, in one pass.

    x - x is 0 for finite x and NaN for NaN or +-inf; NaN survives the sum. Only reassociation
    is allowed (so the sum vectorizes); NaN and inf keep their IEEE meaning."""
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] - a[i]
    return acc == 0.0


def _is_sparse(X):
    # Avoid importing scipy (slow) when the input is not sparse: only scipy.sparse objects
    # come from a module under "scipy.sparse".
    mod = type(X).__module__ or ""
    if not mod.startswith("scipy.sparse"):
        return False
    import scipy.sparse as sp

    return sp.issparse(X)


def unsigned_index(rows):
    """(indices, indptr) of ``rows`` viewed as unsigned integers, without a copy.

    numba checks every array access through a signed index for wraparound (a negative index
    counts from the end); through an unsigned index it does not. In the memory-bound
    one-example-at-a-time loops this made an epoch on RCV1-like data about 15 % faster
    (measured A/B in one process)."""
    return rows.indices.view(np.uint32), rows.indptr.view(np.uint64)


def n_rows(rows):
    """Number of examples m of a :class:`Rows`."""
    return rows.indptr.shape[0] - 1


def is_compact(rows):
    """Whether dense rows are in compact form (``indices`` holds 0..n-1 once, not m times).

    Only kernels that take a ``dense`` flag (``rlmlib.sgd``) and the objective/metric helpers
    accept the compact form. For m = 1 both forms coincide."""
    return (not rows.sparse) and rows.indices.shape[0] != rows.data.shape[0]


@njit(cache=True)
def _compressed_problem(indices, indptr, n_major, n_minor, nnz):
    """First fault of a compressed (CSR/CSC) structure, in one O(nnz) pass: returns
    (code, position, value) with code 0 when the structure is sound; 1 indptr[0] != 0,
    2 indptr decreasing at position, 3 indptr[-1] != nnz (= len(data)) or beyond len(indices),
    4 an index outside [0, n_minor) at position."""
    if indptr[0] != 0:
        return 1, 0, np.int64(indptr[0])
    for i in range(n_major):
        if indptr[i + 1] < indptr[i]:
            return 2, i + 1, np.int64(indptr[i + 1])
    if indptr[n_major] != nnz or nnz > indices.shape[0]:
        return 3, n_major, np.int64(indptr[n_major])
    lo = 0
    hi = 0
    for j in range(nnz):  # branch-free min/max: vectorizes
        c = indices[j]
        lo = min(lo, c)
        hi = max(hi, c)
    if lo < 0 or hi >= n_minor:
        for j in range(nnz):  # locate the first fault (only on the error path)
            c = indices[j]
            if c < 0 or c >= n_minor:
                return 4, j, np.int64(c)
    return 0, 0, np.int64(0)


@njit(cache=True)
def _first_outside(c, size):
    """Position of the first entry of the integer array c outside [0, size), -1 when none:
    one read of c with a branch-free min and max (vectorizes, no temporaries), the search
    only on the error path."""
    lo = np.int64(0)
    hi = np.int64(0)
    for j in range(c.shape[0]):
        v = np.int64(c[j])
        lo = min(lo, v)
        hi = max(hi, v)
    if lo < 0 or hi >= size:
        for j in range(c.shape[0]):
            if c[j] < 0 or c[j] >= size:
                return j
    return -1


def _int_array(name, what, a):
    a = np.asarray(a)
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise ValueError(f"{name} is a malformed sparse matrix: its {what} must be a 1-D "
                         f"integer array, got dtype {a.dtype} and shape {a.shape}")
    if a.dtype.kind == "u" or a.dtype.itemsize < 4:  # int32 and int64 are checked as is
        a = a.astype(np.int64)
    return np.ascontiguousarray(a)


def _raise_structure(name, fmt, code, pos, val, indptr, nnz, shape):
    """The ValueError for fault ``code`` of a CSR/CSC structure (nothing for code 0)."""
    F = fmt.upper()
    minor = shape[1] if fmt == "csr" else shape[0]
    if code == 1:
        raise ValueError(f"{name} is a malformed {F} matrix: indptr[0] must be 0, got {val}")
    if code == 2:
        raise ValueError(
            f"{name} is a malformed {F} matrix: indptr must be non-decreasing, "
            f"got indptr[{pos}] = {val} < indptr[{pos - 1}] = {int(indptr[pos - 1])}"
            if val < int(indptr[pos - 1]) else
            f"{name} is a malformed {F} matrix: indptr must be non-decreasing up to the "
            f"number of stored values {nnz}, got indptr[{pos}] = {val}")
    if code == 3:
        raise ValueError(f"{name} is a malformed {F} matrix: indptr[-1] must equal the "
                         f"number of stored values {nnz}, got {val}")
    if code == 4:
        kind = "column" if fmt == "csr" else "row"
        raise ValueError(f"{name} is a malformed {F} matrix: {kind} index {val} at position "
                         f"{pos} is outside [0, {minor}) for shape {shape}")


def _compressed_arrays(X, name):
    """(indptr, indices, nnz, n_major, n_minor) of a CSR/CSC matrix after the O(1) checks
    of their types and lengths (the O(nnz) ones are the caller's)."""
    fmt = X.format
    m, n = X.shape
    major, minor = (m, n) if fmt == "csr" else (n, m)
    what = "rows" if fmt == "csr" else "columns"
    indptr = _int_array(name, "indptr", X.indptr)
    indices = _int_array(name, "indices", X.indices)
    nnz = np.asarray(X.data).shape[0] if np.ndim(X.data) == 1 else -1
    if nnz < 0:
        raise ValueError(f"{name} is a malformed sparse matrix: data must be 1-D, got "
                         f"shape {np.shape(X.data)}")
    if indptr.shape[0] != major + 1:
        raise ValueError(
            f"{name} is a malformed {fmt.upper()} matrix: indptr must have {major + 1} "
            f"entries ({what} + 1) for shape {X.shape}, got {indptr.shape[0]}")
    if indices.shape[0] != nnz:
        raise ValueError(
            f"{name} is a malformed {fmt.upper()} matrix: indices and data must have the "
            f"same length, got {indices.shape[0]} and {nnz}")
    return indptr, indices, nnz, major, minor


def _coo_coords(X):
    """(row, col) of a COO matrix or array (scipy's ``coords`` where it has them)."""
    return getattr(X, "coords", None) or (X.row, X.col)


def _check_structure(X, name):
    """Validate the index structure of a scipy.sparse matrix in O(nnz) (numba, one pass),
    so that no kernel and no scipy converter reads out of bounds. CSR and CSC: indptr of
    length major+1, starting at 0, non-decreasing, ending at len(data) = len(indices);
    indices in [0, n_minor). COO: row and col in range and as long as data. BSR: scipy's
    full check. Other formats (LIL, DOK, DIA) keep their structure in Python objects."""
    fmt = getattr(X, "format", None)
    m, n = X.shape
    if fmt in ("csr", "csc"):
        indptr, indices, nnz, major, minor = _compressed_arrays(X, name)
        code, pos, val = _compressed_problem(indices, indptr, major, minor, nnz)
        _raise_structure(name, fmt, code, pos, val, indptr, nnz, X.shape)
    elif fmt == "coo":
        coords = _coo_coords(X)
        nnz = np.shape(X.data)[0] if np.ndim(X.data) == 1 else -1
        for axis, (c, size) in enumerate(zip(coords, (m, n))):
            c = _int_array(name, ("row", "col")[axis], c)
            if c.shape[0] != nnz:
                raise ValueError(f"{name} is a malformed COO matrix: row, col and data must "
                                 f"have the same length, got {c.shape[0]} and {nnz}")
            at = _first_outside(c, np.int64(size))
            if at >= 0:
                raise ValueError(
                    f"{name} is a malformed COO matrix: {('row', 'column')[axis]} index "
                    f"{int(c[at])} is outside [0, {size}) for shape {X.shape}")
    elif fmt == "bsr":
        try:
            X.check_format(full_check=True)
        except Exception as e:
            raise ValueError(f"{name} is a malformed BSR matrix: {e}") from e


def as_rows(X, name="X", compact_dense=False, keep_float32=False):
    """Check a data matrix and return it as :class:`Rows` (CSR arrays for the kernels).

    Accepts a 2-D array-like of real numbers or any scipy.sparse matrix/array (converted to
    CSR, float64). Rejects non-2-D input, non-numeric data, empty data, NaN and inf.
    With ``compact_dense=True`` dense input keeps ``indices = arange(n)`` once instead of
    m copies (see ``rlmlib.core.rows.is_compact``), for kernels that index dense rows directly.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        The data.
    name : str
        The argument's name in error messages.
    compact_dense : bool
        Keep dense rows compact (see above).
    keep_float32 : bool
        Keep the float32 values of a sparse matrix as they are (no float64 copy): for
        callers whose kernels widen each entry exactly (``rlmlib.lbfgs``); the pass and
        its statistics are the same as on the float64 copy. A matrix with duplicate
        entries is still summed in float64.

    Returns
    -------
    Rows
        float64 data, int32 indices, int64 indptr; no copy of a C-ordered float64 array.

    Raises
    ------
    ValueError
        For data that is not 2-D, empty, not finite, has more than 2^31 − 1 columns, or a
        sparse matrix with an inconsistent structure.
    TypeError
        For data that does not hold real numbers (strings, None, objects).

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rows = rlmlib.as_rows([[1.0, 2.0], [3.0, 4.0]])
    >>> rows.indices.tolist(), rows.indptr.tolist(), rows.sparse
    ([0, 1, 0, 1], [0, 2, 4], False)
    >>> rlmlib.as_rows([[1.0, np.nan]])
    Traceback (most recent call last):
    ...
    ValueError: X must not contain NaN or inf, found nan
    """
    if _is_sparse(X):
        if X.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got a sparse array of shape {X.shape}")
        m, n = X.shape
        if m == 0 or n == 0:
            raise ValueError(f"{name} must be non-empty, got shape {X.shape}")
        if X.dtype.kind not in "biuf":
            raise TypeError(
                f"{name} must hold real numbers, got a sparse matrix of dtype {X.dtype}"
                + (" (complex values are refused: pass the real part or the modulus "
                   "explicitly)" if X.dtype.kind == "c" else "")
            )
        if n > np.iinfo(np.int32).max:
            raise ValueError(f"{name} has {n} columns; at most 2**31-1 are supported")
        if X.format == "coo":
            rows = _coo_rows_in_order(X, name, keep_float32)
            if rows is not None:
                return rows
        if X.format != "csr":
            _check_structure(X, name)  # before tocsr: scipy's converters trust the structure
            X = X.tocsr()  # CSC, COO, LIL, DOK, BSR, ... become CSR
        return _csr_rows(X, name, keep_float32)

    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"{name} must be a 2-D array of real numbers, got {_show(X)}")
    try:
        A = np.asarray(_numeric_pandas(X))
    except Exception as e:  # ragged lists and the like
        raise ValueError(f"{name} must be a 2-D array of real numbers, got {_show(X)}") from e
    if A.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must hold real numbers, got an array of dtype {A.dtype} "
            f"(e.g. {_first_non_real(A)})"
            + ("; complex values are refused: pass the real part or the modulus explicitly"
               if A.dtype.kind == "c" else "")
        )
    if A.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (m examples x n features), got an array of shape {A.shape}; "
            "reshape a single example with X.reshape(1, -1) or a single feature with "
            "X.reshape(-1, 1)"
        )
    m, n = A.shape
    if m == 0 or n == 0:
        raise ValueError(f"{name} must be non-empty, got shape {A.shape}")
    if A.dtype == np.float64 and A.flags.f_contiguous and not A.flags.c_contiguous:
        A, (bad, R, nsub, nzero) = scan_fortran(A)  # the C-ordered copy and the pass in one
        data = A.reshape(-1)
    else:
        A = np.ascontiguousarray(A, dtype=np.float64)  # no copy when C-ordered float64
        data = A.reshape(-1)  # a view
        bad, R, nsub, nzero = scan_dense(data, np.uint64(m), np.uint64(n))  # the one pass
    if bad >= 0:
        raise ValueError(f"{name} must not contain NaN or inf, found {data[bad]}")
    indices = np.arange(n, dtype=np.int32)
    if not compact_dense:
        indices = np.tile(indices, m)
    indptr = np.arange(0, m * n + 1, n, dtype=np.int64)
    rows = Rows(data, indices, indptr, int(n), False)
    rows.stats = _stats(data, R, nsub, nzero)
    return rows


def _first_non_real(A):
    """The first entry of an array of a non-real dtype that is not a real number, shown
    (for an object array, the entry that made it one; its first entry may be a float)."""
    if not A.size:
        return "empty"
    for v in A.ravel()[:100000]:
        if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
            return _show(v)
    return _show(A.ravel()[0])


def _stats(data, R, nsub, nzero):
    """RowStats from the pass's maximum norm and counts of subnormal entries and zeros."""
    tiny = math.inf
    if nsub:  # rare: the smallest subnormal, on the error path of check_scale
        a = np.abs(data)
        tiny = float(a[(a != 0.0) & (a < SIGMA_MIN)].min())
    return RowStats(float(R), tiny, int(nzero))


def _coo_rows_in_order(X, name, keep_float32):
    """Rows of a COO matrix whose entries are stored row by row with strictly increasing
    columns in each row (the order ``tocoo()`` of a canonical CSR leaves, and the usual
    order of matrices built row by row): its ``col`` and ``data`` as they are (no copy of
    float64 values and int32 columns) with a row pointer built in one pass over ``row``
    (:func:`_rows_pointer`), then the one validation pass. These are the arrays scipy's
    ``tocsr()`` would build (its conversion keeps the stored order, and such rows need no
    sum), so the results are the same to the bit, without its copy and its check for
    canonical rows. None for anything else (rows out of order, unsorted or repeated
    columns, a structure fault, NaN or inf): the caller then checks and converts as for
    any other format, with that format's error messages."""
    m, n = X.shape
    r, c = (np.asarray(a) for a in _coo_coords(X))
    data = np.asarray(X.data)
    if (data.ndim != 1 or r.ndim != 1 or c.ndim != 1 or r.dtype.kind not in "iu"
            or c.dtype != np.int32 or not (r.shape[0] == c.shape[0] == data.shape[0])
            or not r.flags.c_contiguous or not c.flags.c_contiguous):
        return None
    indptr = np.empty(m + 1, np.int64)
    if not _rows_pointer(r, np.int64(m), indptr):
        return None
    return _csr_arrays_rows(data, c, indptr, X.shape, name, keep_float32, in_order=True)


@njit(cache=True)
def _rows_pointer(r, m, indptr):
    """Whether the row indices r (of stored entries) never decrease and lie in [0, m),
    with indptr filled as the CSR row pointer of those entries when they do: one pass."""
    nnz = r.shape[0]
    if nnz > 0 and (r[0] < 0 or r[nnz - 1] >= m):
        return False
    cur = np.int64(0)
    indptr[0] = 0
    prev = np.int64(0)
    for k in range(nnz):
        v = np.int64(r[k])
        if v < prev:
            return False
        while cur < v:
            cur += 1
            indptr[cur] = k
        prev = v
    while cur < m:
        cur += 1
        indptr[cur] = nnz
    return True


def _csr_rows(X, name, keep_float32=False):
    """Rows of a CSR matrix after the one validation pass (structure, finiteness, scale,
    duplicates): the caller's arrays as they are (no copy of float64 data and int32
    indices), column indices in any order within a row (no kernel needs them sorted:
    DESIGN.md, "One validation pass"); only a matrix holding duplicate entries is summed
    and sorted once, on a copy (scipy's meaning of duplicates, their sum, for every
    kernel)."""
    indptr, indices, _, _, _ = _compressed_arrays(X, name)
    return _csr_arrays_rows(X.data, indices, indptr, X.shape, name, keep_float32)


def _csr_arrays_rows(data, indices, indptr, shape, name, keep_float32=False,
                     in_order=False):
    """:func:`_csr_rows` of the CSR arrays (data, indices, indptr) of a matrix of shape
    ``shape`` whose lengths are checked; ``in_order``: None unless every row's columns
    strictly increase and the pass finds no fault (:func:`_coo_rows_in_order`)."""
    m, n = shape
    nnz = indices.shape[0]
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    data = np.ascontiguousarray(data, dtype=np.float32 if keep_float32 and
                                data.dtype == np.float32 else np.float64)  # upcast
    fault, pos, R, nsub, nzero, ordered, dups = scan_csr(
        data, indices, indptr.view(np.uint64), np.uint64(m), np.uint64(n))
    if in_order and (fault or not ordered):
        return None
    if 1 <= fault <= 3:
        _raise_structure(name, "csr", fault, pos, int(indptr[pos]), indptr, nnz, shape)
    if fault == 4:
        _raise_structure(name, "csr", fault, pos, int(indices[pos]), indptr, nnz, shape)
    if fault == 5:
        raise ValueError(f"{name} must not contain NaN or inf, found {data[pos]}")
    if dups:
        import scipy.sparse as sp

        data = np.asarray(data, dtype=np.float64)  # sums in float64, whatever X holds
        # rows whose columns never decrease: scipy's sums straight into new arrays (numpy's
        # own: numba's allocations of this size took 3 times as long in page faults)
        out, cols = np.empty(nnz - dups), np.empty(nnz - dups, np.int32)
        ptr = np.empty(m + 1, np.int64)
        if _sum_adjacent_duplicates(data, indices, indptr, out, cols, ptr) == nnz - dups:
            C = sp.csr_matrix((out, cols, ptr), shape=shape, copy=False)
        else:
            C = sp.csr_matrix((data.copy(), indices.copy(), indptr.copy()), shape=shape)
            C.has_canonical_format = False
            C.sum_duplicates()  # sorts each row and adds duplicates up, once
        return _csr_rows(C, name)
    indices = np.ascontiguousarray(indices, dtype=np.int32)
    rows = Rows(data, indices, indptr, int(n), True)
    rows.stats = _stats(data, R, nsub, nzero)
    return rows


@njit(cache=True)
def _sum_adjacent_duplicates(data, indices, indptr, out, cols, ptr):
    """scipy's ``sum_duplicates`` of a checked CSR matrix whose every row has
    non-decreasing columns (scipy then skips its sort): each run of equal columns becomes
    one entry, its values added left to right from the first (as scipy's
    ``csr_sum_duplicates``; sums that are zero are kept), written into ``out`` (float64),
    ``cols`` and ``ptr`` (m + 1 entries), whose length is the number of entries after
    the sum. Returns that number, or -1 at the first row that has a strict descent or
    when ``out`` is too short (the caller then sorts, as scipy does)."""
    m = indptr.shape[0] - 1
    k_out = out.shape[0]
    ptr[0] = 0
    k = 0
    for i in range(m):
        jj = indptr[i]
        end = indptr[i + 1]
        while jj < end:
            c = indices[jj]
            x = np.float64(data[jj])
            jj += 1
            while jj < end and indices[jj] == c:
                x += data[jj]
                jj += 1
            if (jj < end and indices[jj] < c) or k >= k_out:
                return np.int64(-1)
            out[k] = x
            cols[k] = c
            k += 1
        ptr[i + 1] = k
    return np.int64(k)


#: rows whose sum of squares lies in [_NORM_LO, inf) take sqrt(sum) as their norm; the
#: others (empty, tiny, huge, or holding NaN/inf) are read again, scaled by their largest
#: entry. Squares that underflow in a row whose sum is above 1e-200 change it by < 1e-100.
_NORM_LO = 1e-200


@njit(cache=True)
def _slow_row(data, a, b):
    """(norm, first non-finite position or -1) of data[a:b], scaled by its largest entry so
    that no square over- or underflows (the rare rows the fast path leaves)."""
    M = 0.0
    for j in range(a, b):
        x = np.float64(data[j])
        if not math.isfinite(x):
            return math.nan, np.int64(j)
        M = max(M, abs(x))
    if M == 0.0:
        return 0.0, np.int64(-1)
    acc = 0.0
    for j in range(a, b):
        u = np.float64(data[j]) / M
        acc += u * u
    return M * math.sqrt(acc), np.int64(-1)


@njit(cache=True)
def _fold_row(data, a, b, acc, A, Rs, bad):
    """(A, Rs, bad) after row data[a:b] whose sum of squares is acc: A the largest sum of
    squares of the rows the fast path takes (the norm is sqrt(A) once at the end, not a
    square root per row: sqrt is monotone and correctly rounded, so max sqrt = sqrt max),
    Rs the largest norm of the rows read again, bad the first NaN/inf position (-1: none)."""
    if _NORM_LO <= acc < math.inf:
        return max(A, acc), Rs, bad
    r, pos = _slow_row(data, a, b)
    if pos >= 0:
        return A, Rs, (bad if bad >= 0 else pos)
    return A, max(Rs, r), bad


@njit(cache=True, nogil=True)
def _row_duplicates(indices, a, b, marker, stamp):
    """How many entries of the CSR row indices[a:b] repeat a column met earlier in the row,
    without sorting: ``marker[c]`` holds the stamp of the last row that met column c, and
    the stamps (row numbers) differ from row to row, so the array is never cleared. The
    caller has checked every column of the row to lie in [0, len(marker)), so they are
    read as unsigned (no wraparound checks). A scatter over n entries: on RCV1-like rows in
    random order it costs about one SpMV (DESIGN.md, "One validation pass")."""
    dups = 0
    for j in range(a, b):
        c = np.uint64(indices[j])
        dups += marker[c] == stamp
        marker[c] = stamp
    return dups


@njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "contract"})
def _scan_block(data, indices, indptr, nnz, n, r0, r1):
    """The validation pass over CSR rows r0..r1-1 (the loop of :func:`_scan_csr`, one block
    of :func:`_scan_csr_par`): (first i + 1 with indptr[i + 1] < indptr[i] or beyond nnz, or
    0; A; Rs; bad; n_subnormal; n_zero; descents; duplicates; lo; hi) as :func:`_fold_row`
    and :func:`_scan_csr` define them. A row whose columns neither strictly increase nor
    strictly decrease is read once more while it is in cache, for duplicate columns
    (:func:`_row_duplicates`, with a marker array of n entries allocated at the block's
    first such row: rows in either order never pay for it). A block stops at its first
    structure fault, before reading data through it; its other results are then
    meaningless."""
    A = 0.0
    Rs = 0.0
    nsub = 0
    nzero = 0
    lo = np.int64(0)
    hi = np.int64(0)
    descents = 0
    dups = 0
    marker = np.empty(0, np.int64)
    bad = np.int64(-1)
    for i in range(r0, r1):
        a = indptr[i]
        b = indptr[i + 1]
        if b < a or b > nnz:  # also when indptr[i] is beyond nnz (then b < a or b > nnz)
            return np.int64(i + 1), A, Rs, bad, nsub, nzero, descents, dups, lo, hi
        acc = 0.0
        ns = 0
        nz = 0
        u = 0
        v = 0
        prev = np.int64(-1)
        for j in range(a, b):  # branch-free: vectorizes
            x = np.float64(data[j])  # float32 data (keep_float32) widened exactly
            acc += x * x
            ax = abs(x)
            ns += (ax < 2.2250738585072014e-308) & (ax != 0.0)
            nz += ax == 0.0
            c = np.int64(indices[j])
            lo = min(lo, c)
            hi = max(hi, c)
            u += np.int64(c <= prev)
            v += np.int64(c >= prev)
            prev = c
        nsub += ns
        nzero += nz
        descents += u
        # a row that neither strictly increases nor strictly decreases (the order scipy's
        # products leave) may hold a duplicate: look, while it is in cache, once every
        # column so far is known to lie in [0, n) (else the verdict reports the fault)
        # (a non-decreasing row's duplicates are its u entries equal to the one before,
        # a non-increasing row's its v - 1: counted without the marker)
        if u > 0 and v > 1:
            if v == b - a:
                dups += u
            elif u == b - a - 1:
                dups += v - 1
            elif lo >= 0 and hi < np.int64(n):
                if marker.shape[0] == 0:
                    marker = np.full(np.int64(n), np.int64(-1))
                dups += _row_duplicates(indices, a, b, marker, np.int64(i))
        A, Rs, bad = _fold_row(data, a, b, acc, A, Rs, bad)
    return np.int64(0), A, Rs, bad, nsub, nzero, descents, dups, lo, hi


@njit(cache=True)
def _scan_verdict(data, indices, n, row_fault, A, Rs, bad, nsub, nzero, descents, dups,
                  lo, hi):
    """(fault, pos, R, n_subnormal, n_zero, sorted, duplicates) of :func:`_scan_csr` from
    the results of its row loop (``row_fault``: the first i + 1 whose indptr entry is bad,
    or 0)."""
    if row_fault > 0:  # the rows before it were scanned, not the others: no counts
        return 2, row_fault, 0.0, 0, 0, True, 0
    R = max(math.sqrt(A), Rs)
    if lo < 0 or hi >= np.int64(n):
        for j in range(data.shape[0]):  # locate the first fault (only on the error path)
            c = np.int64(indices[j])
            if c < 0 or c >= np.int64(n):
                return 4, np.int64(j), R, nsub, nzero, True, 0
    if bad >= 0:
        return 5, bad, R, nsub, nzero, True, 0
    return 0, np.int64(0), R, nsub, nzero, descents == 0, dups


@njit(cache=True)
def _scan_csr(data, indices, indptr, m, n):
    """The one read-only pass over CSR rows (DESIGN.md, "Checks"): structure, finiteness
    and scale together, O(nnz), vectorized (indptr is an unsigned view: no wraparound
    checks). Returns (fault, pos, R, n_subnormal, n_zero, sorted, duplicates): fault 0
    sound, 1 indptr[0] != 0, 2 indptr decreasing or beyond nnz at pos, 3 indptr[-1] != nnz,
    4 a column index outside [0, n) at pos, 5 a NaN or inf at pos (structure faults win;
    the first in storage order). R = max_i ||x_i||_2 (inf beyond the double range),
    n_subnormal the count of non-zero |x_ij| < 2^-1022, n_zero the count of stored zeros,
    sorted whether every row's columns strictly increase, duplicates the number of entries
    that repeat a column met earlier in their row (found without sorting: 0 for any matrix
    free of duplicates, sorted or not)."""
    nnz = np.uint64(data.shape[0])
    if indptr[0] != 0:
        return 1, np.int64(0), 0.0, 0, 0, True, 0
    if indptr[m] != nnz:
        return 3, np.int64(m), 0.0, 0, 0, True, 0
    f, A, Rs, bad, nsub, nzero, descents, dups, lo, hi = _scan_block(
        data, indices, indptr, nnz, n, np.int64(0), np.int64(m))  # the types of the blocks'
    return _scan_verdict(data, indices, n, f, A, Rs, bad, nsub, nzero, descents, dups, lo,
                         hi)


def _run_blocks(scan, args, m, threads, blocks):
    """[scan(*args, r0, r1) for the ``blocks`` equal runs of rows r0..r1-1 of 0..m-1], the
    runs taken one after the other by ``threads`` Python threads (this one and ``threads -
    1`` of :func:`_pass_pool`'s), each call with the GIL released (``scan`` is ``nogil``).
    Plain threads, not numba's threading layer: GNU OpenMP's spinning threads cost several
    times the pass on a loaded machine, and a process that used it cannot fork any more."""
    m = int(m)
    step = -(-m // blocks)
    out = [None] * blocks
    take = itertools.count()  # next() is atomic under the GIL: each block scanned once
    errors = []

    def work():
        try:
            for k in iter(take.__next__, None):
                if k >= blocks:
                    return
                r0 = min(m, k * step)
                out[k] = scan(*args, np.int64(r0), np.int64(min(m, r0 + step)))
        except BaseException as e:  # raised in the calling thread below
            errors.append(e)

    pool = _pass_pool() if threads > 1 else None
    helpers = [pool.submit(work) for _ in range(threads - 1)]
    work()
    for h in helpers:
        h.result()
    if errors:
        raise errors[0]
    return out


_POOL = [None, None]  # (process id, executor)


def _pass_pool():
    """The threads that help :func:`_run_blocks`: :data:`MAX_PASS_THREADS` - 1 of them,
    started at the first parallel pass of a process and kept (starting a thread at every
    pass cost about a tenth of the pass over a 20,000 x 300 array); a forked child starts
    its own (its parent's threads do not exist there). A helper whose turn comes after
    the blocks are all taken returns at once, so concurrent passes share them safely."""
    pid = os.getpid()
    if _POOL[0] != pid:
        _POOL[:] = [pid, ThreadPoolExecutor(max_workers=MAX_PASS_THREADS - 1,
                                            thread_name_prefix="rlmlib-pass")]
    return _POOL[1]


def _scan_csr_par(data, indices, indptr, m, n, threads, blocks):
    """:func:`_scan_csr` on ``threads`` threads (:func:`_run_blocks`), bit for bit the same
    result: each row is summed by the same compiled loop (:func:`_scan_block`), the blocks'
    results are combined by max (A, Rs, lo, hi: exact in any order) and integer sums, and
    the first fault / NaN position is the lowest block's that has one."""
    nnz = np.uint64(data.shape[0])
    if indptr[0] != 0:
        return 1, np.int64(0), 0.0, 0, 0, True, 0
    if indptr[m] != nnz:
        return 3, np.int64(m), 0.0, 0, 0, True, 0
    out = _run_blocks(_scan_block, (data, indices, indptr, nnz, n), m, threads, blocks)
    f = next((o[0] for o in out if o[0] > 0), 0)
    bad = next((o[3] for o in out if o[3] >= 0), -1)
    return _scan_verdict(data, indices, n, np.int64(f), max(o[1] for o in out),
                         max(o[2] for o in out), np.int64(bad), sum(o[4] for o in out),
                         sum(o[5] for o in out), sum(o[6] for o in out),
                         sum(o[7] for o in out), np.int64(min(o[8] for o in out)),
                         np.int64(max(o[9] for o in out)))


#: stored values from which the validation pass runs on several threads (below, starting
#: them costs more than they save: see DESIGN.md, "One validation pass")
PARALLEL_NNZ = 2_000_000
#: row blocks per thread: a thread that the machine's load holds back leaves its blocks
#: to the others
BLOCKS_PER_THREAD = 4
#: at most this many threads: the pass is bound by memory bandwidth, which a few cores
#: saturate (two threads took 0.32 of one SpMV where one took 0.55, on this 2-core VM;
#: the cap of 4 is not measured here)
MAX_PASS_THREADS = 4


#: threads of the validation pass set by :func:`fixed_pass_threads` (None: automatic)
_FIXED_THREADS = None


def pass_threads():
    """Threads of the validation pass: ``numba.config.NUMBA_NUM_THREADS`` (the environment
    variable ``NUMBA_NUM_THREADS``, else the machine's cores), at most the cores this
    process may use (:func:`rlmlib.core.cpus.usable_cores`: its affinity and its control
    group's CPU quota) and :data:`MAX_PASS_THREADS`; inside :func:`fixed_pass_threads`,
    the number it fixed. Read from the configuration, not ``numba.get_num_threads()``,
    which would start numba's threading layer."""
    if _FIXED_THREADS is not None:
        return _FIXED_THREADS
    return max(1, min(int(numba.config.NUMBA_NUM_THREADS), usable_cores(),
                      MAX_PASS_THREADS))


@contextlib.contextmanager
def fixed_pass_threads(threads):
    """Within the block the validation pass runs on ``threads`` threads (1: serially),
    whatever :func:`pass_threads` would choose; the results are the same to the bit. For
    timing code whose set-up must cost the same in every run (``rlmlib.book.bench``).
    Process-wide: not meant for blocks that run in several threads at once."""
    global _FIXED_THREADS
    threads = check_int("threads", threads)
    old, _FIXED_THREADS = _FIXED_THREADS, threads
    try:
        yield
    finally:
        _FIXED_THREADS = old


def _parallel_threads(size, m):
    """Threads for a pass over ``size`` stored values in ``m`` rows: 1 (serial) below
    :data:`PARALLEL_NNZ` or with one row, else :func:`pass_threads`."""
    return pass_threads() if size >= PARALLEL_NNZ and m > 1 else 1


def scan_csr(data, indices, indptr, m, n):
    """:func:`_scan_csr`'s result, on :func:`_parallel_threads` threads (the same result
    bit for bit on any number of them)."""
    threads = _parallel_threads(data.shape[0], m)
    if threads > 1:
        return _scan_csr_par(data, indices, indptr, m, n, threads,
                             BLOCKS_PER_THREAD * threads)
    return _scan_csr(data, indices, indptr, m, n)


#: dense entries (about 128 KiB) whose zero/subnormal count is taken in one loop, after
#: their rows' sums of squares, while they are still in the second-level cache
DENSE_BLOCK = 16384


@njit(cache=True, nogil=True, fastmath={"reassoc", "nsz", "contract"})
def _dense_rows(data, n, r0, r1, A, Rs, bad, nsub, nzero):
    """(A, Rs, bad, nsub, nzero) after dense rows data[i n:(i + 1) n], i = r0..r1-1, folded
    into the given ones (A and Rs as :func:`_fold_row` defines them, bad the first NaN/inf
    position or -1, nsub and nzero the counts of subnormal entries and of zeros).

    Rows are taken a block of about :data:`DENSE_BLOCK` entries at a time: first each
    row's sum of squares (reassociated, so vectorized: its last bit depends on the vector
    width LLVM picks, as before; splitting the count out of this loop changed the last
    bit of R on 22 of 300 random matrices), then one branch-free loop over the whole
    block, still in cache, counting the entries whose bits of |x| lie below those of the
    smallest normal double 2^-1022 (zero or subnormal): one long loop vectorizes with one
    reduction per block, where the count fused into each row's loop cost a reduction per
    row (the serial pass 1.62 products X @ w, now 1.16; 0.8 for the sums alone). Only a
    block holding such an entry is read a third time, from cache, to tell its zeros from
    its subnormals. The one row loop of every dense pass (C order, Fortran order, serial,
    on threads)."""
    bits = data.view(np.int64)
    rb = max(np.int64(1), np.int64(np.uint64(DENSE_BLOCK) // n))  # rows per block
    for b0 in range(r0, r1, rb):
        b1 = min(b0 + rb, r1)
        for i in range(b0, b1):
            a = np.uint64(i) * n  # unsigned: no wraparound checks in the loop below
            b = a + n
            acc = 0.0
            for j in range(a, b):  # vectorizes (reassociated)
                x = data[j]
                acc += x * x
            A, Rs, bad = _fold_row(data, a, b, acc, A, Rs, bad)
        a = np.uint64(b0) * n
        b = np.uint64(b1) * n
        small = 0
        for j in range(a, b):  # branch-free: vectorizes
            small += (bits[j] & 0x7FFFFFFFFFFFFFFF) < 0x0010000000000000
        if small > 0:
            nz = 0
            for j in range(a, b):
                nz += data[j] == 0.0
            nzero += nz
            nsub += small - nz
    return A, Rs, bad, nsub, nzero


@njit(cache=True, nogil=True)
def _scan_dense_block(data, n, r0, r1):
    """The validation pass over dense rows data[i n:(i + 1) n], i = r0..r1-1: (A, Rs, first
    NaN/inf position or -1, count of subnormal entries, count of zeros), A and Rs as
    :func:`_fold_row` defines them (:func:`_dense_rows`)."""
    return _dense_rows(data, n, r0, r1, 0.0, 0.0, np.int64(-1), 0, 0)


#: rows of a Fortran-ordered array copied to C order together: the tile's rows (TILE * n
#: values) stay in cache while they are written column by column and then scanned
F_TILE_ROWS = 128


@njit(cache=True, nogil=True)
def _scan_fortran_block(cols, out, m, n, r0, r1):
    """:func:`_scan_dense_block` of rows r0..r1-1 of the Fortran-ordered m x n array whose
    column j is cols[j m:(j + 1) m], copied into C order out[i n:(i + 1) n] on the way, a
    tile of :data:`F_TILE_ROWS` rows at a time: each column's piece of the tile is read
    contiguously, the tile's rows are written while they sit in cache and scanned there
    by :func:`_dense_rows` (the same results as the C-ordered copy's pass). A copy and a
    pass for numpy's transposing copy, whose writes (or reads) stride through memory."""
    A = 0.0
    Rs = 0.0
    nsub = 0
    nzero = 0
    bad = np.int64(-1)
    for t0 in range(r0, r1, F_TILE_ROWS):
        t1 = min(t0 + F_TILE_ROWS, r1)
        for j in range(n):
            s = np.uint64(j) * m
            for i in range(t0, t1):
                out[np.uint64(i) * n + np.uint64(j)] = cols[s + np.uint64(i)]
        A, Rs, bad, nsub, nzero = _dense_rows(out, n, t0, t1, A, Rs, bad, nsub, nzero)
    return A, Rs, bad, nsub, nzero


@njit(cache=True)
def _scan_dense(data, m, n):
    """The validation pass over dense rows data[i n:(i + 1) n]: (first NaN/inf position or
    -1, max row norm, count of subnormal entries, count of zeros), as :func:`_scan_csr`."""
    A, Rs, bad, nsub, nzero = _scan_dense_block(data, np.uint64(n), np.int64(0),
                                                np.int64(m))
    return bad, max(math.sqrt(A), Rs), nsub, nzero


def _combine_dense(out):
    """(bad, R, nsub, nzero) of blocks' (A, Rs, bad, nsub, nzero): max (exact in any order),
    integer sums, the lowest block's first NaN/inf."""
    bad = next((o[2] for o in out if o[2] >= 0), -1)
    R = max(math.sqrt(max(o[0] for o in out)), max(o[1] for o in out))
    return np.int64(bad), R, sum(o[3] for o in out), sum(o[4] for o in out)


def _scan_dense_par(data, m, n, threads, blocks):
    """:func:`_scan_dense` on ``threads`` threads, bit for bit the same result (as
    :func:`_scan_csr_par`)."""
    return _combine_dense(_run_blocks(_scan_dense_block, (data, np.uint64(n)), m, threads,
                                      blocks))


def scan_dense(data, m, n):
    """:func:`_scan_dense`'s result, on :func:`_parallel_threads` threads."""
    threads = _parallel_threads(data.shape[0], m)
    if threads > 1:
        return _scan_dense_par(data, m, n, threads, BLOCKS_PER_THREAD * threads)
    return _scan_dense(data, m, n)


def scan_fortran(F, threads=None, blocks=None):
    """(C-ordered copy of the Fortran-ordered float64 array F, :func:`scan_dense`'s result
    on it), in one pass (:func:`_scan_fortran_block`; on :func:`_parallel_threads` threads
    unless ``threads`` is given): what ``np.ascontiguousarray(F)`` and the pass over it
    return, to the bit."""
    m, n = F.shape
    out = np.empty((m, n))
    cols = F.T.reshape(-1)  # a view: F's columns one after the other
    args = (cols, out.reshape(-1), np.uint64(m), np.uint64(n))
    if threads is None:
        threads = _parallel_threads(F.size, m)
    if threads > 1:
        res = _run_blocks(_scan_fortran_block, args, m, threads,
                          blocks or BLOCKS_PER_THREAD * threads)
    else:
        res = [_scan_fortran_block(*args, np.int64(0), np.int64(m))]
    return out, _combine_dense(res)


def _numeric_pandas(X):
    """A pandas DataFrame or Series whose columns are all numeric, nullable extension dtypes
    included (Float64, Int64, boolean: numpy would make them dtype object), as a float64
    array (a missing value becomes NaN, which the finiteness check then refuses, naming it);
    anything else unchanged. pandas is never imported."""
    if not (hasattr(X, "to_numpy") and hasattr(X, "dtypes")):
        return X
    dtypes = list(X.dtypes) if hasattr(X, "columns") else [X.dtype]
    if not dtypes or any(getattr(d, "kind", "O") not in "biuf" for d in dtypes):
        return X
    return X.to_numpy(dtype=np.float64, na_value=np.nan)


def check_y(y, m=None, task="binary", name="y"):
    """Check labels/targets. Returns ``(y_float64, classes)``.

    task='binary': exactly two distinct labels of any type; the smaller (sorted order) maps to
    -1, the larger to +1, and ``classes`` keeps them (``classes[0]`` <-> -1).
    task='regression': real, finite targets; ``classes`` is None.
    """
    check_choice("task", task, ("binary", "regression"))
    if y is None or isinstance(y, (str, bytes)):
        raise TypeError(f"{name} must be a 1-D array, got {_show(y)}")
    if _is_sparse(y):
        raise TypeError(f"{name} must be a dense 1-D array, got a sparse matrix")
    yv = np.asarray(_numeric_pandas(y))
    if yv.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {yv.shape}")
    if yv.shape[0] == 0:
        raise ValueError(f"{name} must be non-empty, got 0 labels")
    if m is not None and yv.shape[0] != m:
        raise ValueError(
            f"X and {name} must have the same number of examples, got X with {m} rows and "
            f"{name} with {yv.shape[0]} entries"
        )
    if task == "regression":
        if yv.dtype.kind == "c":
            raise TypeError(f"{name} must hold real numbers for regression, got complex "
                            f"values of dtype {yv.dtype}: pass the real part explicitly")
        if yv.dtype.kind not in "biuf":
            raise TypeError(f"{name} must hold real numbers for regression, got dtype {yv.dtype}")
        yf = np.ascontiguousarray(yv, dtype=np.float64)
        if not np.isfinite(yf).all():
            raise ValueError(f"{name} must not contain NaN or inf, found {yf[~np.isfinite(yf)][0]}")
        return yf, None
    if yv.dtype.kind == "c":
        raise TypeError(f"{name} must hold real labels, got complex values of dtype "
                        f"{yv.dtype}: pass the real part explicitly")
    if (yv.dtype == np.float64 and type(yv) is np.ndarray and yv.flags.c_contiguous
            and yv.flags.writeable and _plus_minus_one(yv)):
        return yv, np.array([-1.0, 1.0])  # already the kernels' labels: no copy (as X)
    if yv.dtype.kind in "iuf" and yv.dtype.itemsize in (4, 8):  # one numba pass, usual case
        yf = np.empty(yv.shape[0])
        lo, hi, ok = _two_labels(yv, yf)
        if ok and lo != hi:
            return yf, np.array([lo, hi], dtype=yv.dtype)
    if yv.dtype.kind == "f" and not np.isfinite(yv).all():
        raise ValueError(f"{name} must not contain NaN or inf, found {yv[~np.isfinite(yv)][0]}")
    if yv.dtype.kind == "O":
        if any(v is None for v in yv):
            raise ValueError(f"{name} must not contain None")
        try:
            classes = np.unique(yv)
        except TypeError as e:
            raise TypeError(f"{name} holds labels that cannot be sorted: {e}") from e
    elif yv.dtype.kind in "biuf":  # numbers: two extremes and a check, O(m), no sort
        lo, hi = yv.min(), yv.max()
        two = lo != hi and bool(np.all((yv == lo) | (yv == hi)))
        classes = np.array([lo, hi]) if two else np.unique(yv)
    else:
        classes = np.unique(yv)
    if classes.shape[0] == 1:
        raise ValueError(
            f"{name} must contain two classes for binary classification, got a single class "
            f"{_show(classes[0])}"
        )
    if classes.shape[0] > 2:
        raise ValueError(
            f"{name} must contain exactly two classes for binary classification, got "
            f"{classes.shape[0]} distinct labels: {_show(classes.tolist())}"
        )
    yf = np.where(yv == classes[1], 1.0, -1.0)
    return yf, classes


@njit(cache=True)
def _plus_minus_one(yv):
    """Whether every label is -1.0 or +1.0 and both occur: one read-only pass (branch-free:
    vectorizes), so float64 labels that are already -1/+1 need no mapped copy."""
    neg = False
    pos = False
    ok = True
    for i in range(yv.shape[0]):
        v = yv[i]
        neg |= v == -1.0
        pos |= v == 1.0
        ok &= (v == -1.0) | (v == 1.0)
    return ok and neg and pos


@njit(cache=True)
def _two_labels(yv, out):
    """(lo, hi, ok) of numeric labels in two passes over y: out[i] = +1 where y_i = hi, else
    -1; ok when every label is lo or hi (NaN never is: the caller's slow path reports it)."""
    lo = yv[0]
    hi = yv[0]
    for i in range(yv.shape[0]):
        lo = min(lo, yv[i])
        hi = max(hi, yv[i])
    ok = True
    for i in range(yv.shape[0]):
        v = yv[i]
        out[i] = 1.0 if v == hi else -1.0
        ok &= (v == lo) | (v == hi)
    return lo, hi, ok


def check_X_y(X, y, task="binary", compact_dense=False, keep_float32=False):
    """Check data and labels together, as every solver does before its first step.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        The data (see :func:`as_rows`).
    y : array-like, shape (m,)
        task='binary': exactly two distinct labels of any type; the smaller (sorted order)
        maps to -1, the larger to +1. task='regression': real, finite targets.
    task : {'binary', 'regression'}
        What ``y`` holds.
    compact_dense, keep_float32 : bool
        As in :func:`as_rows`.

    Returns
    -------
    rows : Rows
        The data in CSR form.
    y : numpy.ndarray of float64, shape (m,)
        Labels -1/+1, or the targets.
    classes : numpy.ndarray or None
        The two original labels (``classes[0]`` is -1), None for regression.

    Raises
    ------
    ValueError, TypeError
        As :func:`as_rows`, and for labels of the wrong length, not two distinct values
        (binary), or not finite real numbers (regression).

    Examples
    --------
    >>> import rlmlib
    >>> rows, y, classes = rlmlib.check_X_y([[1.0], [2.0], [3.0]], ["b", "a", "b"])
    >>> y.tolist(), classes.tolist()
    ([1.0, -1.0, 1.0], ['a', 'b'])
    >>> rlmlib.check_X_y([[1.0], [2.0]], [1, 2, 3])
    Traceback (most recent call last):
    ...
    ValueError: ...
    """
    rows = as_rows(X, compact_dense=compact_dense, keep_float32=keep_float32)
    yf, classes = check_y(y, n_rows(rows), task=task)
    return rows, yf, classes


def row_scale(rows):
    """:class:`RowStats` ``(max_norm, tiny)`` of checked rows: what :func:`as_rows`'s
    validation pass measured (``rows.stats``, no pass over X), or, for rows built otherwise
    (a subset, a permutation), one pass now. Solvers hand it to :func:`check_scale`."""
    if rows.stats is not None:
        return rows.stats
    if is_compact(rows) or not rows.sparse:
        n = rows.n_features
        m = rows.data.shape[0] // n
        bad, R, nsub, nzero = scan_dense(rows.data, np.uint64(m), np.uint64(n))
    else:
        _, _, R, nsub, nzero, _, _ = scan_csr(rows.data, rows.indices,
                                           rows.indptr.view(np.uint64),
                                     np.uint64(n_rows(rows)), np.uint64(rows.n_features))
    return _stats(rows.data, R, nsub, nzero)


def max_row_norm(rows):
    """max_i ||x_i||_2 of checked rows (inf when a norm is beyond the double range)."""
    return row_scale(rows)[0]


def loss_limit(m):
    """Largest loss value (and |loss'| * ||x||) allowed with m examples: 2^1020 / m, so a sum
    over the m examples stays 8 times below the largest double."""
    return 2.0 ** 1020 / max(1, m)


def _z_max(code, limit):
    """Largest |margin| (or |z - y|) at which the loss value stays below ``limit``."""
    from .losses import ABSOLUTE, EXP_CUT, EXPONENTIAL, HINGE, LOGISTIC
    if code in (HINGE, LOGISTIC, ABSOLUTE):
        return limit / 2.0
    if code == EXPONENTIAL:  # e^600 (1 + (-600 - s)) beyond the cut
        return limit / math.exp(EXP_CUT) / 2.0
    return math.sqrt(limit)  # squared, squared_hinge: z^2 / 2


def check_scale(rows, y, code, w_bound, why, solver, extra=(), stats=None):
    """The one data-scale check of the solvers (DESIGN.md, "Validated ranges").

    ``w_bound`` bounds ||w||_2 over the whole run (each solver derives its own; ``why`` says
    how, e.g. '1/sqrt(sigma)'). With R = max_i ||x_i||_2 every margin satisfies |<w, x_i>| <=
    R * w_bound; that bound plus max|y| (regression) must keep the loss below
    L = 2^1020 / m (:func:`loss_limit`), and |loss'| * R must stay below L too, so no value,
    gradient or sum over the m examples can overflow. ``extra`` holds further (value,
    description) pairs a solver's kernel forms (a step's length, an internal scale factor),
    each of which must stay below 2^960. ``stats`` is :func:`row_scale`'s result when the
    caller has it; else :func:`row_scale` (``rows.stats``, no pass over X). Returns R;
    raises ValueError saying which quantity is too large and what to change."""
    from .losses import LOSSES, NAMES, loss_deriv
    R, tiny = (row_scale(rows) if stats is None else stats)[:2]
    name = NAMES[code]
    if tiny < SIGMA_MIN:
        raise ValueError(f"X holds a subnormal value {tiny:.3g} (below the smallest normal "
                         f"double 2**-1022 ~ 2.2e-308), whose relative precision is lost and "
                         f"which {solver}'s scalings cannot represent: scale X up or set such "
                         f"entries to 0")
    if not math.isfinite(R):
        raise ValueError(f"X is too large for {solver}: the Euclidean norm of a row is beyond "
                         f"the double range (largest |x_ij| = {np.max(np.abs(rows.data)):.3g}); "
                         f"scale X down")
    limit = loss_limit(n_rows(rows))
    zmax = _z_max(code, limit)
    regression = LOSSES[name]["task"] == "regression"
    ymax = float(np.max(np.abs(y))) if regression and y is not None and y.size else 0.0
    if ymax > zmax / 2:
        raise ValueError(f"y is too large for the {name} loss: max|y| = {ymax:.3g}, at most "
                         f"{zmax / 2:.3g} keeps the loss representable; scale y down")
    zb = R * w_bound
    if not zb + ymax <= zmax:
        raise ValueError(
            f"X is too large for {solver} with this sigma: margins |<w, x>| can reach "
            f"max||x|| * {why} = {R:.3g} * {w_bound:.3g} = {zb:.3g}, beyond {zmax:.3g} "
            f"where the {name} loss and its sums over the examples stay representable; "
            f"scale X down or raise sigma")
    z = zb + ymax
    d = abs(loss_deriv(code, -z, 1.0)) if not regression else z
    if not d * R <= limit:
        raise ValueError(
            f"X is too large for {solver} with this sigma: gradients |loss'| * ||x|| can reach "
            f"{d * R:.3g} for the {name} loss, beyond {limit:.3g}; scale X down or raise sigma")
    for value, what in extra:
        if not value <= 2.0 ** 960:
            raise ValueError(f"X is too large for {solver} with this sigma: {what} can reach "
                             f"{value:.3g}, beyond 2**960; scale X down or raise sigma")
    return R


def check_weights(w, n_features, name="w"):
    """A weight vector: 1-D, finite, float64, of length n_features."""
    wv = np.asarray(w)
    if wv.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {wv.dtype}")
    if wv.ndim != 1 or wv.shape[0] != n_features:
        raise ValueError(
            f"{name} must be a 1-D array of length n_features={n_features}, got shape {wv.shape}"
        )
    wv = np.ascontiguousarray(wv, dtype=np.float64)
    if not np.isfinite(wv).all():
        raise ValueError(f"{name} must not contain NaN or inf")
    return wv


def check_test_set(X_test, y_test, n_features, task, classes):
    """Optional test set of a solver: both or neither; returns (Rows, y_float64) or None."""
    if X_test is None and y_test is None:
        return None
    if X_test is None or y_test is None:
        raise ValueError("X_test and y_test must be given together (or both left None)")
    rows = as_rows(X_test, name="X_test", compact_dense=True)
    if rows.n_features != n_features:
        raise ValueError(
            f"X_test must have the training data's n_features={n_features} columns, got "
            f"{rows.n_features}"
        )
    yv = np.asarray(y_test)
    if task == "regression":
        yf, _ = check_y(yv, n_rows(rows), task="regression", name="y_test")
        return rows, yf
    if yv.ndim != 1 or yv.shape[0] != n_rows(rows):
        raise ValueError(
            f"y_test must be 1-D with one label per row of X_test ({n_rows(rows)}), got shape "
            f"{yv.shape}"
        )
    known = np.isin(yv, classes)
    if not known.all():
        raise ValueError(
            f"y_test must only hold the training labels {_show(classes.tolist())}, found "
            f"{_show(yv[~known][0])}"
        )
    return rows, np.where(yv == classes[1], 1.0, -1.0)


