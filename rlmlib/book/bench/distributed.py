"""rlmlib's distributed solvers against dask-ml on one Dask cluster (ℓ2-logistic).

The same data, written as K = 4 ``.npz`` shards, is read by the workers of a
``LocalCluster`` of W = 1, 2, 4 single-threaded worker processes; rlmlib's
``local_sgd``, ``local_svrg`` and ``cocoa`` take the partitions' futures, dask-ml's
``LogisticRegression`` (solvers ``lbfgs`` and ``admm``) a dask array made on the workers
from the *same* futures (one chunk per partition, persisted before the clock starts). Every method is timed to the relative
gaps (F(w) − F*)/F* of 1e-3 and 1e-6, F* from ``rlmlib.lbfgs`` polished by Newton steps
and certified by strong convexity (F(w) − F* ≤ ‖∇F(w)‖²/(2σ)).

**The objective matched.** dask-glm's logistic family with labels 0/1 and an ℓ2 regularizer
minimizes Σ_i log(1 + exp(−ỹ_i⟨β, x_i⟩)) + (λ/2)‖β‖² (ỹ = ±1, ``Logistic.loglike`` and
``L2.f`` = ‖β‖²/2) with λ = 1/C (``LogisticRegression._get_solver_kwargs``): m times
rlmlib's F(w) = (1/m) Σ ℓ_i + (σ/2)‖w‖² when C = 1/(σm). ``fit_intercept=False``, and
``solver_kwargs={'normalize': False}`` (dask-glm's ``@normalize`` on both solvers would
otherwise standardize the columns and regularize the standardized coefficients: another
problem). admm keeps its defaults (ρ = 1, local L-BFGS-B of at most 200 iterations) but
runs without its stopping test (abstol = reltol = 0): the gaps stop it.

**How the peers are timed.** dask-ml returns only its last iterate, so the run is traced
from inside without changing its computation: lbfgs's objective evaluations (the value
scipy's L-BFGS-B receives is m·F(β) itself) and admm's consensus iterate z (read where
dask-glm applies the ℓ2 proximal step, once per ADMM iteration) are recorded with their
time; the clock stops while a recorded z is evaluated. A run stops at the gap 1e-6 or at
its budget. rlmlib's times are its trace's solver seconds (the objective evaluated every
round for the trace is not counted) plus its set-up (the partitions' shapes, CoCoA's
initial duals), measured around the call.

**The communication model** (page ``chapters/distributed``): a round of K partition tasks
costs T_round = c·E·(m/K)·⌈K/W⌉ + a + b·K + 16·K·n/B seconds on W workers (each runs
⌈K/W⌉ partitions in turn; local SVRG: two rounds of tasks, 2(a + bK), and 40·K·n/B for
its five vectors per partition, ``EXCHANGES``): c the local solver's seconds per example (measured serially
on one partition's worth of rows), a and b the fixed and per-task cost of a round of Dask tasks (fitted to trivial rounds of
1 to 8 tasks carrying n floats), B the bandwidth of Dask's transfers on this machine's
loopback (a 32 MB array gathered from a worker). The projection to 64 workers multiplies
T_round(64) by the rounds the algorithm needs with 64 partitions, counted by running it
with 64 partitions (the rounds do not depend on where the partitions run).
"""
import argparse
import os
import tempfile
import time

import numpy as np

#: relative gaps (F - F*)/F* the methods are timed to, and their keys in the record
TARGETS = (1e-3, 1e-6)
KEYS = ("1e-3", "1e-6")
METHODS = ("local_sgd", "local_svrg", "cocoa", "dask-ml lbfgs", "dask-ml admm")
#: per round: rounds of tasks (latency a + bK each) and vectors of n floats moved per
#: partition (local SVRG: w to the gradient task, its sum back, w and the gradient to
#: the round's task, the change back)
EXCHANGES = {"local_sgd": (1, 2), "local_svrg": (2, 5), "cocoa": (1, 2)}


# ----------------------------------------------------------------------------- data, F*
def make_data(m, n, seed=0):
    """Dense Gaussian rows of norm about 1, labels ±1 drawn from a logistic model."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n)) / np.sqrt(n)
    w_true = 3.0 * rng.standard_normal(n)
    p = 1.0 / (1.0 + np.exp(-X @ w_true))
    y = np.where(rng.random(m) < p, 1.0, -1.0)
    return X, y


def logistic_F(X, y, w, sigma):
    z = y * (X @ w)
    return float(np.mean(np.logaddexp(0.0, -z)) + 0.5 * sigma * w @ w)


def logistic_grad_hess(X, y, w, sigma):
    z = y * (X @ w)
    s = 0.5 * (1.0 - np.tanh(0.5 * z))          # sigmoid(-z), no overflow
    g = X.T @ (-y * s) / X.shape[0] + sigma * w
    H = (X * (s * (1 - s))[:, None]).T @ X / X.shape[0] + sigma * np.eye(X.shape[1])
    return g, H


def certified_optimum(X, y, sigma):
    """(w*, F(w*), bound): ``rlmlib.lbfgs`` then Newton steps; bound = ‖∇F‖²/(2σ) ≥
    F(w*) − F* (σ-strong convexity)."""
    import rlmlib

    w = rlmlib.lbfgs(X, y, sigma=sigma, loss="logistic", tol=1e-12).w.copy()
    for _ in range(5):
        g, H = logistic_grad_hess(X, y, w, sigma)
        w = w - np.linalg.solve(H, g)
    g, _ = logistic_grad_hess(X, y, w, sigma)
    return w, logistic_F(X, y, w, sigma), float(g @ g) / (2 * sigma)


# ----------------------------------------------------------------------------- timing
def first_hit(times, rel, target):
    """(seconds, index) of the first entry with rel <= target, or (None, None)."""
    hit = np.flatnonzero(np.asarray(rel) <= target)
    if not hit.size:
        return None, None
    return float(times[hit[0]]), int(hit[0])


def time_rlmlib(fn, parts, client, Fstar, **kw):
    t = time.perf_counter()
    res = fn(parts, client=client, **kw)
    wall = time.perf_counter() - t
    tr = res.trace
    setup = wall - float(tr.seconds[-1]) - tr.eval_seconds
    rel = (tr.objective - Fstar) / Fstar
    out = {"rounds": int(res.info["rounds"]), "setup_s": setup,
           "round_s": float(tr.seconds[-1]) / int(res.info["rounds"]),
           "final_gap": float(rel[-1])}
    for target, key in zip(TARGETS, KEYS):
        s, r = first_hit(setup + tr.seconds, rel, target)
        out[key] = {"seconds": s, "rounds": r}
    return out


class _Stop(Exception):
    pass


def time_dask_ml(solver, Xd, yd, X, y, sigma, Fstar, budget_s, max_iter):
    """Fit dask-ml's LogisticRegression, recording (time, F) per iteration (see module)."""
    import dask_glm.algorithms as alg
    import dask_glm.regularizers as regs
    from dask_ml.linear_model import LogisticRegression

    m = X.shape[0]
    rec = {"t": [], "F": []}
    clock = {"t0": 0.0, "paused": 0.0}

    def now():
        return time.perf_counter() - clock["t0"] - clock["paused"]

    def note(F):
        rec["t"].append(now())
        rec["F"].append(F)
        if (F - Fstar) / Fstar <= TARGETS[-1] or now() > budget_s:
            raise _Stop

    orig_fmin = alg.fmin_l_bfgs_b
    orig_prox = regs.L2.proximal_operator

    def fmin(func, x0, *a, **kw):
        def traced(beta, *args):
            f, g = func(beta, *args)
            note(float(f) / m)            # m·F(β): the value L-BFGS-B minimizes
            return f, g
        return orig_fmin(traced, x0, *a, **kw)

    def prox(self, beta, t):
        z = orig_prox(self, beta, t)
        p = time.perf_counter()
        F = logistic_F(X, y, z, sigma)
        clock["paused"] += time.perf_counter() - p
        note(F)
        return z

    kw = dict(penalty="l2", C=1.0 / (sigma * m), fit_intercept=False, solver=solver,
              max_iter=max_iter)
    if solver == "lbfgs":
        kw.update(tol=0.0, solver_kwargs={"normalize": False})
    else:
        kw.update(solver_kwargs={"normalize": False, "abstol": 0.0, "reltol": 0.0})
    est = LogisticRegression(**kw)
    if solver == "lbfgs":
        alg.fmin_l_bfgs_b = fmin          # dask-glm's lbfgs calls it by this name
    else:
        regs.L2.proximal_operator = prox
    clock["t0"] = time.perf_counter()
    try:
        est.fit(Xd, yd)
    except _Stop:
        pass
    finally:
        alg.fmin_l_bfgs_b = orig_fmin
        regs.L2.proximal_operator = orig_prox
    rel = (np.array(rec["F"]) - Fstar) / Fstar
    out = {"iterations": len(rel), "final_gap": float(rel[-1]) if len(rel) else None,
           "seconds_run": now()}
    for target, key in zip(TARGETS, KEYS):
        s, i = first_hit(rec["t"], rel, target)
        out[key] = {"seconds": s, "rounds": None if i is None else i + 1}
    return out


# ----------------------------------------------------------------------------- the cluster
def _dense_X(part):
    return part[0].toarray()


def _labels01(part):
    return (part[1] > 0).astype(np.float64)


def dask_arrays(client, parts, sizes, n):
    """X and y (labels 0/1) as dask arrays whose chunks are made on the workers from
    the partitions' futures, persisted."""
    import dask
    import dask.array as da

    xs = [da.from_delayed(dask.delayed(_dense_X)(p), shape=(int(s), n), dtype=float)
          for p, s in zip(parts, sizes)]
    ys = [da.from_delayed(dask.delayed(_labels01)(p), shape=(int(s),), dtype=float)
          for p, s in zip(parts, sizes)]
    Xd, yd = client.persist([da.concatenate(xs), da.concatenate(ys)])
    from distributed import wait

    wait([Xd, yd])
    return Xd, yd


def _noop(w):
    return w


def round_costs(client, n, reps=20):
    """Median seconds of a round of K trivial tasks carrying n floats (submit, gather),
    for K = 1, 2, 4, 8, and the least-squares fit a + b·K."""
    Ks = (1, 2, 4, 8)
    w = np.zeros(n)
    med = []
    for K in Ks:
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            client.gather([client.submit(_noop, w, pure=False) for _ in range(K)])
            ts.append(time.perf_counter() - t)
        med.append(float(np.median(ts)))
    b, a = np.polyfit(np.array(Ks, float), np.array(med), 1)
    return {"K": list(Ks), "seconds": med, "a": float(a), "b": float(b)}


def _big(nbytes):
    return np.ones(nbytes // 8)


def bandwidth(client, nbytes=32 * 2 ** 20, reps=5):
    """Bytes per second of gathering an ``nbytes`` array from a worker (Dask's transfer
    over this machine's loopback), the fastest of ``reps``."""
    from distributed import wait

    f = client.submit(_big, nbytes, pure=False)
    wait(f)
    best = np.inf
    for _ in range(reps):
        t = time.perf_counter()
        client.gather(f)
        best = min(best, time.perf_counter() - t)
    return nbytes / best


def local_seconds_per_example(X, y, sigma, reps=3):
    """c: seconds per example of one round's local work of each method's kernel
    (serial, in this process, one partition's worth of rows): SGD's and SDCA's passes,
    SVRG's gradient pass and pass of steps."""
    import rlmlib

    rows = min(X.shape[0], 50_000)
    Xs = __import__("scipy.sparse", fromlist=["csr_matrix"]).csr_matrix(X[:rows])
    ys = y[:rows]
    out = {}
    # local_svrg: a round is a gradient pass and a pass of steps, a stage of svrg with
    # inner = rows (its epochs count both passes)
    for name, f in (("local_sgd", lambda e: rlmlib.sgd(Xs, ys, sigma=sigma, epochs=e,
                                                        loss="logistic")),
                    ("local_svrg", lambda e: rlmlib.svrg(Xs, ys, sigma=sigma,
                                                         epochs=2 * e, inner=rows,
                                                         loss="logistic",
                                                         order="reshuffle")),
                    ("cocoa", lambda e: rlmlib.sdca(Xs, ys, sigma=sigma, epochs=e,
                                                    loss="logistic", shrinking=False))):
        f(1)                                # compile
        best = np.inf
        for _ in range(reps):
            t = time.perf_counter(); f(3); t3 = time.perf_counter() - t
            t = time.perf_counter(); f(1); t1 = time.perf_counter() - t
            best = min(best, (t3 - t1) / 2)
        out[name] = best / rows
    return out


# ----------------------------------------------------------------------------- the run
def run(m, n, sigma, workers=(1, 2, 4), K=4, rounds=(30, 60, 15), budget_s=60.0,
        project_to=64, seed=0):
    from distributed import wait

    from rlmlib.book.cluster_pages import local_cluster, write_shards
    from rlmlib.distributed import cocoa, load_npz_partitions, local_sgd, local_svrg

    X, y = make_data(m, n, seed)
    wstar, Fstar, bound = certified_optimum(X, y, sigma)
    assert bound <= 1e-3 * TARGETS[-1] * Fstar, (bound, Fstar)
    folder = tempfile.mkdtemp(prefix="rlmlib-bench-dist-")
    paths, sizes = write_shards(folder, X, y, K)
    paths64, _ = write_shards(folder, X, y, project_to)
    out = {"m": m, "n": n, "sigma": sigma, "K": K, "F_star": Fstar,
           "F_star_bound": bound, "targets": list(TARGETS), "budget_s": budget_s,
           "workers": {}, "cores": os.cpu_count()}
    print(f"m = {m}, n = {n}, sigma = {sigma:g}, K = {K} partitions; F* = {Fstar:.10f} "
          f"(certified to {bound:.1e})", flush=True)
    for W in workers:
        client, cluster = local_cluster(W)
        try:
            parts = load_npz_partitions(client, paths)
            wait(parts)                  # read on the workers before any clock
            Xd, yd = dask_arrays(client, parts, sizes, n)
            row = {"load_before": os.getloadavg()[0]}
            # warm the kernels on every worker
            local_sgd(parts, sigma=sigma, rounds=1, loss="logistic", client=client)
            local_svrg(parts, sigma=sigma, rounds=1, loss="logistic", client=client)
            cocoa(parts, sigma=sigma, rounds=1, loss="logistic", client=client)
            for solver in ("lbfgs", "admm"):
                time_dask_ml(solver, Xd, yd, X, y, sigma, Fstar, 0.0, max_iter=1)
            row["local_sgd"] = time_rlmlib(local_sgd, parts, client, Fstar, sigma=sigma,
                                           rounds=rounds[0], loss="logistic")
            row["cocoa"] = time_rlmlib(cocoa, parts, client, Fstar, sigma=sigma,
                                       rounds=rounds[1], loss="logistic")
            row["local_svrg"] = time_rlmlib(local_svrg, parts, client, Fstar,
                                            sigma=sigma, rounds=rounds[2],
                                            loss="logistic")
            row["dask-ml lbfgs"] = time_dask_ml("lbfgs", Xd, yd, X, y, sigma, Fstar,
                                                budget_s, max_iter=1000)
            row["dask-ml admm"] = time_dask_ml("admm", Xd, yd, X, y, sigma, Fstar,
                                               budget_s, max_iter=1000)
            row["load_after"] = os.getloadavg()[0]
            out["workers"][str(W)] = row
            print(line(W, row), flush=True)
            if W == max(workers):
                out["round_costs"] = round_costs(client, n)
                out["bandwidth_Bps"] = bandwidth(client)
                p64 = load_npz_partitions(client, paths64)
                out["rounds_64"] = {
                    "local_sgd": time_rlmlib(local_sgd, p64, client, Fstar, sigma=sigma,
                                             rounds=rounds[0], loss="logistic"),
                    "cocoa": time_rlmlib(cocoa, p64, client, Fstar, sigma=sigma,
                                         rounds=rounds[1], loss="logistic"),
                    "local_svrg": time_rlmlib(local_svrg, p64, client, Fstar,
                                              sigma=sigma, rounds=rounds[2],
                                              loss="logistic")}
        finally:
            client.close()
            cluster.close()
    out["c"] = local_seconds_per_example(X, y, sigma)
    out["projection"] = projection(out, project_to)
    return out


def projection(rec, W64=64):
    """Modelled seconds to each gap for W = 1, 2, 4 (K = 4 rounds measured) and 64
    workers (rounds counted with 64 partitions)."""
    costs, B, m, n = rec["round_costs"], rec["bandwidth_Bps"], rec["m"], rec["n"]
    out = {}
    for meth in RLMLIB_METHODS:
        if meth not in rec["c"]:
            continue                    # a record made before the method was added
        c = rec["c"][meth]
        tasks, vectors = EXCHANGES[meth]
        row = {}
        for W in list(rec["workers"]) + [str(W64)]:
            src = (rec["rounds_64"][meth] if W == str(W64)
                   else rec["workers"][W][meth])
            K = W64 if W == str(W64) else rec["K"]
            Wi = int(W)
            # K partitions on W workers: each worker runs ceil(K/W) partitions in turn
            per = (c * m * int(np.ceil(K / Wi)) / K + tasks * (costs["a"] + costs["b"] * K)
                   + vectors * 8 * K * n / B)
            row[W] = {k: (None if src[k]["rounds"] is None else src[k]["rounds"] * per)
                      for k in KEYS}
            row[W]["round_s"] = per
        out[meth] = row
    return out


# ----------------------------------------------------------------------------- display
def _fmt(v):
    return "   -  " if v is None else f"{v:6.2f}"


def line(W, row):
    cells = "  ".join(f"{k} {_fmt(row[k]['1e-3']['seconds'])}/"
                      f"{_fmt(row[k]['1e-6']['seconds'])}" for k in METHODS if k in row)
    return f"W = {W}: {cells}"


def table(rec):
    """The recorded run as text (lines of at most 88 characters): seconds to the relative
    gaps 1e-3 and 1e-6 for each method and number of workers ('-': not reached within the
    run's rounds or budget), then the model's projection.

    Parameters
    ----------
    rec : dict
        ``data/recorded/bench_distributed.json`` (:func:`rlmlib.book.records.load`).

    Returns
    -------
    str

    Examples
    --------
    >>> hit = {"1e-3": {"seconds": 0.5}, "1e-6": {"seconds": None}}
    >>> rec = {"workers": {"1": {k: hit for k in METHODS}, "2": {k: hit for k in METHODS}}}
    >>> print(table(rec))
                            1 worker         2 workers
    method             1e-3     1e-6     1e-3     1e-6
    local_sgd          0.50        -     0.50        -
    local_svrg         0.50        -     0.50        -
    cocoa              0.50        -     0.50        -
    dask-ml lbfgs      0.50        -     0.50        -
    dask-ml admm       0.50        -     0.50        -
    """
    Ws = list(rec["workers"])
    head1 = f"{'':14s}" + "".join(f"{W + (' worker' if W == '1' else ' workers'):>18s}"
                                  for W in Ws)
    head2 = f"{'method':14s}" + "".join(f"{'1e-3':>9s}{'1e-6':>9s}" for _ in Ws)
    lines = [head1, head2]
    for k in _present(rec, METHODS):
        cells = "".join(f"{_cell(rec['workers'][W][k]['1e-3']['seconds'])}"
                        f"{_cell(rec['workers'][W][k]['1e-6']['seconds'])}" for W in Ws)
        lines.append(f"{k:14s}{cells}")
    return "\n".join(lines)


def _present(rec, methods):
    """The methods the record ran (a record made before a method was added lacks it)."""
    first = next(iter(rec["workers"].values()))
    return [k for k in methods if k in first]


def _cell(v):
    return f"{'-':>9s}" if v is None else f"{v:9.2f}"


def cpu_model():
    """The CPU's model name (Linux's /proc/cpuinfo), or the platform's processor."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--features", type=int, default=50)
    ap.add_argument("--sigma", type=float, default=1e-4)
    ap.add_argument("--workers", type=int, nargs="*", default=[1, 2, 4])
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds a dask-ml run may take before it is stopped")
    ap.add_argument("--record", action="store_true",
                    help="save to data/recorded/bench_distributed.json")
    a = ap.parse_args(argv)
    from rlmlib.book import records

    rec = records.start()
    rec["full"] = a.record
    rec.update(run(a.rows, a.features, a.sigma, workers=tuple(a.workers),
                   budget_s=a.budget))
    print(table(rec))
    import dask_ml

    return records.save(rec, "bench_distributed", what="issue 34 item 4: rlmlib's "
                        "local_sgd and cocoa against dask-ml's LogisticRegression "
                        "(lbfgs, admm) on one LocalCluster", load_average=os.getloadavg(),
                        cpu=cpu_model(), dask_ml=dask_ml.__version__)


# ----------------------------------------------------------------------------- findings
RLMLIB_METHODS = ("local_sgd", "local_svrg", "cocoa")
#: what one round of each rlmlib method computes (the sentences of :func:`slower`)
ROUND_WORK = {"local_sgd": "one local pass", "local_svrg": "a gradient pass and a local "
              "pass", "cocoa": "one local pass"}
PEERS = ("dask-ml lbfgs", "dask-ml admm")


def speedups(rec, key):
    """{method: {W: t(1 worker) / t(W workers)}} at the gap ``key`` ('1e-3', '1e-6'),
    for the methods that reached it on one worker and on W.

    Examples
    --------
    >>> t = lambda s: {k: {"seconds": s} for k in KEYS}
    >>> rec = {"workers": {"1": {m: t(4.0) for m in METHODS},
    ...                    "2": {m: t(2.5) for m in METHODS}}}
    >>> speedups(rec, "1e-3")["cocoa"]
    {'2': 1.6}
    """
    out = {}
    one = rec["workers"]["1"]
    for meth in _present(rec, METHODS):
        t1 = one[meth][key]["seconds"]
        row = {}
        for W, r in rec["workers"].items():
            tW = r[meth][key]["seconds"]
            if W != "1" and t1 is not None and tW is not None:
                row[W] = round(t1 / tW, 2)
        out[meth] = row
    return out


def _best_peer(row, key):
    got = [(row[p][key]["seconds"], p) for p in PEERS if row[p][key]["seconds"]
           is not None]
    return min(got) if got else (None, None)


def slower(rec, W="2"):
    """Sentences, computed from the record, saying at which gap each rlmlib method is
    slower than the faster dask-ml solver on W workers, and why (its rounds and their
    cost, or the rate that kept it from the gap); and where it is not slower.

    Examples
    --------
    >>> hit = lambda s, n: {"seconds": s, "rounds": n}
    >>> r = {m: {"1e-3": hit(1.0, 10), "1e-6": hit(None, None), "final_gap": 1e-4,
    ...          "rounds": 30, "round_s": 0.1, "iterations": 30} for m in METHODS}
    >>> slower({"workers": {"2": r}})[1][:53]
    'local_sgd did not reach 1e-6 in 30 rounds (its gap en'
    """
    row = rec["workers"][W]
    out = []
    for meth in _present(rec, RLMLIB_METHODS):
        r = row[meth]
        for key in KEYS:
            t = r[key]["seconds"]
            tp, peer = _best_peer(row, key)
            if t is None:
                why = ("its steps 1/(sigma (t + t0)) shrink, so its error falls like "
                       "1/t, not geometrically." if meth == "local_sgd" else
                       "more rounds were needed than the run had.")
                s = (f"{meth} did not reach {key} in {r['rounds']} rounds (its gap ended "
                     f"at {r['final_gap']:.1e}): {why}")
                if tp is not None:
                    s = s[:-1] + f"; {peer} reached it in {tp:.2f} s."
                out.append(s)
            elif tp is not None and t > tp:
                p = row[peer]
                out.append(
                    f"{meth} took {t:.2f} s to {key} against {tp:.2f} s for {peer}: "
                    f"{r[key]['rounds']} rounds of {ROUND_WORK[meth]} at "
                    f"{r['round_s']:.3f} s each, against {p[key]['rounds']} "
                    f"{'evaluations' if 'lbfgs' in peer else 'iterations'} at "
                    f"{tp / p[key]['rounds']:.3f} s.")
            elif t is not None:
                out.append(f"{meth} reached {key} in {t:.2f} s, "
                           + ("no dask-ml solver did." if tp is None else
                              f"{peer} in {tp:.2f} s."))
    return out


def model_rows(rec):
    """The model's round time against the measured one (W = 1, 2, 4, K = 4) and the
    projection to 64 workers, as (header, rows) for
    :func:`rlmlib.book.captions.markdown_table` (``-``: not measured or not reached).

    Examples
    --------
    >>> p = {"round_s": 0.1, "1e-3": 0.5, "1e-6": None}
    >>> rec = {"workers": {"1": {m: {"round_s": 0.2} for m in RLMLIB_METHODS}},
    ...        "projection": {m: {"1": p, "64": p} for m in RLMLIB_METHODS}}
    >>> model_rows(rec)[1][1]
    ['local_sgd', '64', '-', '0.100', '0.500', '-']
    """
    head = ["method", "workers", "round s (measured)", "round s (model)",
            "to 1e-3 (model)", "to 1e-6 (model)"]
    out = []
    proj = rec["projection"]
    for meth in [k for k in RLMLIB_METHODS if k in proj]:
        for W, p in proj[meth].items():
            meas = (rec["workers"][W][meth]["round_s"] if W in rec["workers"]
                    else None)
            out.append([meth, W, *("-" if v is None else f"{v:.3f}"
                                   for v in (meas, p["round_s"], *(p[k] for k in KEYS)))])
    return head, out


def model_ratios(rec):
    """measured / modelled seconds per round, for every method and number of workers
    the record ran (K = 4 partitions).

    Examples
    --------
    >>> rec = {"workers": {"1": {m: {"round_s": 0.2} for m in RLMLIB_METHODS}},
    ...        "projection": {m: {"1": {"round_s": 0.1}} for m in RLMLIB_METHODS}}
    >>> model_ratios(rec)
    {'local_sgd': {'1': 2.0}, 'local_svrg': {'1': 2.0}, 'cocoa': {'1': 2.0}}
    """
    return {meth: {W: rec["workers"][W][meth]["round_s"] / p["round_s"]
                   for W, p in rec["projection"][meth].items() if W in rec["workers"]}
            for meth in RLMLIB_METHODS if meth in rec["projection"]}
