"""Pegasos and PGS against scikit-learn's SGDClassifier, in the same run.

    .venv/bin/python benchmarks/bench_pegasos.py           # full-size RCV1-like data
                                                           # (781,265 x 47,236, ~76 nnz/row)
    .venv/bin/python benchmarks/bench_pegasos.py --quick   # a tenth of the rows

1. One epoch (m steps, k = 1) of rlmlib.pegasos against one epoch of
   SGDClassifier(loss='hinge', max_iter=1, tol=None, fit_intercept=False): both do one hinge
   sub-gradient step per example with a 1/(lam t)-type step size and a scaled weight vector.
   Target: pegasos / SGDClassifier <= 1.0.
2. Cost per example of rlmlib.pgs at p = 1.8 with k = 300 (the paper's choice for RCV1;
   logistic loss, as in the paper) against pegasos (k = 1). Target: <= 3.0. The hinge loss
   at p = 1.8 is shown as well (it separates the loss from the mirror map), and pgs at p = 2,
   k = 1 (the paper's l2 setting).

Timing: wall clock of the whole call with the default trace (no objective is evaluated
during the call; ``res.objective`` computes it afterwards, outside the timer).
Everything is warmed up first (numba's disk cache loaded, code paths touched); the variants run
alternately, and medians over the repetitions are compared.
"""
import argparse
import time

import numpy as np


def timed_rlmlib(fn, *args, **kw):
    t = time.perf_counter()
    res = fn(*args, **kw)   # a default call: no objective is evaluated
    return time.perf_counter() - t, res


def timed_sklearn(X, y, lam, seed):
    """One epoch of SGDClassifier(hinge): bench_sgd's peer, the same one for every page."""
    from .sgd import one_epoch_sklearn
    return one_epoch_sklearn(X, y, lam, seed)


def measure(X, y, reps=5):
    """Median seconds of one epoch of pegasos and SGDClassifier, and per-example seconds of
    the pgs variants; returns a dict of medians plus the objectives of the last run."""
    import rlmlib
    from rlmlib.core.objective import objective

    m = X.shape[0]
    lam = 1e-4       # Bottou's RCV1 setting for the hinge loss
    sigma = 4e-7     # the paper's sigma for l1.8 logistic regression on CCAT (Table II)
    k = 300

    # warm-up: load the numba cache and touch every code path once
    small = X[:2000], y[:2000]
    rlmlib.pegasos(*small, sigma=lam, T=100)
    rlmlib.pgs(*small, p=1.8, sigma=sigma, T=3, k=k, loss="logistic")
    rlmlib.pgs(*small, p=1.8, sigma=sigma, T=3, k=k, loss="hinge")
    rlmlib.pgs(*small, p=2.0, sigma=sigma, T=100, loss="logistic")
    timed_sklearn(*small, lam, 0)

    runs = {"pegasos": [], "sklearn": [], "pgs18": [], "pgs18h": [], "pgs2": []}
    for r in range(reps):
        s, res_p = timed_rlmlib(rlmlib.pegasos, X, y, sigma=lam, T=m, seed=r)
        runs["pegasos"].append(s)
        s, w_sk = timed_sklearn(X, y, lam, r)
        runs["sklearn"].append(s)
        s, res_18 = timed_rlmlib(rlmlib.pgs, X, y, p=1.8, sigma=sigma, T=m // k, k=k,
                                 loss="logistic", seed=r)
        runs["pgs18"].append(s / (k * (m // k)))
        s, _ = timed_rlmlib(rlmlib.pgs, X, y, p=1.8, sigma=sigma, T=m // k, k=k,
                            loss="hinge", seed=r)
        runs["pgs18h"].append(s / (k * (m // k)))
        s, _ = timed_rlmlib(rlmlib.pgs, X, y, p=2.0, sigma=sigma, T=m, loss="logistic",
                            seed=r)
        runs["pgs2"].append(s / m)
    med = {key: float(np.median(v)) for key, v in runs.items()}
    med["m"] = m
    med["obj_pegasos"] = res_p.objective
    med["obj_sklearn"] = objective(X, y, w_sk, sigma=lam, loss="hinge")
    med["obj_pgs18"] = res_18.objective
    return med


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a tenth of the rows")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()

    from rlmlib.datasets.synthetic import rcv1_like

    m = 78_126 if args.quick else 781_265
    t = time.perf_counter()
    ds = rcv1_like(m=m, seed=0)
    X, y = ds.X, ds.y
    print(f"data: {X.shape[0]:,} x {X.shape[1]:,}, {ds.nnz_per_row:.1f} non-zeros per row "
          f"(generated in {time.perf_counter() - t:.1f} s)")
    med = measure(X, y, args.reps)
    peg_per_ex = med["pegasos"] / m
    print(f"\none epoch, median of {args.reps} (seconds):")
    print(f"  rlmlib.pegasos (k=1)          {med['pegasos']:8.3f}   "
          f"objective {med['obj_pegasos']:.5f}")
    print(f"  sklearn SGDClassifier(hinge)  {med['sklearn']:8.3f}   "
          f"objective {med['obj_sklearn']:.5f}")
    print(f"  ratio pegasos / SGDClassifier: {med['pegasos'] / med['sklearn']:.2f}x "
          "(target <= 1.0)")
    print("\ncost per example (microseconds), median:")
    print(f"  pegasos k=1                   {peg_per_ex * 1e6:8.3f}")
    print(f"  pgs p=1.8 k=300 logistic      {med['pgs18'] * 1e6:8.3f}   "
          f"ratio to pegasos {med['pgs18'] / peg_per_ex:.2f}x (target <= 3.0)")
    print(f"  pgs p=1.8 k=300 hinge         {med['pgs18h'] * 1e6:8.3f}   "
          f"ratio to pegasos {med['pgs18h'] / peg_per_ex:.2f}x")
    print(f"  pgs p=2   k=1   logistic      {med['pgs2'] * 1e6:8.3f}   "
          f"ratio to pegasos {med['pgs2'] / peg_per_ex:.2f}x")
    print(f"  (pgs p=1.8 objective after one epoch: {med['obj_pgs18']:.5f})")


if __name__ == "__main__":
    main()
