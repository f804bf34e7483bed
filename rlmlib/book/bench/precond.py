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
largest data (`spam`, 6,046 x 48,407) and on the RCV1-like data, against one SVRG epoch,
measured in one process (alternating repetitions, medians; see ``table2``). Epochs: a pass
(ours: a stage of the snapshot pass plus 2m inner steps, each inner step one gradient because
the snapshot's g~_i are stored, is 3 passes), and a stage (one outer iteration: the paper
does not define its SVRG epoch; Johnson & Zhang count a stage as 5 gradient passes, m + 2 x 2m),
for plain SVRG, preconditioned SVRG (implicit H^-1, O(nnz(x_i) + r) per step), and SVRG over
the explicitly preconditioned dense rows as the paper forms them (extrapolated from 300 rows).
Measured 2026-11-23 (``--table2``, 5 repetitions, 2 cores shared with other jobs): build /
preconditioned pass 4.96 (spam) and 4.61 (RCV1-like 200,000 rows), build / preconditioned
stage 1.65 and 1.54, build / pass over dense xhat 0.13 and 0.06. Before the build formed
Q = XU in one numba pass (scipy's X S^T, then a dense product), build / preconditioned pass
was 20.7 and 43.6.
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


def table2(X, y, loss, sigma, beta, s, reps=5, dense_rows=300, seed=0):
    """The sampled preconditioner's build against one SVRG epoch, measured in this process.

    Alternating repetitions (after a warm-up of each) of: the build ``precondition(X, m=s)``
    (whole call), one SVRG stage plain and one preconditioned (``svrg(epochs=3)``: the
    snapshot's full pass plus 2m inner steps; its step time ``trace.seconds[-1]``, setup and
    checks excluded). With ``dense_rows``, also a stage of SVRG over the explicitly
    preconditioned rows xhat_i = H^(-1/2) x_i as dense n-vectors (the paper forms xhat_i; its
    epoch touches every coordinate), timed on the first ``dense_rows`` rows and scaled by
    m / dense_rows (the cost of a pass is linear in the rows). Medians, seconds.

    Returns a dict: ``build``, ``factor`` and ``transform`` (the build's parts, from the
    Preconditioner), ``stage_plain``, ``stage_pre``, ``stage_dense`` (or None), ``rank``.
    """
    import rlmlib

    def build():
        return rlmlib.precondition(X, sigma=sigma, beta=beta, m=s, seed=seed)

    def stage(P=None, A=X, b=y):
        res = rlmlib.svrg(A, b, sigma=sigma, epochs=3, loss=loss, precondition=P, seed=seed,
                          inner=2 * A.shape[0])   # a stage: the snapshot + 2m steps
        return res.trace.seconds[-1]

    P = build()
    stage(), stage(P)                                  # warm-up (cache loads)
    Xd = yd = None
    if dense_rows:
        Xd = np.ascontiguousarray(P.transform(X[:dense_rows]))
        yd = np.asarray(y)[:dense_rows]
        stage(None, Xd, yd)
    out = {k: [] for k in ("build", "factor", "transform", "stage_plain", "stage_pre",
                           "stage_dense")}
    for _ in range(reps):
        t = time.perf_counter()
        Pb = build()
        out["build"].append(time.perf_counter() - t)
        out["factor"].append(Pb.factor_seconds)
        out["transform"].append(Pb.transform_seconds)
        out["stage_plain"].append(stage())
        out["stage_pre"].append(stage(P))
        if Xd is not None:
            out["stage_dense"].append(stage(None, Xd, yd) * X.shape[0] / dense_rows)
    res = {k: float(np.median(v)) if v else None for k, v in out.items()}
    res["rank"] = P.rank
    return res


def ratios(t):
    """build / epoch for each epoch: a pass (stage / 3: ours) and a stage (snapshot + 2m
    steps: one outer iteration), plain, preconditioned, and over dense xhat_i."""
    out = {}
    for name, key in [("plain", "stage_plain"), ("precond.", "stage_pre"),
                      ("dense xhat", "stage_dense")]:
        if t[key]:
            out[name, "pass"] = 3 * t["build"] / t[key]
            out[name, "stage"] = t["build"] / t[key]
    return out


def bench_build(name, X, y, loss, sigma, beta, s, reps):
    t = table2(X, y, loss, sigma, beta, s, reps)
    print(f"{name}, s = {s} (rank {t['rank']}): build {t['build']:.4f} s (factor "
          f"{t['factor']:.4f} + Q = XU and norms {t['transform']:.4f}); one SVRG stage "
          f"(3 passes): plain {t['stage_plain']:.4f} s, preconditioned {t['stage_pre']:.4f} s,"
          f" over dense xhat (extrapolated) {t['stage_dense']:.3f} s")
    for (kind, ep), r in ratios(t).items():
        print(f"    build / one {ep:5s} ({kind:10s}) = {r:6.2f}")
    return t


def main():
    import rlmlib
    from rlmlib.datasets.synthetic import alpha_like, rcv1_like

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--table2", action="store_true", help="only the Table 2 measurement")
    a = ap.parse_args()
    f = 4 if a.quick else 1
    reps = 3 if a.quick else 5
    rc = rcv1_like(m=200_000 // f, n=47_236, seed=0)
    sag_ratios = {}
    if not a.table2:
        al = alpha_like(m=50_000 // f, n=500, seed=0)
        print(f"sag per epoch (median of {reps}); ratio = rlmlib / scikit-learn")
        for name, ds in [(f"RCV1-like {rc.X.shape[0]} x {rc.X.shape[1]}", rc),
                         (f"ALPHA-like {al.X.shape[0]} x {al.X.shape[1]}", al)]:
            for loss in ["logistic", "squared"]:
                sag_ratios[name, loss] = bench_sag(name, ds.X, ds.y, loss, 1e-4, 5, reps)
    print(f"\nTable 2: sampled preconditioner's build against one SVRG epoch (median of "
          f"{reps})")
    spam = rlmlib.load_dataset("spam")
    bench_build("spam 6046 x 48407 (squared)", spam.X, spam.y, "squared", 1e-4, 0.5, 200, reps)
    bench_build(f"RCV1-like {rc.X.shape[0]} x {rc.X.shape[1]} (logistic)", rc.X, rc.y,
                "logistic", 1e-4, 0.01, 200, reps)
    if sag_ratios:
        print("\nsag ratios:", {k: round(v, 2) for k, v in sag_ratios.items()})


if __name__ == "__main__":
    main()
