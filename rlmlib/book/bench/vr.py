"""Whole calls of rlmlib's variance-reduced solvers against scikit-learn's, in one process.

    .venv/bin/python benchmarks/bench_vr.py           # RCV1-like 200,000 x 47,236 and
                                                      # dense 50,000 x 500, 5 reps
    .venv/bin/python benchmarks/bench_vr.py --quick   # a quarter of the rows, 3 reps

Same problem on both sides, (σ/2)‖w‖² + mean loss, no intercept (C = 1/(σm)):

- ``saga`` (l2, logistic) against ``LogisticRegression(solver="saga")``: scikit-learn runs E
  passes (tol=0, max_iter=E, n_iter_ checked) and reaches F_sk; ours takes the same step
  (scikit-learn's automatic SAGA step), uniform draws with replacement, and runs E passes,
  or the fewest E' > E whose objective is <= F_sk when E are not enough (the two runs draw
  different examples; scikit-learn applies the l2 term as a gradient, ours by its prox).
  Both objectives are printed beside the times.
- ``sdca`` (hinge) against ``LinearSVC(loss="hinge", dual=True)`` (LIBLINEAR's dual
  coordinate descent, default tol): scikit-learn's fit reaches P(w_sk); its suboptimality
  P(w_sk) − P_best (P_best the lowest primal value of a LinearSVC run at tol=1e-8 and of
  our runs, so this UNDERestimates scikit-learn's suboptimality) is the target, and ours
  runs the fewest passes (doubling, then bisection to 2 %, each a whole call) whose duality
  gap — a certified bound on its own suboptimality — is below the target.
- ``sag`` (logistic) against ``LogisticRegression(solver="sag")``, as in
  ``rlmlib.book.bench.precond.bench_sag``.

Times are of whole calls (validation, setup, steps), medians over alternating repetitions
after a warm-up of each; ratios = rlmlib / scikit-learn. The machine is shared with other
jobs: only the ratios, measured in the same run, are meaningful.
"""
import argparse
import time
import warnings

import numpy as np


def alternate(fns, reps):
    """Median seconds of each of ``fns`` (a dict name -> callable) over ``reps`` rounds,
    calling them in turn each round (after one warm-up call each)."""
    for f in fns.values():
        f()
    ts = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():
            t = time.perf_counter()
            f()
            ts[k].append(time.perf_counter() - t)
    return {k: float(np.median(v)) for k, v in ts.items()}


def _quiet(fit):
    from sklearn.exceptions import ConvergenceWarning

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return fit()
    return run


def bench_saga(name, X, y, sigma, epochs, reps):
    """saga vs LogisticRegression(solver='saga') at E passes and the same step."""
    import rlmlib
    from sklearn.linear_model import LogisticRegression
    from sklearn.linear_model._sag import get_auto_step_size

    m = X.shape[0]
    sq = X.multiply(X).sum(axis=1) if hasattr(X, "multiply") else (X * X).sum(axis=1)
    step = get_auto_step_size(float(np.max(sq)), sigma, "log", False, m, is_saga=True)
    est = LogisticRegression(solver="saga", C=1.0 / (sigma * m), fit_intercept=False,
                             max_iter=epochs, tol=0.0, random_state=0)
    _quiet(lambda: est.fit(X, y))()
    assert int(np.ravel(est.n_iter_)[0]) == epochs
    F_s = rlmlib.objective(X, y, np.ravel(est.coef_), sigma=sigma, loss="logistic")
    # the fewest passes E' >= E at which ours reaches F_s (one run, a checkpoint per pass:
    # the runs are deterministic, so a run of E' passes ends at that checkpoint's iterate)
    tr = rlmlib.saga(X, y, sigma=sigma, epochs=4 * epochs, step=step,
                     n_checkpoints=4 * epochs).trace
    hit = np.nonzero((tr.objective <= F_s * (1 + 1e-12)) & (tr.epoch >= epochs))[0]
    ep2 = int(round(tr.epoch[hit[0]])) if hit.size else 4 * epochs
    t = alternate({"ours": lambda: rlmlib.saga(X, y, sigma=sigma, epochs=ep2, step=step),
                   "sklearn": _quiet(lambda: est.fit(X, y))}, reps)
    F_o = rlmlib.saga(X, y, sigma=sigma, epochs=ep2, step=step).objective
    r = t["ours"] / t["sklearn"]
    print(f"saga  {name:28s} E={epochs}, ours E'={ep2}: rlmlib {t['ours']:.3f} s, sklearn "
          f"{t['sklearn']:.3f} s, ratio {r:.2f}; F rlmlib {F_o:.10f}, sklearn {F_s:.10f}")
    return {"ratio": r, "F_ours": F_o, "F_sklearn": F_s, **t}


def bench_sdca(name, X, y, sigma, reps, max_epochs=8192):
    """sdca (hinge) vs LinearSVC(dual=True) to the suboptimality scikit-learn reaches."""
    import rlmlib
    from sklearn.svm import LinearSVC

    m = X.shape[0]
    est = LinearSVC(loss="hinge", dual=True, C=1.0 / (sigma * m), fit_intercept=False,
                    random_state=0, max_iter=10_000)
    _quiet(lambda: est.fit(X, y))()
    P_sk = rlmlib.objective(X, y, np.ravel(est.coef_), sigma=sigma, loss="hinge")
    tight = LinearSVC(loss="hinge", dual=True, C=1.0 / (sigma * m), fit_intercept=False,
                      random_state=0, max_iter=1_000_000, tol=1e-8)
    _quiet(lambda: tight.fit(X, y))()
    best = [min(P_sk, rlmlib.objective(X, y, np.ravel(tight.coef_), sigma=sigma,
                                       loss="hinge"))]
    runs = {}

    def reached(E):  # a whole call's own certificate; its end objective may lower P_best
        if E not in runs:
            res = rlmlib.sdca(X, y, sigma=sigma, epochs=E)
            runs[E] = res.info["gap"]
            best[0] = min(best[0], res.objective)
        return runs[E] <= P_sk - best[0]

    hi = 4
    while hi <= max_epochs and not reached(hi):
        hi *= 2
    if hi > max_epochs:
        print(f"sdca  {name:28s}: no gap below {P_sk - best[0]:.2e} within {max_epochs} "
              f"passes")
        return None
    lo = hi // 2 if hi > 4 else 0  # not reached at lo: the fewest passes within 2 %
    while hi - lo > max(1, hi // 50):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reached(mid) else (mid, hi)
    epochs, target = hi, P_sk - best[0]
    assert runs[epochs] <= target
    t = alternate({"ours": lambda: rlmlib.sdca(X, y, sigma=sigma, epochs=epochs),
                   "sklearn": _quiet(lambda: est.fit(X, y))}, reps)
    r = t["ours"] / t["sklearn"]
    print(f"sdca  {name:28s} E={epochs}: rlmlib {t['ours']:.3f} s, sklearn "
          f"{t['sklearn']:.3f} s, ratio {r:.2f}; sklearn's P - P_best {target:.2e}, our "
          f"certified gap {runs[epochs]:.2e} (its n_iter_ {int(est.n_iter_)})")
    return {"ratio": r, "target": target, "gap": runs[epochs], "epochs": epochs, **t}


def bench_sag(name, X, y, sigma, epochs, reps):
    """sag vs LogisticRegression(solver='sag'), whole calls at E passes."""
    import rlmlib
    from sklearn.linear_model import LogisticRegression

    m = X.shape[0]
    est = LogisticRegression(solver="sag", C=1.0 / (sigma * m), fit_intercept=False,
                             max_iter=epochs, tol=0.0, random_state=0)
    t = alternate({"ours": lambda: rlmlib.sag(X, y, sigma=sigma, epochs=epochs,
                                              loss="logistic"),
                   "sklearn": _quiet(lambda: est.fit(X, y))}, reps)
    assert int(np.ravel(est.n_iter_)[0]) == epochs
    F_o = rlmlib.sag(X, y, sigma=sigma, epochs=epochs, loss="logistic").objective
    F_s = rlmlib.objective(X, y, np.ravel(est.coef_), sigma=sigma, loss="logistic")
    r = t["ours"] / t["sklearn"]
    print(f"sag   {name:28s} E={epochs}: rlmlib {t['ours']:.3f} s, sklearn "
          f"{t['sklearn']:.3f} s, ratio {r:.2f}; F rlmlib {F_o:.10f}, sklearn {F_s:.10f}")
    return {"ratio": r, "F_ours": F_o, "F_sklearn": F_s, **t}


def main():
    """Run the three comparisons on the RCV1-like and the dense data (``eigen_decay``;
    ALPHA-like rows, with squared norms up to 2e3, make LinearSVC hit 10,000 iterations).

    Examples
    --------
    >>> from rlmlib.book.bench.vr import main   # doctest: +SKIP
    >>> main()                                  # doctest: +SKIP
    """
    from rlmlib.datasets.synthetic import eigen_decay, rcv1_like

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sigma", type=float, default=1e-4)
    ap.add_argument("--only", choices=["saga", "sdca", "sag"], default=None,
                    help="run one of the three comparisons")
    ap.add_argument("--data", choices=["rcv1", "dense"], default=None,
                    help="run on one of the two data sets")
    a = ap.parse_args()
    f = 4 if a.quick else 1
    reps = 3 if a.quick else 5
    rc = rcv1_like(m=200_000 // f, n=47_236, seed=0) if a.data != "dense" else None
    # dense: Gaussian rows, covariance eigenvalues 1/i (mean ||x||^2 = 6.8), 10 % flips
    de = eigen_decay(50_000 // f, 500, tau=1.0, task="binary", noise=0.1, seed=0) \
        if a.data != "rcv1" else None
    print(f"whole calls, medians of {reps} alternating repetitions; ratio = rlmlib / "
          f"scikit-learn; sigma = {a.sigma:g}; machine shared with other jobs")
    out = {}
    sets = [(f"RCV1-like {rc.X.shape[0]} x {rc.X.shape[1]}" if rc else "", rc, "rcv1"),
            (f"dense {de.X.shape[0]} x {de.X.shape[1]}" if de else "", de, "dense")]
    for name, ds, key in sets:
        if a.data not in (None, key):
            continue
        if a.only in (None, "saga"):
            out["saga", name] = bench_saga(name, ds.X, ds.y, a.sigma, 10, reps)
        if a.only in (None, "sdca"):
            out["sdca", name] = bench_sdca(name, ds.X, ds.y, a.sigma, reps)
        if a.only in (None, "sag"):
            out["sag", name] = bench_sag(name, ds.X, ds.y, a.sigma, 10, reps)
    print("\nratios:", {k: round(v["ratio"], 2) for k, v in out.items() if v})
    return out
