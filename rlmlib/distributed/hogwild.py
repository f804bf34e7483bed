"""Hogwild!-style lock-free SGD within one process (Niu et al. 2011): ``threads`` numba
``nogil`` threads share w and write only the coordinates of their example's support.

Step of an example i at step t (η_t = 1/(σ(t + t0)), t counted over all threads as
t = t_thread · threads + thread), for every j in the support of x_i:

    w_j <- w_j · max(0, 1 - η_t σ / p_j) - η_t ℓ'(⟨w, x_i⟩, y_i) x_ij,

p_j the fraction of examples whose support holds j: the regularizer's gradient σw is
spread over the supports so that its expectation over i is σ w (Niu et al.'s split; the
max(0, ·) keeps a rare feature's early shrink from overshooting). No locks: a thread may
read w while another writes it, which the analysis allows for sparse data. With
``threads=1`` the run is deterministic (tested against a transcription of the step);
with more it is not (the interleaving of the threads decides). Python threads, no
OpenMP: nothing spins while idle and nothing is forked. What the book's theorem on these
steps covers, and what it does not, is said in ``hogwild``'s docstring.
"""
import concurrent.futures

import numpy as np
import scipy.sparse as sp
from numba import njit

from ..core.checks import check_int, check_positive, sigma_keyword
from ..core.losses import LOSSES, loss_deriv
from ..core.objective import objective
from ..core.order import ORDERS, ExampleStream
from ..core.problem import Problem
from ..core.result import Result, Trace
from ..solvers.sgd import _check_scale as _sgd_scale, t0_heuristic


@njit(nogil=True, cache=True)
def hogwild_steps(data, indices, indptr, y, w, order, t_first, stride, sigma, t0, code,
                  inv_p):
    """Lock-free SGD steps on examples ``order`` (module docstring), in place on w."""
    for k in range(order.shape[0]):
        i = order[k]
        a = indptr[i]
        b = indptr[i + 1]
        z = 0.0
        for p in range(a, b):
            z += data[p] * w[indices[p]]
        eta = 1.0 / (sigma * (t_first + k * stride + t0))
        d = loss_deriv(code, z, y[i])
        for p in range(a, b):
            j = indices[p]
            w[j] = w[j] * max(0.0, 1.0 - eta * sigma * inv_p[j]) - eta * d * data[p]


@sigma_keyword
def hogwild(X, y, *, sigma, epochs, threads=2, loss="hinge", t0=None, seed=0,
            order="reshuffle"):
    """Lock-free SGD with ``threads`` threads on one process's CSR rows (labels -1/+1).

    Each pass draws m example indices in ``order`` (a random permutation by default,
    ``'replacement'``: m uniform draws); each thread runs plain SGD steps (step
    1/(sigma (t + t0))) on its contiguous share of them and writes to the shared ``w``
    without locks (numba kernels that release the GIL). With ``threads > 1`` the result
    depends on the threads' interleaving: it is not reproducible bit for bit, only in
    distribution.

    The book's theorem on lock-free steps (thm-dist-hogwild, chapters/distributed/cocoa)
    covers a run with ``order='replacement'``, ``threads=1`` and t0 >= max_j 1/p_j
    exactly (its delay is 0). With more threads it does not cover two things: the write
    is a plain load and store, not an atomic addition (another thread's write to the
    same coordinate between the two is lost), and the step counter t is the order of the
    draws only while the threads advance in step (nothing bounds the delay).

    Parameters
    ----------
    X : array-like or scipy sparse matrix
        The rows (as CSR; lock-free steps pay off on sparse rows).
    y : array-like
        Two classes (targets for the squared loss), as for every solver.
    sigma : float
        Regularization weight, > 0.
    epochs : int
        Passes over the data.
    threads : int, default 2
        Threads writing to ``w``.
    loss : str, default "hinge"
        Any of the library's losses but the exponential one.
    t0 : float, optional
        Step offset; the library's heuristic by default.
    seed : int, default 0
        Seed of the example order.
    order : {'reshuffle', 'shuffle_once', 'cyclic', 'replacement'}, default 'reshuffle'
        How each pass draws its m examples (``rlmlib.sgd``'s orders, the same streams).

    Returns
    -------
    Result
        Its trace holds the start and the end (F exact at both).

    Raises
    ------
    ValueError, TypeError
        A malformed X or y, or an argument out of range: the one driver's checks and
        messages (``core.problem.Problem``), naming the argument and its value.

    Examples
    --------
    >>> import rlmlib
    >>> ds = rlmlib.datasets.rcv1_like(m=500, n=50, nnz_per_row=5, seed=0)
    >>> res = hogwild(ds.X, ds.y, sigma=1e-2, epochs=3, threads=1)
    >>> bool(res.trace.objective[-1] < res.trace.objective[0])
    True
    """
    import time

    P = Problem("hogwild", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed,
                order=order, orders=ORDERS,
                losses=tuple(k for k in LOSSES if k != "exponential"), compact_dense=False)
    threads = check_int("threads", threads)
    t0 = (t0_heuristic(P.sigma, loss, P.R if P.R < 2.0 ** 500 else 1.0) if t0 is None
          else check_positive("t0", t0))
    _sgd_scale(P, t0)
    sigma, epochs, seed, m, n = P.sigma, P.epochs, P.seed, P.m, P.n
    X = sp.csr_matrix((P.rows.data, P.rows.indices, P.rows.indptr), shape=(m, n))
    yf = P.y
    counts = np.bincount(X.indices, minlength=n).astype(np.float64)
    inv_p = np.where(counts > 0, m / np.maximum(counts, 1.0), 0.0)
    code = P.code
    w = np.zeros(n)
    stream = ExampleStream(m, P.order, seed)
    F0 = objective(X, yf, w, sigma=sigma, loss=loss)
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        for e in range(epochs):
            perm = stream.take(m).astype(np.int64)
            blocks = np.array_split(perm, threads)
            futs = [pool.submit(hogwild_steps, X.data, X.indices, X.indptr, yf, w, blk,
                                e * m + h, threads, sigma, t0, code, inv_p)
                    for h, blk in enumerate(blocks)]
            for f in futs:
                f.result()
    secs = time.perf_counter() - start
    F = objective(X, yf, w, sigma=sigma, loss=loss)
    trace = Trace(np.array([0, epochs * m]), np.array([0.0, epochs]),
                  np.array([0.0, secs]), np.array([F0, F]))
    params = {"sigma": sigma, "epochs": epochs, "threads": threads, "loss": loss,
              "t0": t0, "seed": seed, "order": P.order}
    return Result(w=w, solver="hogwild", params=params, trace=trace, classes=P.classes,
                  info={"check_seconds": P.check_seconds})
