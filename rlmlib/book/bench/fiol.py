"""Cost of the fully implicit step, measured against its explicit peers in the same run.

    .venv/bin/python benchmarks/bench_fiol.py           # d = 1e6 steps and a spam epoch
    .venv/bin/python benchmarks/bench_fiol.py --quick   # fewer repetitions

Measured on a shared, loaded 2-core machine: compare the ratios, not the seconds.

1. One step on a dense example of d = 10^6 non-zeros: the partition step (Algorithm 2), the
   sort step (Algorithm 1) and one OGD step (the l1-subgradient step: one dot product and one
   axpy), each repeated inside one numba loop; median over repetitions; ratios to OGD.
2. The whole call ``rlmlib.fiol_step(w, x, y, ..., method="partition")`` (checks, copy of
   w, scratch, the step) against the NumPy OGD step ``w - eta*((w@x - y)*x)`` at d = 10^5
   and 10^6, alternating, median of the per-repetition ratios (issue 18, item 6); with
   NumPy's BLAS limited to one thread (the step is single-threaded; on a loaded machine
   BLAS threads make the peer erratic), by the wall clock and by the thread's CPU time.
3. One epoch over the spam TF-IDF rows (sparse, logistic loss) of rlmlib.fiol (partition)
   against rlmlib.sgd_l1 (l1-subgradient SGD with the same lazy shrink), same order, same
   eta; median over repetitions, alternating; ratio fiol / sgd_l1.

``step_seconds(d, reps, seed)`` is also used by the chapter's cost figure.
"""
import argparse
import time

import numpy as np
from numba import njit

from rlmlib.solvers.fiol import pivot_state, step_row
from rlmlib.core.losses import SQUARED
from rlmlib.solvers.sgd_l1 import sgd_l1_row


@njit(cache=True)
def _repeat_fiol(w, x, idx, y, eta, sigma, method, reps, val, sw, rng):
    n = x.shape[0]
    for _ in range(reps):
        step_row(w, x, idx, 0, n, y, eta, sigma, SQUARED, method, val, sw, rng)


@njit(cache=True)
def _repeat_ogd(w, x, idx, y, eta, sigma, reps):
    n = x.shape[0]
    for _ in range(reps):
        sgd_l1_row(w, x, idx, 0, n, y, eta, sigma, SQUARED)


def step_seconds(d, reps=5, seed=0, inner=None, reduce=np.median, clock=time.perf_counter):
    """Seconds of one step at dimension d for ('sort', 'partition', 'ogd') on a dense
    Gaussian example, squared loss, eta = 0.1/d, sigma = 0.01: ``reduce`` (median by
    default; the chapter takes the minimum, the least disturbed by other processes) over
    ``reps`` repetitions of a loop of ``inner`` steps, the three alternating, timed with
    ``clock`` (``time.thread_time``: CPU time of this thread, which a loaded machine
    disturbs less than the wall clock)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(d)
    w0 = rng.standard_normal(d) * 0.05
    idx = np.arange(d, dtype=np.int64)
    scratch = (np.empty(2 * d), np.empty(2 * d))
    inner = inner or max(1, int(2e5 // d))
    names = ("sort", "partition", "ogd")
    times = {name: [] for name in names}
    for _ in range(reps):
        for name in names:
            w = w0.copy()
            t = clock()
            if name == "ogd":
                _repeat_ogd(w, x, idx, 1.0, 0.1 / d, 0.01, inner)
            else:
                _repeat_fiol(w, x, idx, 1.0, 0.1 / d, 0.01, 0 if name == "sort" else 1,
                             inner, *scratch, pivot_state(seed))
            times[name].append((clock() - t) / inner)
    return {name: float(reduce(v)) for name, v in times.items()}


def whole_call_ratios(d, reps=9, seed=0, method="partition", clock=time.perf_counter):
    """Median over ``reps`` of fiol_step's whole call / the NumPy OGD step (the mean of the
    OGD steps timed just before and just after), squared loss, eta = 0.1/d, sigma = 0.01,
    timed with ``clock`` (``time.thread_time``: CPU time of this thread, which a loaded
    machine disturbs less than the wall clock). Returns (ratio, fiol_step seconds, OGD
    seconds), medians."""
    import rlmlib

    rng = np.random.default_rng(seed)
    x = rng.standard_normal(d)
    w = rng.standard_normal(d) * 0.05
    eta, y = 0.1 / d, 1.0

    def ogd():
        t = clock()
        w - eta * ((w @ x - y) * x)
        return clock() - t

    def step():
        t = clock()
        rlmlib.fiol_step(w, x, y, eta=eta, sigma=0.01, loss="squared", method=method)
        return clock() - t

    ogd(), step()
    ratio, tf, to = [], [], []
    for _ in range(reps):
        a = ogd()
        b = step()
        c = ogd()
        ratio.append(b / (0.5 * (a + c)))
        tf.append(b)
        to.append(0.5 * (a + c))
    return float(np.median(ratio)), float(np.median(tf)), float(np.median(to))


def spam_epochs(reps=5, eta=1.0, sigma=1e-5):
    """Median seconds of one epoch on spam for fiol (partition) and sgd_l1, alternating."""
    import rlmlib

    ds = rlmlib.load_dataset("spam")
    kw = dict(sigma=sigma, eta=eta, epochs=1, loss="logistic", order="reshuffle")
    rlmlib.fiol(ds.X[::20], ds.y[::20], **kw)
    rlmlib.sgd_l1(ds.X[::20], ds.y[::20], **kw)
    tf, ts = [], []
    for r in range(reps):
        tf.append(rlmlib.fiol(ds.X, ds.y, seed=r, **kw).trace.seconds[-1])
        ts.append(rlmlib.sgd_l1(ds.X, ds.y, seed=r, **kw).trace.seconds[-1])
    return float(np.median(tf)), float(np.median(ts)), ds.X.shape, ds.X.nnz


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    reps = 3 if a.quick else 7
    step_seconds(1000, reps=1)  # warm up (load the numba cache)
    t = step_seconds(10 ** 6, reps=reps, inner=1)
    print(f"d = 1e6, one step (median of {reps}): sort {t['sort'] * 1e3:.2f} ms, partition "
          f"{t['partition'] * 1e3:.2f} ms, OGD {t['ogd'] * 1e3:.2f} ms")
    print(f"  partition / OGD = {t['partition'] / t['ogd']:.2f}, sort / OGD = "
          f"{t['sort'] / t['ogd']:.2f}, sort / partition = {t['sort'] / t['partition']:.2f}")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):  # the peer single-threaded, like the step
        for clock, label in ((time.perf_counter, "wall clock"),
                             (time.thread_time, "thread CPU time")):
            for d in (10 ** 5, 10 ** 6):
                r, tf, to = whole_call_ratios(d, reps=reps + 4, clock=clock)
                print(f"whole call, d = {d:.0e} ({label}, BLAS on one thread): "
                      f"fiol_step(partition) {tf * 1e3:.2f} ms / OGD {to * 1e3:.2f} ms "
                      f"= {r:.1f}")
    f, s, shape, nnz = spam_epochs(reps=reps)
    print(f"spam {shape[0]} x {shape[1]}, {nnz / shape[0]:.0f} non-zeros per row, one epoch "
          f"(median of {reps}): fiol {f:.3f} s, sgd_l1 {s:.3f} s, fiol / sgd_l1 = {f / s:.2f}")


if __name__ == "__main__":
    main()
