"""The whole default call of SVMSGD2 and SGD-QN (t0 selected on a fixed sample, every check
included) against scikit-learn's SGDClassifier(loss='squared_hinge') fit, per pass, as
ratios measured alternately in one process; oLBFGS's cost per step and per pass.

    .venv/bin/python benchmarks/bench_defaults.py            # 200,000 x 47,236 RCV1-like
    .venv/bin/python benchmarks/bench_defaults.py --quick    # 20,000 rows

Each rep times, in turn: ``svmsgd2(X, y, sigma=1e-4, epochs=1)`` (whole call, wall time:
checks, the row-scale pass, the t0 selection and the pass), the same call with t0 given
(the epoch alone), ``sgdqn(X, y, sigma=1e-4, epochs=1)`` (whole call) and
``SGDClassifier(loss='squared_hinge', alpha=1e-4, max_iter=1, tol=None,
fit_intercept=False).fit(X, y)`` (whole fit). Ratios are formed within each rep and their
median is reported, with the selection's own seconds and sample size from ``res.info``.
The machine the book is built on is shared (two cores, several jobs): only ratios mean
anything, and their spread is printed too.
"""
import argparse
import time
import warnings

import numpy as np

import rlmlib


def sklearn_fit(X, y, sigma, seed=0):
    """Seconds of a whole SGDClassifier(loss='squared_hinge') fit of one epoch."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier

    clf = SGDClassifier(loss="squared_hinge", penalty="l2", alpha=sigma, max_iter=1,
                        tol=None, shuffle=True, learning_rate="optimal",
                        fit_intercept=False, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t = time.perf_counter()
        clf.fit(X, y)
        return time.perf_counter() - t, {}


def whole_call(f, **kw):
    """f(X, y, seed) -> (wall seconds of the whole call, res.info)."""
    def run(X, y, sigma, seed):
        t = time.perf_counter()
        res = f(X, y, sigma=sigma, epochs=1, seed=seed, **kw)
        return time.perf_counter() - t, dict(res.info, t0=res.params["t0"])
    return run


def contenders(t0_epoch):
    return {
        "svmsgd2 default": whole_call(rlmlib.svmsgd2),
        "svmsgd2 epoch (t0 given)": whole_call(rlmlib.svmsgd2, t0=t0_epoch),
        "sgdqn default": whole_call(rlmlib.sgdqn),
        "SGDClassifier fit": sklearn_fit,
    }


def measure(X, y, sigma, reps=5):
    """{name: list of seconds}, {name: list of res.info}, measured alternately after a
    warm-up on a few rows (compilation)."""
    first = rlmlib.svmsgd2(X[:2000], y[:2000], sigma=sigma, epochs=1)
    fs = contenders(first.params["t0"])
    for name, f in fs.items():
        f(X[:2000], y[:2000], sigma, 0)
    secs = {k: [] for k in fs}
    infos = {k: [] for k in fs}
    for r in range(reps):
        for k, f in fs.items():
            s, info = f(X, y, sigma, r)
            secs[k].append(s)
            infos[k].append(info)
    return secs, infos


def olbfgs_step_seconds(X, y, sigma, rows=1000, memory=10):
    """Seconds per oLBFGS step at this n (one pass over ``rows`` rows, t0 given)."""
    Xs, ys = X[:rows], y[:rows]
    rlmlib.olbfgs(Xs[:50], ys[:50], sigma=sigma, epochs=1, t0=1e5, memory=memory)
    res = rlmlib.olbfgs(Xs, ys, sigma=sigma, epochs=1, t0=1e5, memory=memory,
                        progress=False)
    return res.trace.seconds[-1] / Xs.shape[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="20,000 rows instead of 200,000")
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args(argv)
    from rlmlib.datasets import synthetic

    m = 20_000 if a.quick else 200_000
    d = synthetic.rcv1_like(m=m, n=47_236, seed=0)
    X, y = d.X, d.y
    sigma = 1e-4
    print(f"RCV1-like: {X.shape[0]:,} x {X.shape[1]:,}, {X.nnz:,} non-zeros; sigma = {sigma}; "
          f"{a.reps} alternating reps in one process on a loaded shared machine "
          f"(ratios only)")
    secs, infos = measure(X, y, sigma, a.reps)
    sk = np.array(secs["SGDClassifier fit"])
    for k, v in secs.items():
        print(f"  {k:26s} median {np.median(v):8.4f} s")
    print("\nratios to SGDClassifier fit per pass (median over reps [min, max]):")
    for k in ("svmsgd2 default", "svmsgd2 epoch (t0 given)", "sgdqn default"):
        r = np.array(secs[k]) / sk
        print(f"  {k:26s} {np.median(r):6.3f}  [{r.min():.3f}, {r.max():.3f}]  "
              f"(goal <= 1.0, target 0.8)")
    for k in ("svmsgd2 default", "sgdqn default"):
        sel = np.array([i["t0_seconds"] for i in infos[k]])
        share = sel / np.array(secs[k])
        print(f"  {k}: t0 selection {np.median(sel) * 1e3:.1f} ms on a sample of "
              f"{infos[k][0]['t0_sample']} rows ({np.median(share):.0%} of the call), "
              f"t0 = {infos[k][0]['t0']:g}")
    step = olbfgs_step_seconds(X, y, sigma)
    print(f"\noLBFGS (memory 10): {step * 1e3:.2f} ms per step at n = {X.shape[1]:,}; one "
          f"pass over {X.shape[0]:,} rows ~ {step * X.shape[0]:.0f} s "
          f"({step * X.shape[0] / np.median(sk):.0f} x SGDClassifier's fit)")
    return secs, infos


if __name__ == "__main__":
    main()
