"""Whole calls as a user makes them, against scikit-learn in the same run (issue 8).

    .venv/bin/python benchmarks/bench_calls.py            # 200,000 RCV1-like rows, 7 reps
    .venv/bin/python benchmarks/bench_calls.py --rows 20000 --reps 5

For each call, with default arguments and one epoch of hinge loss (sigma = alpha = 1e-5):

- ``rlmlib.sgd(X, y, sigma=..., epochs=1)``, ``rlmlib.pegasos(X, y, sigma=..., T=m)``,
  ``rlmlib.pgs(X, y, p=2, sigma=..., T=m)`` and ``RLMClassifier(solver="sgd").fit`` are
  timed as whole calls (validation, order, steps; the default trace evaluates nothing) and
  divided by the time of ``SGDClassifier(loss="hinge", alpha=..., max_iter=1, tol=None,
  fit_intercept=False).fit`` (shuffle=True) measured alternately in the same process;
- the kernel-only ratio uses ``res.trace.seconds[-1]`` (the steps alone);
- one epoch of ``sgd`` and ``pegasos`` in each ``order`` is divided by the time of one CSR
  matrix-vector product ``X @ w`` (scipy), the memory floor of a pass over the data.

Every number is a median over repetitions that alternate the contenders, after a warm-up.
"""
import argparse
import time

import numpy as np

SIGMA = 1e-5


def _sklearn_fit(X, y, seed):
    """Seconds of SGDClassifier(...).fit for one epoch (bench_sgd's peer, alpha = SIGMA)."""
    from .sgd import one_epoch_sklearn

    return one_epoch_sklearn(X, y, SIGMA, seed)[0]


def _timed(f, *a, **kw):
    t = time.perf_counter()
    out = f(*a, **kw)
    return time.perf_counter() - t, out


def spmv_seconds(X, reps=15):
    """Median time of one CSR product X @ w (scipy), the floor of a pass over the data."""
    w = np.random.default_rng(0).standard_normal(X.shape[1])
    X @ w
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        X @ w
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def measure(X, y, reps=7, orders=True):
    """Medians of whole-call and kernel-only ratios against SGDClassifier.fit, and of one
    epoch per order against one SpMV. Returns a dict of plain floats."""
    import rlmlib

    m = X.shape[0]
    small = (X[:500], y[:500])
    calls = {
        "sgd": lambda s: rlmlib.sgd(X, y, sigma=SIGMA, epochs=1, seed=s),
        "pegasos": lambda s: rlmlib.pegasos(X, y, sigma=SIGMA, T=m, seed=s),
        "pgs": lambda s: rlmlib.pgs(X, y, p=2.0, sigma=SIGMA, T=m, seed=s),
        "RLMClassifier": lambda s: rlmlib.RLMClassifier(solver="sgd", sigma=SIGMA, epochs=1,
                                                        seed=s).fit(X, y),
    }
    # warm-up: numba cache, scikit-learn's code paths
    rlmlib.sgd(*small, sigma=SIGMA, epochs=1)
    rlmlib.pegasos(*small, sigma=SIGMA, T=500)
    rlmlib.pgs(*small, p=2.0, sigma=SIGMA, T=500)
    rlmlib.RLMClassifier(solver="sgd", sigma=SIGMA, epochs=1).fit(*small)
    _sklearn_fit(*small, 0)
    whole = {k: [] for k in calls}
    kernel = {k: [] for k in calls}
    ratio = {k: [] for k in calls}
    peer = []
    for r in range(reps):
        sk = _sklearn_fit(X, y, r)
        peer.append(sk)
        for k, f in calls.items():
            sec, out = _timed(f, r)
            res = out.results_[0] if k == "RLMClassifier" else out
            whole[k].append(sec)
            kernel[k].append(res.trace.seconds[-1])
            ratio[k].append(sec / sk)
    out = {"m": m, "n": X.shape[1], "nnz": int(X.nnz), "reps": reps,
           "sklearn": float(np.median(peer))}
    for k in calls:
        out[k] = {"whole": float(np.median(whole[k])), "kernel": float(np.median(kernel[k])),
                  "whole_ratio": float(np.median(ratio[k])),
                  "kernel_ratio": float(np.median(np.array(kernel[k]) / np.array(peer)))}
    if orders:
        out["orders"] = epoch_per_order(X, y, reps)
    return out


def epoch_per_order(X, y, reps=7):
    """One epoch of sgd and of pegasos (T = m) in each order, in multiples of one SpMV measured
    in the same run: the epoch alone (``res.trace.seconds``, the steps) and the whole call
    (with the O(nnz) input validation: structure, finiteness, data scale). Each is the fastest
    repetition over the fastest product (the least disturbed, on a shared machine).
    Returns {"sgd cyclic": (epoch, whole call), ...}."""
    import rlmlib

    m = X.shape[0]
    runs = {}
    for order in ("reshuffle", "shuffle_once", "cyclic"):
        runs[("sgd", order)] = lambda s, o=order: rlmlib.sgd(X, y, sigma=SIGMA, epochs=1,
                                                             seed=s, order=o)
    for order in ("replacement", "reshuffle", "shuffle_once", "cyclic"):
        runs[("pegasos", order)] = lambda s, o=order: rlmlib.pegasos(X, y, sigma=SIGMA, T=m,
                                                                     seed=s, order=o)
    for f in runs.values():
        f(0)
    epoch = {k: [] for k in runs}
    whole = {k: [] for k in runs}
    floors = []
    for r in range(reps):
        floors.append(spmv_seconds(X, reps=5))
        for k, f in runs.items():
            sec, res = _timed(f, r)
            whole[k].append(sec)
            epoch[k].append(res.trace.seconds[-1])
    floor = min(floors)
    return {f"{s} {o}": (float(min(epoch[s, o]) / floor), float(min(whole[s, o]) / floor))
            for (s, o) in runs}


def report(out):
    print(f"RCV1-like data: {out['m']:,} x {out['n']:,}, {out['nnz']:,} non-zeros, hinge,\n"
          f"sigma = alpha = {SIGMA:g}, one epoch, median of {out['reps']} alternating runs")
    print(f"  SGDClassifier(...).fit, shuffle=True: {out['sklearn']:.3f} s")
    print("  time ratio to SGDClassifier.fit:")
    print(f"  {'call':<34}{'whole call':>12}{'kernel only':>13}")
    for k, label in [("sgd", "rlmlib.sgd (defaults)"), ("pegasos", "rlmlib.pegasos (defaults)"),
                     ("pgs", "rlmlib.pgs p=2, k=1 (defaults)"),
                     ("RLMClassifier", "RLMClassifier(solver='sgd').fit")]:
        d = out[k]
        print(f"  {label:<34}{d['whole_ratio']:>12.2f}{d['kernel_ratio']:>13.2f}")
    if "orders" in out:
        print("  one epoch in multiples of one SpMV (X @ w): the epoch alone, the whole call")
        for k, (ep, wc) in out["orders"].items():
            print(f"    {k:<26}{ep:6.2f}{wc:8.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    from rlmlib.datasets import synthetic

    d = synthetic.rcv1_like(m=a.rows, seed=0)
    report(measure(d.X, d.y, a.reps))


if __name__ == "__main__":
    main()
