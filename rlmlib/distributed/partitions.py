"""Partitions of a data set that live on the workers of a Dask cluster.

A *partition* is a pair (X_k, y_k): X_k a scipy CSR matrix of m_k rows and n columns,
y_k a float array of m_k labels (-1/+1 for a classification loss, targets for the squared
loss). The distributed solvers take a list of Dask futures (or ``dask.delayed`` objects)
that resolve to partitions on the workers; they never bring a partition to the client:
what crosses the network is each partition's shape and row-norm bound (:func:`describe`),
weight vectors and scalars. The loaders below run on the workers (one task per file), so
a partition that lived on a lost worker is read again from its file (Dask's lineage).
"""
import numpy as np
import scipy.sparse as sp


def _read_npz(path):
    """(X, y) from an .npz holding a CSR matrix's data/indices/indptr/shape and y."""
    with np.load(path) as f:
        keys = set(f.files)
        need = {"data", "indices", "indptr", "shape", "y"}
        if not need <= keys:
            raise ValueError(f"partition file {path!r} lacks {sorted(need - keys)}: "
                             f"expected the arrays {sorted(need)} (save_npz_partition)")
        X = sp.csr_matrix((f["data"], f["indices"], f["indptr"]),
                          shape=tuple(int(s) for s in f["shape"]))
        return X, np.asarray(f["y"], dtype=np.float64)


def save_npz_partition(path, X, y):
    """Write one partition (rows X as CSR, labels y) to ``path`` (.npz).

    Parameters
    ----------
    path : str or path-like
        The file to write (NumPy's ``.npz`` format).
    X : array-like or scipy sparse matrix
        The partition's rows; stored as CSR float64.
    y : array-like
        Its labels, one per row.

    Returns
    -------
    None

    Examples
    --------
    >>> import os, tempfile, numpy as np, scipy.sparse as sp
    >>> from rlmlib.distributed.partitions import _read_npz
    >>> path = os.path.join(tempfile.mkdtemp(), "part0.npz")
    >>> save_npz_partition(path, sp.eye(3, format="csr"), [1, -1, 1])
    >>> X, y = _read_npz(path)
    >>> X.shape, y.tolist()
    ((3, 3), [1.0, -1.0, 1.0])
    """
    X = sp.csr_matrix(X, dtype=np.float64)
    np.savez(path, data=X.data, indices=X.indices, indptr=X.indptr,
             shape=np.array(X.shape), y=np.asarray(y, dtype=np.float64))


def _read_svmlight(path, n_features):
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(path, n_features=n_features, dtype=np.float64)
    return X.tocsr(), np.asarray(y, dtype=np.float64)


def _key(kind, i, path):
    """A task key naming the file, its size and time of change: a rewritten file is read
    again, an unchanged one is not read twice."""
    import os

    st = os.stat(path)
    return f"rlmlib-{kind}-{i}-{path}-{st.st_size}-{st.st_mtime_ns}"


def load_npz_partitions(client, paths):
    """One future per .npz file, each read by a worker (never on the client).

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    paths : list of str
        Files written by :func:`save_npz_partition`, one per partition; each worker
        must be able to read them (a shared file system).

    Returns
    -------
    list of distributed.Future
        One per file, resolving on a worker to the partition (X CSR, y).

    Examples
    --------
    >>> parts = load_npz_partitions(client, ["p0.npz", "p1.npz"])  # doctest: +SKIP
    >>> rlmlib.distributed.cocoa(parts, sigma=1e-3, client=client)  # doctest: +SKIP
    """
    return [client.submit(_read_npz, str(p), key=_key("npz", i, p))
            for i, p in enumerate(paths)]


def load_svmlight_partitions(client, paths, n_features):
    """One future per svmlight shard, each read by a worker; ``n_features`` is needed
    so that every shard has the same columns.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    paths : list of str
        svmlight shards, one per partition, readable by every worker.
    n_features : int
        The number of columns of the whole data set (a shard alone cannot tell it).

    Returns
    -------
    list of distributed.Future
        One per shard, resolving on a worker to the partition (X CSR, y).

    Examples
    --------
    >>> parts = load_svmlight_partitions(client, shards, n_features=47_236)  # doctest: +SKIP
    """
    return [client.submit(_read_svmlight, str(p), int(n_features),
                          key=_key("svm", i, p)) for i, p in enumerate(paths)]


def from_dask_array(client, X, y):
    """Futures of partitions from a dask array X (chunked by rows only, dense or sparse
    blocks) and a dask array y with the same row chunks: one partition per row block.

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    X : dask.array.Array
        The rows, chunked by rows only (one chunk of rows per partition).
    y : dask.array.Array
        The labels, with X's row chunks.

    Returns
    -------
    list of distributed.Future
        One per row chunk, resolving on a worker to the partition (X CSR, y).

    Raises
    ------
    ValueError
        If X is not 2-d or is chunked along its columns, or y's chunks differ from X's.

    Examples
    --------
    >>> parts = from_dask_array(client, X, y)  # doctest: +SKIP
    """
    import dask

    if X.ndim != 2 or len(X.chunks[1]) != 1:
        raise ValueError(f"X must be a 2-d dask array chunked by rows only, got chunks "
                         f"{X.chunks}: rechunk with X.rechunk({{1: -1}})")
    if y.ndim != 1 or tuple(y.chunks[0]) != tuple(X.chunks[0]):
        raise ValueError(f"y must be a 1-d dask array with X's row chunks {X.chunks[0]}, "
                         f"got {y.chunks}")
    xs = X.to_delayed().ravel()
    ys = y.to_delayed().ravel()
    parts = [dask.delayed(_to_partition)(a, b) for a, b in zip(xs, ys)]
    return client.compute(parts)


def _to_partition(X, y):
    return sp.csr_matrix(X, dtype=np.float64), np.asarray(y, dtype=np.float64)


def check_partition(part, k, loss):
    """``part`` validated as partitions[k]; returns (X CSR float64, y float64).

    Parameters
    ----------
    part : tuple
        (X, y) as a worker holds it.
    k : int
        Its index, for the messages ("partitions[k]: ...").
    loss : str
        The loss: a classification loss needs labels -1 or +1.

    Returns
    -------
    (scipy.sparse.csr_matrix, numpy.ndarray)

    Raises
    ------
    ValueError
        Naming partitions[k] and what is wrong: not a pair, X not CSR, a label count
        other than the rows', no rows, inconsistent CSR arrays, column indices out of
        range, non-finite values, labels other than -1/+1.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X, y = check_partition((sp.eye(2, format="csr"), np.array([1, -1])), 0, "hinge")
    >>> y.dtype
    dtype('float64')
    >>> check_partition((sp.eye(2, format="csr"), np.array([1, 0])), 3, "hinge")
    Traceback (most recent call last):
    ...
    ValueError: partitions[3]: labels must be -1 or +1 for loss='hinge', got [0, 1]
    """
    name = f"partitions[{k}]"
    if not (isinstance(part, tuple) and len(part) == 2):
        raise ValueError(f"{name} must be a pair (X, y), got {type(part).__name__}")
    X, y = part
    if not sp.issparse(X) or X.format != "csr":
        raise ValueError(f"{name}: X must be a scipy CSR matrix, got "
                         f"{type(X).__name__}")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"{name}: y must have one label per row of X ({X.shape[0]}), "
                         f"got shape {y.shape}")
    if X.shape[0] == 0:
        raise ValueError(f"{name} has no rows")
    if X.indptr.shape[0] != X.shape[0] + 1 or X.indptr[-1] != X.data.shape[0] or \
            np.any(np.diff(X.indptr) < 0) or X.data.shape[0] != X.indices.shape[0]:
        raise ValueError(f"{name}: X's CSR arrays are inconsistent (indptr, indices, data)")
    if X.indices.size and (X.indices.min() < 0 or X.indices.max() >= X.shape[1]):
        raise ValueError(f"{name}: X has column indices outside [0, {X.shape[1]})")
    if not (np.all(np.isfinite(X.data)) and np.all(np.isfinite(y))):
        raise ValueError(f"{name}: X and y must be finite")
    if loss != "squared" and not np.all(np.abs(y) == 1.0):
        raise ValueError(f"{name}: labels must be -1 or +1 for loss={loss!r}, got "
                         f"{np.unique(y)[:5].tolist()}")
    X = sp.csr_matrix((X.data.astype(np.float64, copy=False),
                       X.indices.astype(np.int64, copy=False),
                       X.indptr.astype(np.int64, copy=False)), shape=X.shape)
    return X, y.astype(np.float64, copy=False)


def describe(part, k, loss):
    """(m_k, n, max row norm) of partitions[k], computed where it lives.

    Parameters
    ----------
    part, k, loss
        As for :func:`check_partition`, which it calls first.

    Returns
    -------
    (int, int, float)
        The partition's rows, columns and largest row norm: all the client learns of it.

    Raises
    ------
    ValueError
        As :func:`check_partition`.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> describe((sp.csr_matrix(np.array([[3.0, 4.0]])), np.array([1.0])), 0, "hinge")
    (1, 2, 5.0)
    """
    X, y = check_partition(part, k, loss)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return X.shape[0], X.shape[1], float(norms.max())
