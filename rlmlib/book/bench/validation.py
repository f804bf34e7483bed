"""The one validation pass against one SpMV, in the same run (issue 18, item 3).

    .venv/bin/python benchmarks/bench_validation.py             # 200,000 RCV1-like rows
    .venv/bin/python benchmarks/bench_validation.py --rows 20000 --reps 5

On ``rlmlib.datasets.rcv1_like(m, n=47_236, seed=0)`` (hinge / squared hinge, sigma = 1e-4,
one epoch, ``order="cyclic"``), each in multiples of one CSR product ``X @ w`` (scipy) timed
alternately with it, median over repetitions of the per-repetition ratio:

- ``check_X_y(X, y)``: the validation pass alone (structure, finiteness, row norms, labels),
  as the solvers run it (on ``rlmlib.core.rows.pass_threads()`` threads from 2,000,000
  stored values) and on one thread;
- ``rlmlib.sgd(X, y, sigma=1e-4, epochs=1, order="cyclic")``: the whole call, its steps
  alone (``res.trace.seconds[-1]``), its validation pass (``res.info["check_seconds"]``)
  and the rest (the medians' whole call - steps - pass: argument checks, F(0), the order,
  the end checks, the Result);
- ``rlmlib.svmsgd2(X, y, sigma=1e-4, epochs=1, t0=1e4, order="cyclic")``: the same.

The SpMV runs on one thread, the validation pass on ``pass_threads()`` (two on a 2-core
machine; ``NUMBA_NUM_THREADS=1`` makes it one), so the wall-clock ratios count a second
core when it is free, and the CPU-time ratios count all threads of the process.

The machine these were written on is shared (2 cores, several engineers): ratios within one
run are what to compare, never seconds across runs.
"""
import argparse
import time

import numpy as np

SIGMA = 1e-4


def measure(X, y, reps=9, clock=time.perf_counter):
    """Median ratios to one SpMV: {'check': c, 'sgd': (whole, steps, check, rest),
    'svmsgd2': (whole, steps, check, rest), 'spmv_seconds': s, 'reps': reps}, timed by
    ``clock`` (``time.process_time``, the CPU time of all threads of this process, is less
    disturbed by other processes than the wall clock and counts the threads of the
    parallel validation pass, which ``time.thread_time`` would miss; the steps' own time
    is ``res.trace.seconds``, wall clock, so their ratio and the rest are reported only
    with the wall clock)."""

    def _timed(f):
        t = clock()
        out = f()
        return clock() - t, out

    import rlmlib
    from rlmlib.core import rows
    from rlmlib.core.rows import check_X_y

    def one_thread_check():
        with rows.fixed_pass_threads(1):
            return check_X_y(X, y, compact_dense=True)

    w = np.random.default_rng(0).standard_normal(X.shape[1])
    calls = {
        "check": lambda: check_X_y(X, y, compact_dense=True),
        "check1": one_thread_check,
        "sgd": lambda: rlmlib.sgd(X, y, sigma=SIGMA, epochs=1, order="cyclic"),
        "svmsgd2": lambda: rlmlib.svmsgd2(X, y, sigma=SIGMA, epochs=1, t0=1e4,
                                          order="cyclic"),
    }
    X @ w
    for f in calls.values():  # warm-up: numba's cache, first-touch of the arrays
        f()
    ratio = {k: [] for k in calls}
    steps = {k: [] for k in calls}
    checks = {k: [] for k in calls}  # the pass inside the call: res.info["check_seconds"]
    spmv = []
    for _ in range(reps):
        for k, f in calls.items():
            s1, _ = _timed(lambda: X @ w)
            sec, out = _timed(f)
            s2, _ = _timed(lambda: X @ w)
            s = 0.5 * (s1 + s2)  # the product just before and just after
            spmv.append(s)
            ratio[k].append(sec / s)
            if not k.startswith("check") and clock is time.perf_counter:
                steps[k].append(out.trace.seconds[-1] / s)
                checks[k].append(out.info["check_seconds"] / s)
    out = {"check": float(np.median(ratio["check"])), "reps": reps,
           "check1": float(np.median(ratio["check1"])), "threads": rows.pass_threads(),
           "spmv_seconds": float(np.median(spmv)), "m": X.shape[0], "n": X.shape[1],
           "nnz": int(X.nnz)}
    for k in ("sgd", "svmsgd2"):
        whole = float(np.median(ratio[k]))
        steps_k = float(np.median(steps[k])) if steps[k] else float("nan")
        check_k = float(np.median(checks[k])) if checks[k] else float("nan")
        # neither the steps nor the validation pass (medians; noisy on a loaded machine)
        out[k] = (whole, steps_k, check_k, whole - steps_k - check_k)
    out["clock"] = ("wall clock" if clock is time.perf_counter else
                    "process CPU time, all threads")
    return out


def report(out):
    print(f"RCV1-like rows {out['m']:,} x {out['n']:,}, {out['nnz']:,} non-zeros; one CSR "
          f"SpMV = {out['spmv_seconds'] * 1e3:.1f} ms (median); ratios to it, median of "
          f"{out['reps']} alternating repetitions, {out['clock']} (shared, loaded machine)")
    print(f"  validation pass check_X_y (structure, finiteness, scale): "
          f"{out['check']:.2f} SpMV on {out['threads']} thread(s), "
          f"{out['check1']:.2f} on one")
    for k, label in [("sgd", "sgd(order='cyclic'), one epoch"),
                     ("svmsgd2", "svmsgd2(t0=1e4, order='cyclic'), one epoch")]:
        whole, steps, check, rest = out[k]
        print(f"  {label:<44} whole call {whole:5.2f}  check {check:4.2f}  steps "
              f"{steps:4.2f}  rest {rest:4.2f} SpMV" if steps == steps else
              f"  {label:<44} whole call {whole:5.2f} SpMV")


def measure_dense(m=50_000, n=300, reps=9, clock=time.perf_counter):
    """The validation pass on dense ALPHA-like rows, C- and Fortran-ordered, in multiples of
    one product ``X @ w`` (BLAS on one thread) of the same array, timed alternately with it:
    {form: {'compact': ratio, 'tiled': ratio}}. 'compact' is ``check_X_y(X, y,
    compact_dense=True)`` (lbfgs, the l1 methods, sgd: the pass alone); 'tiled' adds the
    column indices repeated per row that the kernels reading dense rows as CSR need (sag,
    svrg, saga, pegasos, pgs, ...): a layout, written once, not a check. A Fortran-ordered
    array is copied to C order first (rows must be contiguous; scikit-learn's linear models
    ask ``validate_data(..., order="C")`` and copy it too)."""
    from threadpoolctl import threadpool_limits

    from rlmlib.core.rows import check_X_y
    from rlmlib.datasets import synthetic

    d = synthetic.alpha_like(m=m, n=n, seed=0)
    C = np.ascontiguousarray(d.X)
    forms = {"dense C-ordered": C, "dense Fortran-ordered": np.asfortranarray(C)}
    w = np.random.default_rng(0).standard_normal(n)
    out = {"m": m, "n": n, "reps": reps}
    with threadpool_limits(1):
        for name, X in forms.items():
            calls = {"compact": lambda: check_X_y(X, d.y, compact_dense=True),
                     "tiled": lambda: check_X_y(X, d.y)}
            X @ w
            for f in calls.values():
                f()
            r = {k: [] for k in calls}
            for _ in range(reps):
                for k, f in calls.items():
                    t = clock()
                    X @ w
                    s1 = clock() - t
                    t = clock()
                    f()
                    c = clock() - t
                    t = clock()
                    X @ w
                    s2 = clock() - t
                    r[k].append(2 * c / (s1 + s2))
            out[name] = {k: float(np.median(v)) for k, v in r.items()}
            print(f"{name:22s} {m:,} x {n}: check_X_y {out[name]['compact']:.2f} SpMV "
                  f"(compact), {out[name]['tiled']:.2f} with the tiled indices; median of "
                  f"{reps}", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--dense", action="store_true",
                    help="dense ALPHA-like rows (C and Fortran order) instead")
    a = ap.parse_args()
    from rlmlib.datasets import synthetic

    if a.dense:
        measure_dense(min(a.rows, 50_000), reps=a.reps)
        return
    d = synthetic.rcv1_like(m=a.rows, n=47_236, seed=0)
    report(measure(d.X, d.y, a.reps))
    report(measure(d.X, d.y, a.reps, clock=time.process_time))


if __name__ == "__main__":
    main()
