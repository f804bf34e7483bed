"""Averaged SGD: one whole default call of rlmlib.asgd against scikit-learn's
``SGDClassifier(average=True)``, per pass, in the same process.

    .venv/bin/python benchmarks/bench_asgd.py           # 200,000 x 47,236 RCV1-like, 7 reps
    .venv/bin/python benchmarks/bench_asgd.py --quick   # 20,000 rows, 3 reps

Same work on both sides: hinge loss, the same sigma (scikit-learn's alpha), no intercept,
random order, the steps 1/(sigma (t + t0)) with Bottou's t0 (scikit-learn's
``learning_rate='optimal'``, rlmlib's default schedule 'sigma_t'), and the uniform average of
every iterate (scikit-learn's ``average=True``, rlmlib's ``average_start=0``), both with the
sparse lazy-averaging trick. Timing: wall clock of the whole call as a user makes it (checks,
shuffling, the passes); rlmlib's default call evaluates no objective. Both are warmed up,
run alternately, and the median of the per-repetition ratios is reported (the machine may
be loaded by other jobs: only the ratio is meaningful).
"""
import argparse
import time
import warnings

import numpy as np


def fit_sklearn(X, y, sigma, epochs, seed):
    """Seconds and weights of SGDClassifier(average=True).fit (hinge, no intercept)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier

    clf = SGDClassifier(loss="hinge", penalty="l2", alpha=sigma, max_iter=epochs, tol=None,
                        shuffle=True, learning_rate="optimal", fit_intercept=False,
                        average=True, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a fixed number of passes
        t = time.perf_counter()
        clf.fit(X, y)
        sec = time.perf_counter() - t
    return sec, clf.coef_.ravel().copy()


def fit_rlmlib(X, y, sigma, epochs, seed):
    """Seconds and weights of a default rlmlib.asgd call."""
    import rlmlib

    t = time.perf_counter()
    res = rlmlib.asgd(X, y, sigma=sigma, epochs=epochs, seed=seed)
    return time.perf_counter() - t, res.w


def compare(X, y, sigma, epochs=1, reps=7):
    """Alternating repetitions; returns a dict of medians, ratio and objectives.

    Parameters
    ----------
    X, y : training rows and labels
    sigma : float
        Regularization weight (scikit-learn's alpha).
    epochs : int
        Passes per call.
    reps : int
        Repetitions (each: one call of each solver, alternating which goes first).

    Returns
    -------
    dict
        ``ours``, ``theirs`` (median seconds), ``ratio`` (median of per-rep ratios),
        ``f_ours``, ``f_theirs`` (median objectives of the averages).

    Examples
    --------
    >>> from rlmlib.datasets import synthetic
    >>> from rlmlib.book.bench.asgd import compare
    >>> d = synthetic.rcv1_like(m=2000, n=500, seed=0)
    >>> r = compare(d.X, d.y, 1e-4, reps=1)
    >>> sorted(r)
    ['f_ours', 'f_theirs', 'ours', 'ratio', 'theirs']
    """
    import rlmlib

    fit_rlmlib(X[:2000], y[:2000], sigma, 1, 0)      # warm-up: numba cache, code paths
    fit_sklearn(X[:2000], y[:2000], sigma, 1, 0)
    ours, theirs, fo, ft = [], [], [], []
    for r in range(reps):
        pair = [("o", fit_rlmlib), ("s", fit_sklearn)]
        for tag, fit in (pair if r % 2 == 0 else pair[::-1]):
            sec, w = fit(X, y, sigma, epochs, r)
            f = rlmlib.objective(X, y, w, sigma=sigma, loss="hinge")
            (ours if tag == "o" else theirs).append(sec)
            (fo if tag == "o" else ft).append(f)
    return {"ours": float(np.median(ours)), "theirs": float(np.median(theirs)),
            "ratio": float(np.median(np.array(ours) / np.array(theirs))),
            "f_ours": float(np.median(fo)), "f_theirs": float(np.median(ft))}


def main():
    """Command line: see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="20,000 rows, 3 repetitions")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--epochs", type=int, default=1)
    a = ap.parse_args()
    from rlmlib.datasets import synthetic

    m = 20_000 if a.quick else 200_000
    reps = a.reps or (3 if a.quick else 7)
    d = synthetic.rcv1_like(m=m, n=47_236, seed=0)
    sigma = 1e-4
    r = compare(d.X, d.y, sigma, a.epochs, reps)
    print(f"RCV1-like {m:,} x 47,236 ({d.X.nnz:,} non-zeros), sigma = {sigma:g}, hinge, "
          f"{a.epochs} pass(es), {reps} alternating repetitions (medians; loaded machine)")
    print(f"  SGDClassifier(average=True).fit : {r['theirs'] / a.epochs:8.3f} s per pass")
    print(f"  rlmlib.asgd (whole default call): {r['ours'] / a.epochs:8.3f} s per pass")
    print(f"  time ratio rlmlib / scikit-learn (median of per-rep ratios): {r['ratio']:.3f}")
    print(f"  objective of the average: rlmlib {r['f_ours']:.6f}, scikit-learn "
          f"{r['f_theirs']:.6f}")


if __name__ == "__main__":
    main()
