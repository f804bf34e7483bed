"""Seconds per pass of SGD, SVMSGD2, SGD-QN (both versions) and oLBFGS, as ratios measured in
one run (the SGD-QN paper's Table 5), against scikit-learn's SGDClassifier and one SpMV.

    .venv/bin/python benchmarks/bench_sgdqn.py           # full size: RCV1-like 781,265 x
                                                         # 47,236 and ALPHA-like 100,000 x 500
    .venv/bin/python benchmarks/bench_sgdqn.py --quick   # a tenth of the rows

Every solver runs one pass with a given t0 (no t0 selection) and ``n_checkpoints=None``: its
time is ``res.trace.seconds[-1]``, the steps only. "SGD" is ``svmsgd2(..., skip=1)``: plain SGD
with the regularization step applied densely at every example, the paper's SGD row (no scaled
vector). scikit-learn's ``SGDClassifier(loss='squared_hinge', max_iter=1)`` is timed as a
whole ``fit`` (it uses a scaled vector, so its pass costs O(nnz) like SVMSGD2). One SpMV is
``X @ w`` with scipy (single-threaded). Solvers are warmed up, then run alternately; medians.
"""
import argparse
import time
import warnings

import numpy as np

import rlmlib

from .timing import cpu_clock
from .timing import cpu_pass, fastest  # noqa: F401  (re-exported for the SGD-QN page)


def sklearn_pass(X, y, sigma, seed=0, clock="wall"):
    """Seconds of one SGDClassifier(loss='squared_hinge') epoch (whole fit; wall clock or,
    with ``clock="cpu"``, the process's CPU time)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier

    clf = SGDClassifier(loss="squared_hinge", penalty="l2", alpha=sigma, max_iter=1,
                        tol=None, shuffle=True, learning_rate="optimal",
                        fit_intercept=False, random_state=seed)
    now = cpu_clock if clock == "cpu" else time.perf_counter
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t = now()
        clf.fit(X, y)
        return now() - t


def spmv(X, w, clock="wall"):
    """Seconds of one product X @ w (wall clock, or the process's CPU time)."""
    now = cpu_clock if clock == "cpu" else time.perf_counter
    t = now()
    X @ w
    return now() - t


def solvers(sigma, t0, order="reshuffle", clock="wall"):
    """name -> function(X, y, seed) returning the seconds of one pass: the solver's own
    wall-clock time of its steps (``clock="wall"``) or :func:`cpu_pass` (``"cpu"``)."""
    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be 'wall' or 'cpu', got {clock!r}")

    def timed(f, **kw):
        def run(X, y, seed):
            if clock == "cpu":
                return cpu_pass(f, X, y, sigma=sigma, t0=t0, seed=seed, order=order, **kw)
            return f(X, y, sigma=sigma, epochs=1, t0=t0, seed=seed, order=order,
                     **kw).trace.seconds[-1]
        return run

    return {
        "SGD (svmsgd2, skip=1)": timed(rlmlib.svmsgd2, skip=1),
        "SVMSGD2": timed(rlmlib.svmsgd2),
        "SGD-QN corrected": timed(rlmlib.sgdqn),
        "SGD-QN 2009": timed(rlmlib.sgdqn, variant="2009"),
        "oLBFGS": timed(rlmlib.olbfgs),
    }


def per_pass(X, y, sigma, t0, reps=3, names=None, order="reshuffle", peers=True,
             stat="median", clock="wall"):
    """Seconds per pass of each solver (and of the peers), measured alternately in this
    process after a warm-up: the median over ``reps`` runs, or with ``stat="min"`` the
    fastest run (other processes can only add time to a run, so on a shared machine the
    minimum is the steadier estimate of a short pass). ``clock="cpu"`` times each pass in
    the process's CPU time (:func:`cpu_pass`; the peers likewise). Returns {name: seconds}."""
    if stat not in ("median", "min"):
        raise ValueError(f"stat must be 'median' or 'min', got {stat!r}")
    fs = solvers(sigma, t0, order, clock)
    if names is not None:
        fs = {k: fs[k] for k in names}
    m = X.shape[0]
    warm = min(m, 500)
    for f in fs.values():
        f(X[:warm], y[:warm], 0)
    w = np.random.default_rng(0).standard_normal(X.shape[1])
    if peers:
        sklearn_pass(X[:warm], y[:warm], sigma)
        fs = dict(fs, **{"scikit-learn SGDClassifier": lambda X, y, s: sklearn_pass(
                             X, y, sigma, s, clock),
                         "one SpMV X @ w": lambda X, y, s: spmv(X, w, clock)})
    times = {k: [] for k in fs}
    for r in range(reps):
        for k, f in fs.items():
            times[k].append(f(X, y, r))
    reduce = np.median if stat == "median" else np.min
    return {k: float(reduce(v)) for k, v in times.items()}


def report(title, t):
    print(f"\n{title}")
    for k, v in t.items():
        print(f"  {k:28s} {v:9.4f} s per pass")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the rows")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    from rlmlib.datasets import synthetic

    frac = 10 if a.quick else 1
    d = synthetic.rcv1_like(m=781_265 // frac, seed=0)
    X, y = d.X, d.y
    from rlmlib.solvers.t0 import default_skip

    print(f"RCV1-like: {X.shape[0]:,} x {X.shape[1]:,}, {X.nnz:,} non-zeros; sigma = 1e-4, "
          f"t0 = 1e5 (Table 4), skip = 16 n/d = {default_skip(rlmlib.as_rows(X))}")
    fast = ["SVMSGD2", "SGD-QN corrected", "SGD-QN 2009"]
    t = per_pass(X, y, 1e-4, 1e5, a.reps, fast)
    tc = per_pass(X, y, 1e-4, 1e5, a.reps, fast, order="cyclic", peers=False)
    sgd = per_pass(X, y, 1e-4, 1e5, 1, ["SGD (svmsgd2, skip=1)"], peers=False)
    report("reshuffled order", t)
    report("storage order (order='cyclic')", tc)
    report("plain SGD, dense regularization at every step (1 run)", sgd)
    sk, mv = t["scikit-learn SGDClassifier"], t["one SpMV X @ w"]
    print("\nratios (same run):")
    print(f"  svmsgd2 / SGDClassifier per pass           {t['SVMSGD2'] / sk:6.3f}  "
          "(goal <= 1.0)")
    print(f"  sgdqn corrected / svmsgd2                   "
          f"{t['SGD-QN corrected'] / t['SVMSGD2']:6.3f}  (goal <= 1.5; paper 1.85)")
    print(f"  sgdqn 2009 / svmsgd2                        "
          f"{t['SGD-QN 2009'] / t['SVMSGD2']:6.3f}")
    print(f"  cyclic: sgdqn corrected / svmsgd2           "
          f"{tc['SGD-QN corrected'] / tc['SVMSGD2']:6.3f}")
    print(f"  cyclic: svmsgd2 / one SpMV                  {tc['SVMSGD2'] / mv:6.3f}  "
          "(goal <= 2)")
    print(f"  SGD (skip=1) / svmsgd2                      "
          f"{sgd['SGD (svmsgd2, skip=1)'] / t['SVMSGD2']:6.1f}  (paper 184)")
    del d, X, y
    d = synthetic.alpha_like(m=100_000 // frac, seed=0)
    X = d.X / np.linalg.norm(d.X, axis=1, keepdims=True)
    ta = per_pass(X, d.y, 1e-5, 1e6, a.reps)
    report(f"ALPHA-like (dense {X.shape[0]:,} x {X.shape[1]}, unit-norm rows), sigma = 1e-5, "
           "t0 = 1e6", ta)
    print("\nratios (same run):")
    for k in ("SGD (svmsgd2, skip=1)", "SGD-QN corrected", "SGD-QN 2009", "oLBFGS",
              "scikit-learn SGDClassifier"):
        print(f"  {k:28s} / SVMSGD2  {ta[k] / ta['SVMSGD2']:6.3f}")
    print("  paper: SGD 1.30, SGD-QN 2.10 (Table 5)")


if __name__ == "__main__":
    main()
