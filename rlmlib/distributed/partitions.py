"""Partitions of a data set that live on the workers of a Dask cluster.

A *partition* is a pair (X_k, y_k): X_k a scipy CSR matrix of m_k rows and n columns,
y_k a float array of m_k labels (-1/+1 for a classification loss, targets for the squared
loss). The distributed solvers take a list of Dask futures (or ``dask.delayed`` objects)
that resolve to partitions on the workers; they never bring a partition to the client:
what crosses the network is each partition's shape and row-norm bound (:func:`describe`),
weight vectors and scalars. The loaders below run on the workers (one task per file), so
a partition that lived on a lost worker is read again from its file (Dask's lineage).

Memory: before a worker reads a partition it compares the partition's size (the arrays'
bytes, from the .npz's zip directory; an svmlight shard's file size) with what its memory
limit leaves, and refuses with a ``MemoryError`` naming the partition, the size and the
limit (:func:`_check_fits`) instead of pausing or being killed mid-read.
"""
import numpy as np
import scipy.sparse as sp


def _fmt_bytes(b):
    """``b`` bytes as a short string (kB, MB, GB: powers of 1000).

    Examples
    --------
    >>> _fmt_bytes(1234), _fmt_bytes(5.5e8)
    ('1.2 kB', '550.0 MB')
    """
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= f:
            return f"{b / f:.1f} {unit}"
    return f"{int(b)} B"


def _worker_memory():
    """(memory limit, bytes in use, threshold fraction, address) of the Dask worker running
    the calling task; None outside a worker or when the worker has no limit. The fraction
    is where the worker stops running tasks: its pause fraction, else its terminate
    fraction (Dask's ``distributed.worker.memory`` settings), else 1."""
    try:
        from distributed import get_worker

        w = get_worker()
    except (ImportError, ValueError):
        return None
    limit = getattr(getattr(w, "memory_manager", None), "memory_limit", None)
    if not limit:
        return None
    import dask
    import psutil

    fracs = [dask.config.get(f"distributed.worker.memory.{k}", False)
             for k in ("pause", "terminate")]
    frac = min([f for f in fracs if f] or [1.0])
    return int(limit), psutil.Process().memory_info().rss, float(frac), w.address


def _check_fits(name, nbytes, what):
    """Refuse (``MemoryError`` naming ``name``, ``nbytes`` and the worker's limit) when a
    partition of ``nbytes`` would push the worker running this task past the point where
    it stops (:func:`_worker_memory`); nothing outside a worker with a limit.

    Examples
    --------
    >>> _check_fits("partitions[0]", 10 ** 12, "its arrays")   # not on a worker: no check
    """
    mem = _worker_memory()
    if mem is None:
        return
    limit, used, frac, addr = mem
    if used + nbytes > frac * limit:
        raise MemoryError(
            f"{name}: {what} take {_fmt_bytes(nbytes)}, but worker {addr} has "
            f"{_fmt_bytes(used)} in use of its memory limit {_fmt_bytes(limit)} and stops "
            f"at {frac:.0%} of it: the partition cannot fit; give the workers more "
            f"memory or split the data into more, smaller partitions")


def _npz_bytes(path):
    """The bytes of the arrays in an .npz file (uncompressed sizes, from its zip
    directory, without reading the arrays)."""
    import zipfile

    with zipfile.ZipFile(path) as z:
        return sum(i.file_size for i in z.infolist())


def _read_npz(path, k=0):
    """(X, y) from an .npz holding a CSR matrix's data/indices/indptr/shape and y, read
    as partitions[k] (refused by :func:`_check_fits` when it cannot fit the worker)."""
    _check_fits(f"partitions[{k}] ({path})", _npz_bytes(path), "its arrays")
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


def write_synthetic_shard(path, k, rows, n, seed=0):
    """Write partitions[k] of a synthetic classification set to ``path`` (.npz) from the
    task that calls it (on a worker: the rows are made there, never on the client).

    Parameters
    ----------
    path : str or path-like
        The file to write.
    k : int
        The partition's index: its rows are drawn from the seed (seed, k).
    rows, n : int
        Its rows and columns: dense Gaussian entries / √n, stored as CSR.
    seed : int
        Draws w_true (the same for every shard); labels are the sign of ⟨w_true, x⟩
        plus noise.

    Returns
    -------
    int
        The bytes of the partition's arrays (data, indices, indptr, y).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s0.npz")
    >>> b = write_synthetic_shard(path, 0, rows=10, n=4)
    >>> X, y = _read_npz(path)
    >>> X.shape, 0 < _npz_bytes(path) - b < 1000   # the file also holds headers, shape
    ((10, 4), True)
    """
    w_true = np.random.default_rng(seed).standard_normal(n)
    rng = np.random.default_rng((seed, k))
    data = rng.standard_normal(rows * n) / np.sqrt(n)
    indices = np.tile(np.arange(n, dtype=np.int32), rows)
    indptr = np.arange(0, rows * n + 1, n, dtype=np.int64)
    y = np.sign(data.reshape(rows, n) @ w_true + 0.3 * rng.standard_normal(rows))
    y[y == 0] = 1.0
    np.savez(path, data=data, indices=indices, indptr=indptr, shape=np.array([rows, n]),
             y=y)
    return data.nbytes + indices.nbytes + indptr.nbytes + y.nbytes


def synthetic_shards(client, folder, K, rows, n, seed=0):
    """K shards of :func:`write_synthetic_shard`, each written by a task on one of the
    cluster's workers (the client never holds the rows).

    Parameters
    ----------
    client : distributed.Client
        The cluster's client.
    folder : str or path-like
        A folder the workers can write and read (a shared file system).
    K, rows, n, seed
        K shards of ``rows`` rows and n columns (:func:`write_synthetic_shard`).

    Returns
    -------
    (list of str, list of int)
        The shards' paths and the bytes of each partition's arrays.

    Examples
    --------
    >>> paths, sizes = synthetic_shards(client, "/shared", 4, 10_000, 50)  # doctest: +SKIP
    """
    import os

    paths = [os.path.join(str(folder), f"synthetic-{seed}-{k}-{rows}x{n}.npz")
             for k in range(K)]
    sizes = client.gather([client.submit(write_synthetic_shard, p, k, rows, n, seed,
                                         pure=False) for k, p in enumerate(paths)])
    return paths, sizes


def _read_svmlight(path, n_features, k=0):
    import os

    from sklearn.datasets import load_svmlight_file

    _check_fits(f"partitions[{k}] ({path})", os.path.getsize(path),
               "its file's bytes (about its arrays' size)")
    X, y = load_svmlight_file(path, n_features=n_features, dtype=np.float64)
    return X.tocsr(), np.asarray(y, dtype=np.float64)


def _key(kind, i, path):
    """A task key naming the file, its size and time of change: a rewritten file is read
    again, an unchanged one is not read twice."""
    import os

    st = os.stat(path)
    return f"rlmlib-{kind}-{i}-{path}-{st.st_size}-{st.st_mtime_ns}"


def _spread(client, i):
    """Where partition i is read first: worker i mod W of the workers sorted by address
    (so that K partitions spread evenly, as data that only fit spread out need), a loose
    restriction: a lost worker's partitions are read again on another."""
    workers = sorted(client.scheduler_info().get("workers", {}))
    if not workers:
        return {}
    return {"workers": [workers[i % len(workers)]], "allow_other_workers": True}


def load_npz_partitions(client, paths):
    """One future per .npz file, each read by a worker (never on the client); file k
    goes to worker k mod W first (an even spread), to another if that one is lost.

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
    return [client.submit(_read_npz, str(p), i, key=_key("npz", i, p),
                          **_spread(client, i)) for i, p in enumerate(paths)]


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
    return [client.submit(_read_svmlight, str(p), int(n_features), i,
                          key=_key("svm", i, p), **_spread(client, i))
            for i, p in enumerate(paths)]


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
    if X.data.dtype != np.float64:
        # a copy only then: the partition is checked by every task that reads it, and a
        # copy per task would need its size again in the worker's memory
        X = sp.csr_matrix((X.data.astype(np.float64), X.indices, X.indptr),
                          shape=X.shape)
    return X, y.astype(np.float64, copy=False)


def describe(part, k, loss):
    """(m_k, n, max row norm, bytes) of partitions[k], computed where it lives.

    Parameters
    ----------
    part, k, loss
        As for :func:`check_partition`, which it calls first.

    Returns
    -------
    (int, int, float, int)
        The partition's rows, columns, largest row norm and the bytes of its arrays: all
        the client learns of it.

    Raises
    ------
    ValueError
        As :func:`check_partition`.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> describe((sp.csr_matrix(np.array([[3.0, 4.0]])), np.array([1.0])), 0, "hinge")
    (1, 2, 5.0, 40)
    """
    X, y = check_partition(part, k, loss)
    nbytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes + y.nbytes
    return X.shape[0], X.shape[1], _max_row_norm(X), int(nbytes)


def _max_row_norm(X, block=1 << 16):
    """max_i ‖x_i‖ of a CSR matrix, by blocks of rows: a partition that only just fits
    its worker's memory leaves no room for a squared copy of all its values."""
    best = 0.0
    for a in range(0, X.shape[0], block):
        ptr = X.indptr[a:min(X.shape[0], a + block) + 1]
        d = X.data[ptr[0]:ptr[-1]]
        if d.size:
            starts = (ptr[:-1] - ptr[0])[np.diff(ptr) > 0]
            best = max(best, float(np.add.reduceat(d * d, starts).max()))
    return float(np.sqrt(best))
