"""Shared fixtures: small dense/sparse binary and regression problems."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib  # noqa: F401  (first: it sets NUMBA_CACHE_DIR before any test imports numba)


def make_binary(m=120, n=8, seed=0, density=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    if density is not None:
        X *= rng.random((m, n)) < density
    w = rng.standard_normal(n)
    y = np.where(X @ w + 0.5 * rng.standard_normal(m) > 0, 1.0, -1.0)
    return X, y


@pytest.fixture
def binary():
    return make_binary()


@pytest.fixture
def binary_sparse():
    X, y = make_binary(m=200, n=30, seed=1, density=0.2)
    return X, sp.csr_matrix(X), y


@pytest.fixture
def regression():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((100, 6))
    y = X @ rng.standard_normal(6) + 0.1 * rng.standard_normal(100)
    return X, y


@pytest.fixture(scope="session")
def breast_cancer_std():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return X, y


@pytest.fixture(scope="session")
def dask_client():
    """One Dask cluster for the distributed tests (tests/test_distributed.py and
    tests/test_distributed_registry.py): two single-threaded worker processes, 1 GiB
    each; SCHEDULER=tcp://host:port runs them on that cluster instead (its workers must
    see this machine's temporary files). Started on first use, so the other tests never
    pay for it; the default client, which the registered solvers use without client=."""
    import logging
    import os

    distributed = pytest.importorskip("distributed")
    if os.environ.get("SCHEDULER"):
        cl = distributed.Client(os.environ["SCHEDULER"])
        yield cl
        cl.close()
        return
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       memory_limit="1GiB", dashboard_address=":0",
                                       silence_logs=logging.CRITICAL)
    cl = distributed.Client(cluster)
    yield cl
    cl.close()
    cluster.close()
