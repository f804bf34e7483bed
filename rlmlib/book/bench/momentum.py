"""Whole calls of rlmlib's momentum and accelerated solvers against their nearest peers, in
one process (``make bench`` runs it through benchmarks/bench_momentum.py).

    .venv/bin/python benchmarks/bench_momentum.py           # full sizes, 5 reps
    .venv/bin/python benchmarks/bench_momentum.py --quick   # smaller, 3 reps
    nice -n 5 .venv/bin/python benchmarks/bench_momentum.py --record   # item 3 only

1. ``sgd_momentum``'s default call (heavy ball, β = 0.9, one pass, RCV1-like rows) against
   a plain NumPy/scipy transcription of its box, step by step on the same CSR rows and the
   same example order (scikit-learn's ``SGDClassifier`` has no momentum): times of whole
   calls and the largest difference of the two weights.
2. Time to a relative gap (F - F*)/F* <= 1e-6 on ill-conditioned ℓ2-logistic problems
   (κ = L_max/σ well above m, and one with κ < m) for ``rlmlib.catalyst``, ``rlmlib.saga``
   and scikit-learn's ``LogisticRegression(solver="saga")`` (same objective, C = 1/(σm),
   no intercept, tol=0): each method's fewest passes to the target are found on a
   checkpointed run (rlmlib) or by doubling and bisection over ``max_iter`` (scikit-learn),
   then whole calls with that budget are timed. F* comes from ``rlmlib.lbfgs`` at a
   gradient tolerance of 1e-13.
3. The same for ``rlmlib.katyusha`` against ``rlmlib.saga``, ``rlmlib.catalyst`` and
   scikit-learn's ``saga`` and ``lbfgs`` (``katyusha_table``) on the dense shipped sets
   ``breast_cancer`` and ``digits`` with unit rows at κ/m = 10, 30, 100, and Katyusha's
   seconds per pass against SAGA's on the sparse shipped set ``spam`` (both take
   O(nnz(x_i)) steps there; Katyusha's lazy ones), with the coordinates of (z, y) a
   Katyusha pass writes (``res.info['coordinate_updates']``, a count, not a time).
   ``--record`` runs only this table and saves it to ``data/recorded/bench_momentum.json``
   (:mod:`rlmlib.book.records`: commit, machine, load), which the page
   "Accelerated variance reduction" shows.

Times are medians over alternating repetitions after a warm-up; the machine is shared, so
the load average is printed with them and only ratios measured in the same run mean
anything. Nothing here is asserted on timings.
"""
import argparse
import math
import os
import warnings

import numpy as np

from .vr import _quiet, alternate


def sgd_momentum_numpy(X, y, sigma, step, beta, order):
    """The box of SGD with heavy-ball momentum, transcribed with NumPy on CSR rows: dense
    w and v updated at every step (O(n) a step), logistic loss, labels ±1.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix, shape (m, n)
    y : numpy.ndarray of ±1, shape (m,)
    sigma, step, beta : float
    order : sequence of int

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> X = sp.csr_matrix(np.eye(2)); y = np.array([1.0, -1.0])
    >>> sgd_momentum_numpy(X, y, 0.0, 1.0, 0.0, [0]).tolist()
    [0.5, 0.0]
    """
    data, ind, ptr = X.data, X.indices, X.indptr
    w, v = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for j in order:
        a, b = ptr[j], ptr[j + 1]
        idx, val = ind[a:b], data[a:b]
        yz = y[j] * (val @ w[idx])
        c = -y[j] / (1.0 + math.exp(yz)) if yz > -700 else -y[j]
        v *= beta
        v += sigma * w
        v[idx] += c * val
        w -= step * v
    return w


def bench_default_call(X, y, sigma, reps):
    """sgd_momentum's default call (one pass) against ``sgd_momentum_numpy``."""
    import rlmlib
    from rlmlib.book.vr import draws

    yb = np.where(y > 0, 1.0, -1.0)
    res = rlmlib.sgd_momentum(X, y, sigma=sigma, epochs=1)
    order = draws(X.shape[0], X.shape[0], order="reshuffle", seed=0)
    ref = sgd_momentum_numpy(X, yb, sigma, res.params["step"], 0.9, order)
    diff = float(np.abs(res.w - ref).max() / max(np.abs(ref).max(), 1e-300))
    t = alternate({"rlmlib": lambda: rlmlib.sgd_momentum(X, y, sigma=sigma, epochs=1),
                   "numpy": lambda: sgd_momentum_numpy(X, yb, sigma, res.params["step"],
                                                       0.9, order)}, reps)
    print(f"sgd_momentum default call, {X.shape[0]} x {X.shape[1]}, one pass: rlmlib "
          f"{t['rlmlib']:.3f} s, NumPy transcription {t['numpy']:.3f} s, ratio "
          f"{t['rlmlib'] / t['numpy']:.3g}; max relative difference of w {diff:.1e}")
    return {"diff": diff, **t}


def _passes_rlmlib(solver, X, y, sigma, F_star, eps, max_epochs):
    tr = solver(X, y, sigma=sigma, epochs=max_epochs, n_checkpoints=max_epochs).trace
    hit = np.flatnonzero(np.asarray(tr.objective) <= F_star * (1 + eps))
    return int(round(tr.epoch[hit[0]])) if hit.size else None


def _passes_sklearn(X, y, sigma, F_star, eps, max_epochs, solver="saga"):
    """Fewest ``max_iter`` at which scikit-learn's ``solver`` reaches the relative gap
    ``eps`` (doubling, then bisection to 2 %), and the estimator fitted with it."""
    import rlmlib
    from sklearn.linear_model import LogisticRegression

    m = X.shape[0]

    def gap_at(E):
        est = LogisticRegression(solver=solver, C=1.0 / (sigma * m), fit_intercept=False,
                                 max_iter=E, tol=0.0, random_state=0)
        _quiet(lambda: est.fit(X, y))()
        F = rlmlib.objective(X, y, np.ravel(est.coef_), sigma=sigma, loss="logistic")
        return F / F_star - 1, est

    lo, hi = 0, 1
    while gap_at(hi)[0] > eps:
        lo, hi = hi, 2 * hi
        if hi > max_epochs:
            return None, None
    while hi - lo > max(1, hi // 50):
        mid = (lo + hi) // 2
        if gap_at(mid)[0] > eps:
            lo = mid
        else:
            hi = mid
    return hi, gap_at(hi)[1]


#: the methods of the time-to-gap table, in print order
TIMED = ("katyusha", "catalyst", "saga", "sklearn saga", "sklearn lbfgs")


def kappa_of(X, sigma):
    """κ = L_max/σ of ℓ2-logistic (L_max = max‖x_i‖²/4 of the loss part)."""
    sq = X.multiply(X).sum(axis=1) if hasattr(X, "multiply") else (X * X).sum(axis=1)
    return 0.25 * float(np.max(sq)) / sigma


def bench_time_to_gap(name, X, y, sigma, reps, eps=1e-6, max_epochs=400,
                      methods=TIMED):
    """Passes and whole-call seconds to (F - F*)/F* <= eps for ``methods`` (rlmlib's
    katyusha, catalyst and saga with their defaults; scikit-learn's saga and lbfgs, whose
    "passes" are its iterations ``max_iter``), all timed in one process, alternating."""
    import rlmlib

    m = X.shape[0]
    kappa = kappa_of(X, sigma)
    F_star = rlmlib.lbfgs(X, y, sigma=sigma, loss="logistic", tol=1e-13).objective
    passes, fns = {}, {}
    for k in methods:
        if k.startswith("sklearn"):
            passes[k], est = _passes_sklearn(X, y, sigma, F_star, eps, max_epochs,
                                             solver=k.split()[1])
            if est is not None:
                fns[k] = _quiet(lambda est=est: est.fit(X, y))
        else:
            passes[k] = _passes_rlmlib(rlmlib.SOLVERS[k], X, y, sigma, F_star, eps,
                                       max_epochs)
            if passes[k] is not None:
                fns[k] = (lambda k=k: rlmlib.SOLVERS[k](X, y, sigma=sigma,
                                                        epochs=passes[k]))
    load = os.getloadavg()[0]
    t = alternate(fns, reps) if fns else {}
    print(f"{name}: m = {m}, n = {X.shape[1]}, kappa = {kappa:.3g}, kappa/m = "
          f"{kappa / m:.3g}, sigma = {sigma:.3g}; to a relative gap of {eps:g} (load "
          f"{load:.2f})")
    for k in methods:
        if passes[k] is None:
            print(f"   {k:13s} not within {max_epochs} passes")
        else:
            print(f"   {k:13s} {passes[k]:4d} passes, {t[k]:.3f} s")
    for k in ("katyusha", "catalyst"):
        if k in t and "sklearn saga" in t:
            print(f"   {k} / sklearn saga time ratio {t[k] / t['sklearn saga']:.2f}")
    return {"name": name, "m": m, "n": X.shape[1], "kappa": kappa, "kappa/m": kappa / m,
            "sigma": sigma, "passes": passes, "seconds": t, "load": load}


def seconds_per_pass(X, y, sigma, reps, methods=("katyusha", "saga")):
    """Median seconds of one pass of each rlmlib method (whole calls of ``epochs=3``, one
    Katyusha stage, divided by 3), alternating: the cost of a step on these rows."""
    import rlmlib

    fns = {k: (lambda k=k: rlmlib.SOLVERS[k](X, y, sigma=sigma, epochs=3))
           for k in methods}
    return {k: v / 3 for k, v in alternate(fns, reps).items()}


def main():
    """Run the benchmarks (``--quick``: smaller data, 3 repetitions; ``--record``: only
    the Katyusha time-to-gap table, saved to ``data/recorded/bench_momentum.json``).

    Examples
    --------
    >>> from rlmlib.book.bench.momentum import main   # doctest: +SKIP
    >>> main()                                        # doctest: +SKIP
    """
    import rlmlib
    from rlmlib.book import records
    from rlmlib.datasets.synthetic import rcv1_like

    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true",
                    help="run the Katyusha table and save data/recorded/bench_momentum.json")
    a = ap.parse_args()
    f = 4 if a.quick else 1
    reps = 3 if a.quick else 5
    warnings.simplefilter("ignore", rlmlib.ConvergenceWarning)
    print(f"whole calls, medians of {reps} alternating repetitions; load average "
          f"{os.getloadavg()}; machine shared with other jobs")
    if a.record:
        rec = records.start()
        rec["full"] = True
        rec["load_start"] = os.getloadavg()
        rec["rows"] = katyusha_table(reps)
        rec["load_end"] = os.getloadavg()
        return records.save(rec, "bench_momentum", what="issue 32 item 2: time to a "
                            "relative gap of 1e-6, katyusha against rlmlib.saga, "
                            "rlmlib.catalyst and scikit-learn's saga and lbfgs",
                            command="nice -n 5 .venv/bin/python "
                            "benchmarks/bench_momentum.py --record")
    rc = rcv1_like(m=40_000 // f, n=47_236, seed=0)
    bench_default_call(rc.X[: 10_000 // f], rc.y[: 10_000 // f], 1e-4, reps)
    out = {}
    m = rc.X.shape[0]
    for ratio in (0.1, 10.0, 30.0):            # kappa/m: L_max = 1/4 on unit rows
        out["rcv1", ratio] = bench_time_to_gap(
            f"RCV1-like {m} x {rc.X.shape[1]}", rc.X, rc.y, 0.25 / (ratio * m), reps,
            methods=("catalyst", "saga", "sklearn saga"))
    out["katyusha"] = katyusha_table(reps)
    print(f"load average at the end {os.getloadavg()}")
    return out


def unit_rows(name):
    """A shipped data set, standardized, rows scaled to unit norm (L_max = 1/4)."""
    import rlmlib

    ds = rlmlib.load_dataset(name, standardize=True)
    X = ds.X / np.linalg.norm(ds.X, axis=1)[:, None]
    return X, ds.y


def katyusha_table(reps):
    """Katyusha's time to 1e-6 against its peers where κ ≫ m (the dense shipped sets
    ``breast_cancer`` and ``digits``, unit rows, κ/m = 10, 30, 100), and its cost per pass
    against SAGA's on the sparse shipped set ``spam`` (TF-IDF, 2000 rows drawn with seed
    0), where its lazy steps cost O(nnz(x_i)) as SAGA's, with the coordinate updates of a
    Katyusha pass (steps of the run over m; the same on every machine)."""
    import rlmlib

    rows = []
    for name in ("breast_cancer", "digits"):
        X, y = unit_rows(name)
        for ratio in (10.0, 30.0, 100.0):
            r = bench_time_to_gap(f"{name}, unit rows", X, y, 0.25 / (ratio * X.shape[0]),
                                  reps, max_epochs=800)
            rows.append({"data": name, **r})
    sp_ds = rlmlib.load_dataset("spam")
    keep = np.sort(np.random.default_rng(0).choice(sp_ds.X.shape[0], 2000, replace=False))
    Xs, ys = sp_ds.X[keep], sp_ds.y[keep]      # the file is sorted by label
    sigma = 0.25 / (10.0 * 2000)
    per = seconds_per_pass(Xs, ys, sigma, reps)
    nnz = Xs.nnz / Xs.shape[0]
    res = rlmlib.katyusha(Xs, ys, sigma=sigma, epochs=3)
    upd = res.info["coordinate_updates"] / (res.params["stages"] * res.params["inner"]
                                            / Xs.shape[0])
    print(f"spam 2000 x {Xs.shape[1]} ({nnz:.0f} non-zeros a row): seconds per pass "
          + ", ".join(f"{k} {v:.4f}" for k, v in per.items())
          + f"; katyusha ({res.info['steps']} steps) writes {upd:.0f} coordinates a pass")
    rows.append({"data": "spam", "m": 2000, "n": Xs.shape[1], "nnz_per_row": nnz,
                 "seconds_per_pass": per, "katyusha_steps": res.info["steps"],
                 "katyusha_updates_per_pass": upd, "load": os.getloadavg()[0]})
    return rows
