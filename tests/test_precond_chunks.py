"""rlmlib.precondition on a dask.array of rows, built chunk by chunk (issue 12, item 4)."""
import numpy as np
import pytest

import rlmlib

da = pytest.importorskip("dask.array")


def _data(m=240, n=12, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n)) * np.linspace(3.0, 0.1, n)   # a decaying spectrum
    y = np.where(X @ rng.standard_normal(n) + 0.3 * rng.standard_normal(m) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("m", [None, 40])
def test_chunked_build_equals_the_in_memory_one(m):
    X, y = _data()
    Xd = da.from_array(X, chunks=(37, 5))          # row blocks of 37, columns split too
    P = rlmlib.precondition(Xd, sigma=1e-2, beta=0.25, m=m, seed=3)
    Q = rlmlib.precondition(X, sigma=1e-2, beta=0.25, m=m, seed=3)
    assert P.chunked and not getattr(Q, "chunked", False)
    if m is not None:
        np.testing.assert_array_equal(P.sample, Q.sample)    # the same rows drawn
    np.testing.assert_allclose(P.eigenvalues, Q.eigenvalues, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(P.norms2, Q.norms2, rtol=1e-9)
    assert P.numerical_rank == pytest.approx(Q.numerical_rank, rel=1e-11)
    assert P.coherence == pytest.approx(Q.coherence, rel=1e-9)
    v = np.random.default_rng(1).standard_normal(X.shape[1])
    np.testing.assert_allclose(P.H_inv_apply(v), Q.H_inv_apply(v), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(P.to_original(v), Q.to_original(v), rtol=1e-9, atol=1e-12)
    # a solver accepts the chunk-built preconditioner for the in-memory rows
    a = rlmlib.svrg(X, y, sigma=1e-2, epochs=30, loss="logistic", precondition=P)
    b = rlmlib.svrg(X, y, sigma=1e-2, epochs=30, loss="logistic", precondition=Q)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-6, atol=1e-9)


def test_chunked_build_rejects_bad_rows():
    X, _ = _data(40, 4)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or inf"):
        rlmlib.precondition(da.from_array(bad, chunks=(10, 4)), sigma=0.1, beta=0.25)
    with pytest.raises(ValueError, match="2-D"):
        rlmlib.precondition(da.from_array(X[0], chunks=2), sigma=0.1, beta=0.25)
    with pytest.raises(ValueError, match="m must be"):
        rlmlib.precondition(da.from_array(X, chunks=(10, 4)), sigma=0.1, beta=0.25, m=41)
