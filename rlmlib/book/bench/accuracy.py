"""Time to a relative gap against the solvers users pick, in one process (issue 38, items 3
and 4).

    .venv-bench/bin/python benchmarks/bench_time_to_accuracy.py              # 20,000 rows
    .venv-bench/bin/python benchmarks/bench_time_to_accuracy.py --record
    .venv/bin/python benchmarks/bench_time_to_accuracy.py --lbfgs           # item 4 only

Two sets: the RCV1-like sparse set with rows scaled as users scale them (``diags(1 / norms)
@ X``, unsorted column indices: :func:`rlmlib.book.bench.inputs.row_normalized`) and the
ALPHA-like dense ill-conditioned set, C-ordered. Three problems on each: ℓ2-logistic and
ℓ2-squared-hinge with σ = 1e-4, and ℓ1-logistic σ‖w‖₁ + mean loss with σ a fraction of the
smallest σ that makes w* = 0. The contenders (whichever are installed; a solver that refuses
the loss is left out, its reason recorded):

- rlmlib: sag, saga, svrg, sdca, lbfgs, asgd (ℓ2); fiol, comid, sgd_l1, isgd, saga with
  ``penalty="l1"`` (ℓ1);
- scikit-learn: ``LogisticRegression`` with sag, saga, lbfgs, liblinear, newton-cg (C = 1 /
  (σ m)); ``LinearSVC`` squared hinge, dual and primal (C = 1 / (2 σ m): rlmlib's squared
  hinge is ½ max(0, 1 − z)²); ℓ1: ``LogisticRegression`` saga and liblinear;
- skglm (ℓ1, coordinate descent with working sets) and tick (SVRG, SAGA, SDCA in C++) from
  the benchmark environment, when their Python layer works (the failure is recorded).

F* is certified: ℓ2 by ``rlmlib.lbfgs`` (its certificate ‖∇F‖²/(2σ), tol 1e-12: F* is known
to 1e-12 relative, far below the targets); ℓ1 by a duality gap (the dual point is the loss
derivatives at the best w found, scaled into the dual's feasible set, and the logistic
loss's conjugate, :func:`rlmlib.solvers.fiol.loss_conjugate`), below 1e-9 relative. Each
contender is run as a whole call (validation, set-up, steps) at budgets 1, 2, 4, ... (passes,
or iterations for lbfgs, liblinear, newton-cg, skglm) until its gap is below 1e-6 or one call
takes longer than the cap; the budget that first reaches each target is refined by
bisection to 1/8 of itself. Then, per target, the calls at those budgets alternate ``reps``
times; the table is the median seconds, as a ratio to the fastest peer (not rlmlib) at the
same target. BLAS runs on one thread.
"""
import argparse
import math
import os
import time
import warnings

import numpy as np

from .calls import _timed
from .vr import alternate

SIGMA = 1e-4
TARGETS = (1e-2, 1e-4, 1e-6)
#: the ℓ1 problem's σ as a fraction of σ_max = ‖X^T ℓ'(0)‖_∞ / m (w* = 0 from σ_max on)
L1_FRACTION = 0.05


# ------------------------------------------------------------------------------ contenders
def _silenced(f):
    """f with every warning silenced (runs stopped on purpose warn that they did not
    converge)."""
    def run(*a, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(*a, **kw)
    return run


def rlmlib_contenders(problem, sigma):
    """{name: (unit, fn(X, y, budget) -> w)} for rlmlib on ``problem``."""
    import rlmlib

    if problem == "l1-logistic":
        out = {f"rlmlib {k}": ("passes", lambda X, y, E, k=k: rlmlib.SOLVERS[k](
            X, y, sigma=sigma, epochs=E, loss="logistic").w)
            for k in ("fiol", "comid", "sgd_l1", "isgd")}
        out["rlmlib saga"] = ("passes", lambda X, y, E: rlmlib.saga(
            X, y, sigma=sigma, epochs=E, loss="logistic", penalty="l1").w)
        return out
    loss = problem.split("-", 1)[1]
    out = {f"rlmlib {k}": ("passes", lambda X, y, E, k=k: rlmlib.SOLVERS[k](
        X, y, sigma=sigma, epochs=E, loss=loss).w) for k in ("sag", "saga", "svrg", "sdca",
                                                              "asgd")}
    out["rlmlib lbfgs"] = ("iterations", lambda X, y, E: rlmlib.lbfgs(
        X, y, sigma=sigma, loss=loss, tol=1e-300, max_iter=E).w)
    return out


def sklearn_contenders(problem, sigma, m):
    """{name: (unit, fn(X, y, budget) -> w)} for scikit-learn on ``problem``."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    C = 1.0 / (sigma * m)

    def logreg(solver, unit, **kw):
        return (unit, lambda X, y, E: np.ravel(LogisticRegression(
            C=C, solver=solver, fit_intercept=False, max_iter=E, tol=1e-15,
            random_state=0, **kw).fit(X, y).coef_))

    if problem == "l2-logistic":
        return {"sklearn sag": logreg("sag", "passes"),
                "sklearn saga": logreg("saga", "passes"),
                "sklearn lbfgs": logreg("lbfgs", "iterations"),
                "sklearn liblinear": logreg("liblinear", "iterations"),
                "sklearn newton-cg": logreg("newton-cg", "iterations")}
    if problem == "l2-squared_hinge":
        def svc(dual):
            return ("passes" if dual else "iterations", lambda X, y, E: np.ravel(LinearSVC(
                C=C / 2, loss="squared_hinge", dual=dual, fit_intercept=False, max_iter=E,
                tol=1e-15, random_state=0).fit(X, y).coef_))
        return {"sklearn LinearSVC dual": svc(True), "sklearn LinearSVC primal": svc(False)}
    return {"sklearn saga": logreg("saga", "passes", penalty="l1"),
            "sklearn liblinear": logreg("liblinear", "iterations", penalty="l1")}


def other_contenders(problem, sigma):
    """({name: (unit, fn)}, {library: why it is missing}) for skglm and tick."""
    out, missing = {}, {}
    if problem == "l1-logistic":
        try:
            from skglm import GeneralizedLinearEstimator
            from skglm.datafits import Logistic
            from skglm.penalties import L1
            from skglm.solvers import AndersonCD

            def skglm_fit(X, y, E):
                est = GeneralizedLinearEstimator(
                    datafit=Logistic(), penalty=L1(alpha=sigma),
                    solver=AndersonCD(max_iter=E, tol=1e-15, fit_intercept=False))
                return np.ravel(est.fit(X, np.where(y > 0, 1.0, -1.0)).coef_)
            out["skglm AndersonCD"] = ("iterations", skglm_fit)
        except Exception as e:  # noqa: BLE001 - a peer that is not installed is reported
            missing["skglm"] = f"{type(e).__name__}: {e}"
        return out, missing
    if problem != "l2-logistic":
        return out, missing
    try:
        out.update(tick_contenders(sigma))
    except Exception as e:  # noqa: BLE001
        missing["tick"] = f"{type(e).__name__}: {str(e)[:200]}"
    return out, missing


def tick_contenders(sigma):
    """tick's SVRG, SAGA, SDCA on ℓ2-logistic (raises when its Python layer fails)."""
    import scipy.sparse as sp
    from tick.linear_model import ModelLogReg
    from tick.prox import ProxL2Sq, ProxZero
    from tick.solver import SAGA, SDCA, SVRG

    def model(X, y):
        X = sp.csr_matrix(X) if sp.issparse(X) else np.ascontiguousarray(X)
        return ModelLogReg(fit_intercept=False).fit(X, np.where(y > 0, 1.0, -1.0))

    def vr(cls):
        def fit(X, y, E):
            mdl = model(X, y)
            step = 1.0 / mdl.get_lip_max()
            s = cls(step=step, max_iter=E, tol=0.0, verbose=False, seed=0)
            s.set_model(mdl).set_prox(ProxL2Sq(strength=sigma))
            return np.asarray(s.solve())
        return ("passes", fit)

    def sdca(X, y, E):
        s = SDCA(l_l2sq=sigma, max_iter=E, tol=0.0, verbose=False, seed=0)
        s.set_model(model(X, y)).set_prox(ProxZero())  # the l2 term is SDCA's l_l2sq
        return np.asarray(s.solve())

    fns = {"tick svrg": vr(SVRG), "tick saga": vr(SAGA), "tick sdca": ("passes", sdca)}
    X = np.random.default_rng(0).standard_normal((20, 3))
    for k, (_, f) in fns.items():  # the Python layer's failure shows here, on a tiny set
        if not np.isfinite(f(X, np.sign(X[:, 0]), 2)).all():
            raise RuntimeError(f"{k} returned non-finite weights")
    return fns


# --------------------------------------------------------------------------------- optimum
def objective(X, y, w, problem, sigma):
    import rlmlib

    if problem == "l1-logistic":
        return rlmlib.l1_objective(X, y, w, sigma=sigma, loss="logistic")
    return rlmlib.objective(X, y, w, sigma=sigma, loss=problem.split("-", 1)[1])


def l1_sigma(X, y):
    """L1_FRACTION of σ_max = ‖X^T ℓ'(0)‖_∞ / m for the logistic loss (ℓ'(0) = −y/2)."""
    ypm = np.where(y > 0, 1.0, -1.0)
    return L1_FRACTION * float(np.abs(X.T @ (-ypm / 2)).max()) / X.shape[0]


def l1_dual_gap(X, y, w, sigma):
    """(P(w), D(θ)) for σ‖w‖₁ + mean logistic loss: θ_i = ℓ'(⟨w, x_i⟩) scaled so that
    ‖X^T θ‖_∞ / m <= σ; D(θ) = −(1/m) Σ ℓ*(θ_i) <= F* (weak duality), with ℓ* from
    :func:`rlmlib.solvers.fiol.loss_conjugate`."""
    import rlmlib
    from rlmlib.solvers.fiol import loss_conjugate

    ypm = np.where(y > 0, 1.0, -1.0)
    z = X @ w
    s = -ypm / (1.0 + np.exp(ypm * z))
    s *= min(1.0, sigma * X.shape[0] / float(np.abs(X.T @ s).max()))
    D = -float(np.mean([loss_conjugate("logistic", si, yi) for si, yi in zip(s, ypm)]))
    return rlmlib.l1_objective(X, y, w, sigma=sigma, loss="logistic"), D


def certified_optimum(X, y, problem, sigma, candidates=()):
    """(F*, certified bound on F(w_best) − F*, how): see the module docstring."""
    import rlmlib

    if problem != "l1-logistic":
        res = rlmlib.lbfgs(X, y, sigma=sigma, loss=problem.split("-", 1)[1], tol=1e-12,
                           max_iter=100_000)
        return res.objective, res.info["gap_bound"], "rlmlib.lbfgs certificate"
    best, low = math.inf, -math.inf
    for w in candidates:
        P, D = l1_dual_gap(X, y, w, sigma)
        best, low = min(best, P), max(low, D)
    return best, best - low, "duality gap at the best w found"


# ---------------------------------------------------------------------------------- search
def search(fn, X, y, gap_of, cap_seconds, max_budget=4096):
    """{target: budget} (None when not reached) and the runs {budget: (seconds, gap)}.

    Budgets 1, 2, 4, ... until the gap is below the smallest target, a call takes more
    than ``cap_seconds`` or ``max_budget`` is passed; then each target's first budget is
    refined by bisection (the gap of these methods decreases with their budget) to 1/8."""
    runs = {}

    def run(E):
        if E not in runs:
            t0 = time.perf_counter()
            try:
                t, w = _timed(fn, X, y, E)
                runs[E] = (t, gap_of(w))
            except (FloatingPointError, ArithmeticError, RuntimeError) as e:
                runs[E] = (time.perf_counter() - t0, math.inf, str(e)[:120])  # diverged
        return runs[E][:2]

    E = 1
    while True:
        t, g = run(E)
        if g <= min(TARGETS) or t > cap_seconds or 2 * E > max_budget or g == math.inf:
            break
        E *= 2
    found = {}
    for eps in TARGETS:
        hits = sorted(k for k, r in runs.items() if r[1] <= eps)
        if not hits:
            found[eps] = None
            continue
        hi = hits[0]
        lo = max([k for k in runs if k < hi], default=0)
        while hi - lo > max(1, hi // 8):
            mid = (lo + hi) // 2
            if run(mid)[1] <= eps:
                hi = mid
            else:
                lo = mid
        found[eps] = hi
    return found, runs


def bench_problem(X, y, problem, sigma, reps, cap_seconds, log=print):
    """One problem on one set: F*, and per contender its budgets and median seconds."""
    m = X.shape[0]
    cands = {**rlmlib_contenders(problem, sigma), **sklearn_contenders(problem, sigma, m)}
    more, missing = other_contenders(problem, sigma)
    cands.update(more)
    out = {"sigma": sigma, "missing": missing, "contenders": {}}
    ws = {}
    if problem == "l1-logistic":  # F* from the best of long runs of the exact methods
        for k in ("skglm AndersonCD", "sklearn liblinear"):
            if k in cands:
                ws[k] = _silenced(cands[k][1])(X, y, 1000 if k.startswith("skglm") else 10_000)
    F_star, bound, how = certified_optimum(X, y, problem, sigma, list(ws.values()))
    out.update(F_star=F_star, F_star_bound=bound, F_star_how=how)
    log(f"  {problem}: F* = {F_star:.12g} ({how}, bound {bound:.2g})")
    gap_of = lambda w: (objective(X, y, w, problem, sigma) - F_star) / abs(F_star)  # noqa
    budgets = {}
    for name, (unit, fn) in cands.items():
        f = _silenced(fn)
        try:
            f(X[:50] if hasattr(X, "tocsr") else X[:50], y[:50], 1)  # compile, warm up
        except ValueError as e:
            out["contenders"][name] = {"unit": unit, "refused": str(e)[:200]}
            log(f"    {name:26s} refused: {str(e)[:60]}")
            continue
        found, runs = search(f, X, y, gap_of, cap_seconds)
        budgets[name] = found
        out["contenders"][name] = {
            "unit": unit, "budget": {str(e): b for e, b in found.items()},
            "runs": {str(k): list(v) for k, v in sorted(runs.items())}}
        log(f"    {name:26s} " + "  ".join(
            f"{e:g}: {b if b is not None else '-'}" for e, b in found.items()) + f" {unit}")
    for eps in TARGETS:
        calls = {k: (lambda f=_silenced(cands[k][1]), E=b[eps]: f(X, y, E))
                 for k, b in budgets.items() if b[eps] is not None}
        for k, t in alternate(calls, reps).items():
            out["contenders"][k].setdefault("seconds", {})[str(eps)] = t
    return out


# ------------------------------------------------------------------------------------ data
def data_sets(rows, dense_rows, seed=0):
    """{name: (X, y)}: the sparse set with unsorted rows, and the dense ill-conditioned one."""
    from rlmlib.datasets import synthetic

    from .inputs import row_normalized

    d = synthetic.rcv1_like(m=rows, n=47_236, seed=seed)
    a = synthetic.alpha_like(m=dense_rows, n=300, seed=seed)
    return {"sparse": (row_normalized(d.X), d.y), "dense": (np.ascontiguousarray(a.X), a.y)}


PROBLEMS = ("l2-logistic", "l2-squared_hinge", "l1-logistic")


def run(rows=20_000, dense_rows=20_000, reps=3, cap_seconds=3.0, problems=PROBLEMS,
        sets=("sparse", "dense")):
    """The whole benchmark: {'setup', 'sets': {set: {'shape', 'nnz', 'problems': {...}}}}."""
    from threadpoolctl import threadpool_limits

    res = {"setup": {"rows": rows, "dense_rows": dense_rows, "n_sparse": 47_236,
                     "n_dense": 300, "sigma": SIGMA, "l1_fraction": L1_FRACTION,
                     "targets": list(TARGETS), "reps": reps, "cap_seconds": cap_seconds,
                     "blas_threads": 1}, "sets": {}}
    with threadpool_limits(1):
        for name, (X, y) in data_sets(rows, dense_rows).items():
            if name not in sets:
                continue
            load = os.getloadavg()[0]
            print(f"{name}: {X.shape[0]:,} x {X.shape[1]:,} (load {load:.1f})", flush=True)
            s = res["sets"][name] = {"shape": list(X.shape), "problems": {},
                                     "nnz": int(X.nnz) if hasattr(X, "nnz") else X.size}
            for pb in problems:
                sigma = l1_sigma(X, y) if pb == "l1-logistic" else SIGMA
                s["problems"][pb] = bench_problem(X, y, pb, sigma, reps, cap_seconds,
                                                  log=lambda *a: print(*a, flush=True))
            s["load"] = [load, os.getloadavg()[0]]
    return res


# ------------------------------------------------------------------------------ the table
def peer_best(cs, eps):
    """(name, seconds) of the fastest contender that is not rlmlib at target eps."""
    t = {k: v["seconds"][str(eps)] for k, v in cs.items()
         if not k.startswith("rlmlib") and str(eps) in v.get("seconds", {})}
    return min(t.items(), key=lambda kv: kv[1]) if t else (None, None)


def _lines(rec):
    """(problem, label, [ratio or seconds or None per set and target]) of :func:`table`,
    in its order: each contender's seconds to each target as a ratio to the fastest
    peer's, then the fastest peer's seconds (label "fastest peer (s)")."""
    targets = rec["setup"]["targets"]
    sets = list(rec["sets"])
    problems = list(next(iter(rec["sets"].values()))["problems"])
    for pb in problems:
        names = []
        for s in sets:
            names += [k for k in rec["sets"][s]["problems"][pb]["contenders"]
                      if k not in names]
        for k in names + [None]:
            cells = []
            for s in sets:
                cs = rec["sets"][s]["problems"][pb]["contenders"]
                for e in targets:
                    best = peer_best(cs, e)[1]
                    t = best if k is None else \
                        cs.get(k, {}).get("seconds", {}).get(str(e))
                    cells.append(None if t is None or not best
                                 else (t if k is None else t / best))
            if k is None or any("seconds" in rec["sets"][s]["problems"][pb]
                                ["contenders"].get(k, {}) or "budget" in rec["sets"][s]
                                ["problems"][pb]["contenders"].get(k, {}) for s in sets):
                yield pb, "fastest peer (s)" if k is None else k, cells


def rows(rec):
    """The recorded run as (header, rows) for :func:`rlmlib.book.captions.markdown_table`:
    one row per problem and contender, one column per set and target (the cells of
    :func:`table`, ``-``: not reached within the cap).

    Examples
    --------
    >>> one = {"l1": {"contenders": {"sklearn saga": {"seconds": {"0.01": 2.0}}}}}
    >>> rows({"setup": {"targets": [0.01]}, "sets": {"dense": {"problems": one}}})[1]
    [['l1', 'sklearn saga', '1.00'], ['l1', 'fastest peer (s)', '2.00']]
    """
    head = ["problem", "contender"] + [f"{s}, gap {e:.0e}" for s in rec["sets"]
                                       for e in rec["setup"]["targets"]]
    return head, [[pb, label, *("-" if v is None else f"{v:.2f}" for v in cells)]
                  for pb, label, cells in _lines(rec)]


def table(rec):
    """The recorded run as text: per problem, each contender's median seconds to each
    target as a ratio to the fastest peer's (``-``: not reached within the cap), one block
    of columns per set; last, the fastest peer's seconds (lines of at most 88 characters).

    Parameters
    ----------
    rec : dict
        ``data/recorded/bench_time_to_accuracy.json`` or :func:`run`'s result.

    Returns
    -------
    str

    Examples
    --------
    >>> c = {"rlmlib sag": {"seconds": {"0.01": 1.0}},
    ...      "sklearn sag": {"seconds": {"0.01": 2.0}}}
    >>> rec = {"setup": {"targets": [0.01]}, "sets": {"sparse": {"problems": {
    ...     "l2-logistic": {"contenders": c}}}}}
    >>> print(table(rec))
                               sparse
    gap                         1e-02
    l2-logistic
      rlmlib sag                 0.50
      sklearn sag                1.00
      fastest peer (s)           2.00
    """
    targets = rec["setup"]["targets"]
    sets = list(rec["sets"])
    w = 7
    block = w * len(targets)
    lines = [f"{'':26s}" + "".join(f"{s:>{block}s}" for s in sets),
             f"{'gap':26s}" + "".join(f"{e:>{w}.0e}" for _ in sets for e in targets)]
    last = None
    for pb, label, cells in _lines(rec):
        if pb != last:
            lines.append(pb)
            last = pb
        lines.append(f"  {label[:24]:24s}" + "".join(
            f"{v:{w}.2f}" if v is not None else f"{'-':>{w}s}" for v in cells))
    return "\n".join(lines)


def slower(rec):
    """[(set, problem, target, best rlmlib name, its seconds, peer name, peer seconds)]
    where rlmlib's fastest contender takes longer than the fastest peer (or no rlmlib
    contender reaches the target)."""
    out = []
    for s, d in rec["sets"].items():
        for pb, p in d["problems"].items():
            cs = p["contenders"]
            for e in rec["setup"]["targets"]:
                peer, tp = peer_best(cs, e)
                ours = {k: v["seconds"][str(e)] for k, v in cs.items()
                        if k.startswith("rlmlib") and str(e) in v.get("seconds", {})}
                k, t = min(ours.items(), key=lambda kv: kv[1]) if ours else (None, None)
                if peer is not None and (t is None or t > tp):
                    out.append((s, pb, e, k, t, peer, tp))
    return out


def summary(rec, width=88):
    """Where rlmlib is slower, from the record: one line per (set, problem, target) where
    rlmlib's fastest contender takes longer than the fastest peer, with both budgets, wrapped
    to ``width`` columns.

    Examples
    --------
    >>> c = {"rlmlib sag": {"seconds": {"0.01": 3.0}, "budget": {"0.01": 8},
    ...                     "unit": "passes"},
    ...      "sklearn liblinear": {"seconds": {"0.01": 1.0}, "budget": {"0.01": 4},
    ...                            "unit": "iterations"}}
    >>> rec = {"setup": {"targets": [0.01]}, "sets": {"sparse": {"problems": {
    ...     "l2-logistic": {"contenders": c}}}}}
    >>> print(summary(rec))
    sparse l2-logistic to 1e-02: rlmlib sag 3.0x sklearn liblinear (8 passes against 4
      iterations)
    """
    import textwrap

    lines = []
    for s, pb, e, k, t, peer, tp in slower(rec):
        cs = rec["sets"][s]["problems"][pb]["contenders"]
        bp = cs[peer]
        if k is None:
            text = (f"{s} {pb} to {e:.0e}: no rlmlib solver within the cap; {peer} "
                    f"{tp:.2f} s ({bp['budget'][str(e)]} {bp['unit']})")
        else:
            bk = cs[k]
            text = (f"{s} {pb} to {e:.0e}: {k} {t / tp:.1f}x {peer} "
                    f"({bk['budget'][str(e)]} {bk['unit']} against "
                    f"{bp['budget'][str(e)]} {bp['unit']})")
        lines.append(textwrap.fill(text, width, subsequent_indent="  "))
    return "\n".join(lines)


# -------------------------------------------------------------------- item 4: lbfgs's pace
def lbfgs_pace(m=50_000, sparse_rows=50_000, reps=5, eps=TARGETS):
    """rlmlib.lbfgs against scikit-learn's lbfgs on ℓ2-logistic (σ = 1e-4, C = 1/(σ m)).

    1. The callable each hands to scipy at the same w (ours: :func:`rlmlib.solvers.
       reference.objective_and_gradient`; theirs: ``LinearModelLoss.loss_gradient``, the
       one ``LogisticRegression(solver="lbfgs")`` uses), alternating, median ratio; dense
       ALPHA-like m x 300 and the sparse set (unsorted rows).
    2. Dense: the iterations each needs to each relative gap (same algorithm: scipy's
       L-BFGS-B), then whole calls at those iterations, alternating: median ratio.
    3. The default calls: ``RLMClassifier(solver="lbfgs")`` and ``LogisticRegression()``
       (the same stopping rule), alternating: median ratio and the gaps they end at."""
    import rlmlib
    from sklearn._loss.loss import HalfBinomialLoss
    from sklearn.linear_model import LogisticRegression
    from sklearn.linear_model._linear_loss import LinearModelLoss
    from threadpoolctl import threadpool_limits

    from rlmlib.core.problem import Problem
    from rlmlib.solvers.reference import objective_and_gradient

    out = {"m": m, "sparse_rows": sparse_rows, "sigma": SIGMA, "reps": reps}
    with threadpool_limits(1):
        sets = data_sets(sparse_rows, m)
        evals = {}
        for name, (X, y) in sets.items():
            pr = Problem("lbfgs", X, y, sigma=SIGMA, loss="logistic", compact_dense=True)
            fg, _ = objective_and_gradient(pr.rows, pr.y, pr.code, SIGMA)
            theirs = LinearModelLoss(base_loss=HalfBinomialLoss(), fit_intercept=False)
            y01 = (y > 0).astype(np.float64)
            ws = np.random.default_rng(0).standard_normal((reps, X.shape[1])) * 0.1
            t = {"rlmlib": [], "sklearn": []}
            fg(ws[0]), theirs.loss_gradient(ws[0], X, y01, None, SIGMA, 1)
            for w in ws:
                t["rlmlib"].append(_timed(fg, w)[0])
                t["sklearn"].append(_timed(theirs.loss_gradient, w, X, y01, None, SIGMA,
                                           1)[0])
            r = np.array(t["rlmlib"]) / np.array(t["sklearn"])
            evals[name] = {"ratio": float(np.median(r)), "spread": [float(r.min()),
                           float(r.max())], "rlmlib_s": float(np.median(t["rlmlib"])),
                           "sklearn_s": float(np.median(t["sklearn"]))}
            print(f"lbfgs evaluation, {name}: rlmlib / sklearn {evals[name]['ratio']:.2f} "
                  f"({evals[name]['rlmlib_s'] * 1e3:.1f} ms vs "
                  f"{evals[name]['sklearn_s'] * 1e3:.1f} ms)", flush=True)
        out["evaluation"] = evals
        X, y = sets["dense"]
        C = 1.0 / (SIGMA * X.shape[0])
        F_star, bound, _ = certified_optimum(X, y, "l2-logistic", SIGMA)
        gap = lambda w: (rlmlib.objective(X, y, w, sigma=SIGMA, loss="logistic")  # noqa
                         - F_star) / F_star
        ours = lambda X, y, E: rlmlib.lbfgs(X, y, sigma=SIGMA, loss="logistic",  # noqa
                                            tol=1e-300, max_iter=E).w
        sk = _silenced(lambda X, y, E: np.ravel(LogisticRegression(  # noqa
            C=C, fit_intercept=False, max_iter=E, tol=1e-15).fit(X, y).coef_))
        fo, _ = search(ours, X, y, gap, 60.0)
        fs, _ = search(sk, X, y, gap, 60.0)
        tta = {}
        for e in eps:
            t = alternate({"rlmlib": lambda: ours(X, y, fo[e]),
                           "sklearn": lambda: sk(X, y, fs[e])}, reps)
            tta[str(e)] = {"iterations": [fo[e], fs[e]], "ratio": t["rlmlib"] / t["sklearn"],
                           "rlmlib_s": t["rlmlib"], "sklearn_s": t["sklearn"]}
            print(f"dense {X.shape[0]:,} x {X.shape[1]}, to gap {e:g}: iterations "
                  f"{fo[e]} / {fs[e]}, time ratio {tta[str(e)]['ratio']:.2f} "
                  f"({t['rlmlib']:.2f} s vs {t['sklearn']:.2f} s)", flush=True)
        out["time_to_gap"] = tta
        est = {"rlmlib": lambda: rlmlib.RLMClassifier(solver="lbfgs", sigma=SIGMA).fit(X, y),
               "sklearn": _silenced(lambda: LogisticRegression(C=C, fit_intercept=False)
                                 .fit(X, y))}
        t = alternate(est, reps)
        gaps = {k: gap(np.ravel(f().coef_)) for k, f in est.items()}
        out["default_call"] = {"ratio": t["rlmlib"] / t["sklearn"], "seconds": t,
                               "gap": gaps}
        print(f"default calls RLMClassifier(solver='lbfgs') / LogisticRegression(): "
              f"{t['rlmlib'] / t['sklearn']:.2f}; gaps {gaps['rlmlib']:.2g} / "
              f"{gaps['sklearn']:.2g}", flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--dense-rows", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cap", type=float, default=3.0,
                    help="seconds a single call may take before the doubling stops")
    ap.add_argument("--problems", nargs="*", default=list(PROBLEMS))
    ap.add_argument("--sets", nargs="*", default=["sparse", "dense"])
    ap.add_argument("--lbfgs", action="store_true",
                    help="only item 4: rlmlib.lbfgs's pace against scikit-learn's lbfgs")
    ap.add_argument("--record", action="store_true",
                    help="save to data/recorded/bench_time_to_accuracy.json")
    ap.add_argument("--update", action="store_true",
                    help="with --record and --problems: re-run only those problems in the "
                    "saved record, keep the others, and list the re-run (its commit, "
                    "date and load) in the record's 'updates'")
    a = ap.parse_args(argv)
    from rlmlib.book import records

    if a.update:
        if not a.record or a.lbfgs or set(a.problems) == set(PROBLEMS):
            ap.error("--update needs --record and a subset of --problems (not --lbfgs)")
        return update(a)
    rec = records.start()
    rec["full"] = a.record
    rec["load_start"] = os.getloadavg()
    if a.lbfgs:
        rec["lbfgs_pace"] = lbfgs_pace(m=a.dense_rows, sparse_rows=a.rows, reps=a.reps)
        name = "bench_lbfgs_pace"
    else:
        rec.update(run(a.rows, a.dense_rows, a.reps, a.cap, a.problems, a.sets))
        print(table(rec))
        name = "bench_time_to_accuracy"
    return records.save(rec, name, what="issue 38 items 3-4: time to accuracy against "
                        "the solvers users pick", load_average=os.getloadavg(),
                        nice=os.nice(0))


def update(a):
    """Re-run ``a.problems`` on ``a.sets`` with the saved record's setup, put them in the
    record in place of the old ones, and append the re-run's commit, date and loads to
    ``rec['updates']`` (the record's own provenance stays that of the first run)."""
    import json

    from rlmlib.book import records

    rec = records.load("bench_time_to_accuracy")
    st = rec["setup"]
    new = records.start()
    load0 = os.getloadavg()
    out = run(st["rows"], st["dense_rows"], st["reps"], st["cap_seconds"], a.problems,
              a.sets)
    for s, d in out["sets"].items():
        rec["sets"][s]["problems"].update(d["problems"])
        rec["sets"][s]["load"] = list(rec["sets"][s]["load"]) + list(d["load"])
    rec.setdefault("updates", []).append(dict(
        problems=list(a.problems), sets=list(a.sets), **new["started"],
        load_start=list(load0), load_end=list(os.getloadavg())))
    rec = records.plain(rec)
    path = records.path_of("bench_time_to_accuracy")
    path.write_text(json.dumps(rec, indent=1) + "\n")
    print(table(rec))
    print(f"updated {path.name}: {', '.join(a.problems)} re-run at "
          f"{new['started']['commit'][:10]}")
    return rec
