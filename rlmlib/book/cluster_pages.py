"""The data set, shards and cluster the two pages of the part "Training on a cluster" share
(``chapters/distributed``), and the distributed benchmark's shards
(``rlmlib.book.bench.distributed``).
"""
import logging
from pathlib import Path

import numpy as np
import scipy.sparse as sp


def page_problem(m=2000, n=200, density=0.05, seed=0):
    """The pages' sparse synthetic classification set.

    Parameters
    ----------
    m, n : int
        Rows and columns.
    density : float
        Fraction of non-zero entries (standard normal values).
    seed : int
        Seeds the values, the labels' weights and noise (``seed + 1`` the pattern).

    Returns
    -------
    (scipy.sparse.csr_matrix, numpy.ndarray, float)
        X, labels ±1 (the sign of a random linear model plus noise), and σ = 1e-2.

    Examples
    --------
    >>> X, y, sigma = page_problem(m=50, n=10)
    >>> X.shape, sorted(set(y.tolist())), sigma
    ((50, 10), [-1.0, 1.0], 0.01)
    """
    rng = np.random.default_rng(seed)
    X = sp.random(m, n, density=density, random_state=seed + 1, format="csr")
    X.data = rng.standard_normal(X.data.shape[0])
    y = np.where(X @ rng.standard_normal(n) + 0.3 * rng.standard_normal(m) > 0, 1.0, -1.0)
    return X, y, 1e-2


def write_shards(folder, X, y, K):
    """Write X, y as K row blocks of (nearly) equal size, one ``.npz`` each.

    Parameters
    ----------
    folder : str or path-like
        Where to write ``K{K}-part{k}.npz`` (``rlmlib.distributed.save_npz_partition``).
    X : scipy sparse matrix or array
        The rows.
    y : array-like
        The labels.
    K : int
        The number of blocks.

    Returns
    -------
    (list of pathlib.Path, numpy.ndarray)
        The files and the rows of each block.

    Examples
    --------
    >>> import tempfile
    >>> X, y, _ = page_problem(m=10, n=4)
    >>> paths, rows = write_shards(tempfile.mkdtemp(), X, y, 3)
    >>> [p.name for p in paths], rows.tolist()
    (['K3-part0.npz', 'K3-part1.npz', 'K3-part2.npz'], [3, 3, 4])
    """
    from rlmlib.distributed import save_npz_partition

    cut = np.linspace(0, X.shape[0], K + 1).astype(int)
    paths = []
    for k in range(K):
        p = Path(folder) / f"K{K}-part{k}.npz"
        save_npz_partition(p, X[cut[k]:cut[k + 1]], y[cut[k]:cut[k + 1]])
        paths.append(p)
    return paths, np.diff(cut)


def local_cluster(workers=2, **kw):
    """A ``LocalCluster`` of single-threaded worker *processes* and its client, with no
    dashboard and its logs silenced (a page must print nothing on stderr).

    Parameters
    ----------
    workers : int
        Worker processes.
    **kw
        More ``LocalCluster`` arguments (e.g. ``memory_limit``).

    Returns
    -------
    (distributed.Client, distributed.LocalCluster)

    Examples
    --------
    >>> client, cluster = local_cluster(workers=2)   # doctest: +SKIP
    >>> client.close(); cluster.close()              # doctest: +SKIP
    """
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.CRITICAL, **kw)
    return Client(cluster), cluster
