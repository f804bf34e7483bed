"""rlmlib.sag per epoch against scikit-learn's SAG, and the sampled preconditioner's build
against one SVRG epoch, measured in the same run.

    .venv/bin/python benchmarks/bench_precond.py           # RCV1-like 200,000 x 47,236 and
                                                           # ALPHA-like 50,000 x 500, 5 reps
    .venv/bin/python benchmarks/bench_precond.py --quick   # a quarter of the rows, 3 reps

Same problem on both sides: (sigma/2)||w||^2 + mean loss, no intercept; logistic loss via
LogisticRegression(solver="sag", C = 1/(sigma m)), squared loss via Ridge(solver="sag",
alpha = sigma m) (Ridge minimizes ||y - Xw||^2 + alpha ||w||^2, i.e. 2m times ours). Both
take the step 1/L_max (scikit-learn's automatic step for SAG is the same), sample examples
uniformly with replacement and update sparse rows just in time. scikit-learn runs a fixed
number of epochs (tol=0, max_iter=E; its n_iter_ is checked to be E); its time per epoch is
the whole fit divided by E, ours the whole call divided by E (rlmlib's default trace
evaluates nothing during the run). Medians over alternating repetitions after a warm-up.
The objectives of both final weight vectors are printed (computed by rlmlib.objective).

Table 2 question: the build of the sampled preconditioner (s = 200 rows) on the chapter's
largest data (`spam`, 6,046 x 48,407) and on the RCV1-like data, against one SVRG epoch
(plain and preconditioned; one stage of 3 epochs divided by 3).
"""
import argparse
import time
import warnings

import numpy as np


def median_time(fn, reps):
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def bench_sag(name, X, y, loss, sigma, epochs, reps):
    import rlmlib
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression, Ridge

    m = X.shape[0]
    if loss == "logistic":
        est = LogisticRegression(solver="sag", C=1.0 / (sigma * m), fit_intercept=False,
                                 max_iter=epochs, tol=0.0, random_state=0)
    else:
        est = Ridge(solver="sag", alpha=sigma * m, fit_intercept=False, max_iter=epochs,
                    tol=0.0, random_state=0)

    def skl():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X, y)

    def ours():
        return rlmlib.sag(X, y, sigma=sigma, epochs=epochs, loss=loss)

    rlmlib.sag(X[:100], y[:100], sigma=sigma, epochs=1, loss=loss)   # warm-up (cache load)
    skl()
    t_s, t_o = [], []
    for _ in range(reps):
        t_s.append(median_time(skl, 1))
        t_o.append(median_time(ours, 1))
    n_iter = int(np.ravel(est.n_iter_)[0])
    assert n_iter == epochs, n_iter
    res = ours()
    F_o = res.objective
    F_s = rlmlib.objective(X, y, np.ravel(est.coef_), sigma=sigma, loss=loss)
    so, ss = np.median(t_o) / epochs, np.median(t_s) / epochs
    print(f"{name:34s} {loss:8s} rlmlib {so * 1e3:8.2f} ms/epoch  sklearn {ss * 1e3:8.2f} "
          f"ms/epoch  ratio {so / ss:5.2f}   F: rlmlib {F_o:.6f}, sklearn {F_s:.6f}")
    return so / ss


def bench_build(name, X, y, loss, sigma, beta, s, reps):
    import rlmlib

    build = median_time(lambda: rlmlib.precondition(X, sigma=sigma, beta=beta, m=s), reps)
    P = rlmlib.precondition(X, sigma=sigma, beta=beta, m=s)
    plain = median_time(lambda: rlmlib.svrg(X, y, sigma=sigma, epochs=3, loss=loss), reps) / 3
    pre = median_time(lambda: rlmlib.svrg(X, y, sigma=sigma, epochs=3, loss=loss,
                                          precondition=P), reps) / 3
    print(f"{name:34s} s = {s}: build {build:.3f} s (factor {P.factor_seconds:.3f} + "
          f"q = U^T x {P.transform_seconds:.3f}); SVRG epoch plain {plain:.4f} s, "
          f"preconditioned {pre:.4f} s; build / epoch = {build / plain:.1f} (plain), "
          f"{build / pre:.1f} (preconditioned)")
    return build / pre


def main():
    import rlmlib
    from rlmlib.synthetic import alpha_like, rcv1_like

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    f = 4 if a.quick else 1
    reps = 3 if a.quick else 5
    rc = rcv1_like(m=200_000 // f, n=47_236, seed=0)
    al = alpha_like(m=50_000 // f, n=500, seed=0)
    print(f"sag per epoch (median of {reps}); ratio = rlmlib / scikit-learn")
    ratios = {}
    for name, ds in [(f"RCV1-like {rc.X.shape[0]} x {rc.X.shape[1]}", rc),
                     (f"ALPHA-like {al.X.shape[0]} x {al.X.shape[1]}", al)]:
        for loss in ["logistic", "squared"]:
            ratios[name, loss] = bench_sag(name, ds.X, ds.y, loss, 1e-4, 5, reps)
    print("\nTable 2: sampled preconditioner's build against one SVRG epoch")
    spam = rlmlib.load_dataset("spam")
    bench_build("spam 6046 x 48407 (squared)", spam.X, spam.y, "squared", 1e-4, 0.5, 200, reps)
    bench_build(f"RCV1-like {rc.X.shape[0]} x {rc.X.shape[1]} (logistic)", rc.X, rc.y,
                "logistic", 1e-4, 0.01, 200, reps)
    print("\nsag ratios:", {k: round(v, 2) for k, v in ratios.items()})


if __name__ == "__main__":
    main()
