"""The data preconditioner built chunk by chunk from a ``dask.array`` of rows (out of core).

``rlmlib.precondition(X, ...)`` hands a dask array here. The rows never need to fit in
memory at once: every pass over X is a dask reduction over its row blocks.

- exact (``m=None``): C = (1/m) Σ_blocks X_bᵀ X_b (n × n), then its eigendecomposition;
- sampled (``m=s``): the s rows drawn exactly as in memory (``default_rng(seed).choice``,
  sorted) are gathered, and the s × s Gram matrix S Sᵀ / s gives the thin factor;
- then one more pass gives the rows' coordinates Q = X U (m × r) and ‖x̂ᵢ‖²
  (the row norms), as in memory.

Only n × n (exact) or s × n plus m × r (sampled) numbers are held in memory. The result is the
same ``Preconditioner`` as the in-memory build, up to the rounding of sums taken in another
order (tests/test_precond_chunks.py compares them).
"""
import time

import numpy as np

from ..core.checks import check_int, check_seed


def is_dask_array(X):
    """Whether X is a dask array (checked without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")


def _checked(X):
    """A 2-D float64 dask array with whole rows in each block; NaN/inf rejected (one pass)."""
    import dask.array as da

    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"X must be a non-empty 2-D dask array of rows, got shape {X.shape}")
    if X.dtype.kind not in "fiu" or X.dtype.kind == "b":
        raise ValueError(f"X must hold real numbers, got dtype {X.dtype}")
    X = X.astype(np.float64).rechunk({1: -1})
    if not bool(da.isfinite(X).all().compute()):
        raise ValueError("X must not contain NaN or inf")
    return X


def build(X, *, sigma, beta, m, seed, thin_factor, assemble):
    """The Preconditioner of dask rows X, read block by block (see the module docstring).

    ``thin_factor`` and ``assemble`` are the in-memory build's own steps (passed in by
    ``preconditioner.precondition``, so that this module does not import it back)."""
    _thin_factor, _assemble = thin_factor, assemble

    X = _checked(X)
    mr, n = (int(v) for v in X.shape)
    seed = check_seed(seed)
    t0 = time.perf_counter()
    if m is None:
        C = (X.T @ X).compute() / mr                      # one pass, block by block
        c, U = np.linalg.eigh((C + C.T) / 2)
        c, basis = np.maximum(c[::-1], 0.0), np.ascontiguousarray(U[:, ::-1])
        M, sample, shift = None, None, np.ones(mr)
        proj = basis
    else:
        m = check_int("m", m, 1, mr)
        rng = np.random.default_rng(seed)
        sample = np.sort(rng.choice(mr, size=m, replace=False))   # as in memory
        S = np.ascontiguousarray(X[sample].compute())             # s x n, in memory
        c, M = _thin_factor(S @ S.T, m)
        basis = np.ascontiguousarray(S.T)
        shift = np.zeros(mr)
        shift[sample] = mr / m
        proj = basis @ M                                           # U = S^T M, n x r
    t1 = time.perf_counter()
    Q = np.ascontiguousarray((X @ proj).compute())                 # second pass
    row2 = (X * X).sum(axis=1).compute()
    total, total2 = (float(v) for v in (X.sum().compute(), (X * X).sum().compute()))
    # preconditioner._order_sum (not imported back): what a row permutation changes
    order_sum = float(np.dot(np.arange(1, mr + 1, dtype=np.float64) / mr, np.asarray(row2)))
    return _assemble(sigma=sigma, beta=beta, m=m, seed=seed, sample=sample, basis=basis, M=M,
                    c=c, Q=Q, row2=row2, shift=shift, fingerprint=(mr, n, mr * n, total, total2, order_sum),
                    times=(t0, t1), chunked=True)
