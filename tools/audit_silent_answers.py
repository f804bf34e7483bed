"""New-user audit of "no silent wrong answer": the inputs a new user tries (bad settings,
duplicates, complex values, exploding steps), run again on the current code.

Each probe group runs in its own Python process (with a timeout) and prints one line per probe:
what happens now -- ``RAISE <type>: <message>``, ``WARN <category>: <message>`` or
``SILENT`` -- followed by the numbers that decide whether the answer is right (the end
objective F against F(0), and F* where a default is judged).

    PYTHONPATH=. .venv/bin/python tools/audit_silent_answers.py [--only NAME ...] [--jobs 2]

Read the lines against the rule: a message names the argument, the value and
what was expected; a run that explodes warns naming the likely setting, or is refused; no
input changes meaning (duplicates, complex). The verdicts are a reader's, not printed here.
"""
import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 150

PRELUDE = r'''
import json, math, sys, warnings
import numpy as np, scipy.sparse as sp
import rlmlib
_RESULTS = []
rng = np.random.default_rng(0)
X = rng.standard_normal((60, 5))                 # a 60 x 5 Gaussian case
y = np.where(X[:, 0] > 0, 1.0, -1.0)             # F(0) = 0.5, F* = 0.088 (sq. hinge, 1e-2)
yr = X @ np.arange(1.0, 6.0) + 0.1 * rng.standard_normal(60)   # a regression target
_QUIET = (DeprecationWarning, PendingDeprecationWarning, FutureWarning, ImportWarning)


def short(s, n=230):
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[:n - 3] + "..."


def describe(r):
    if isinstance(r, rlmlib.Result):
        f0 = float(r.trace.objective[0])
        s = f"F={r.objective:.4g} F(0)={f0:.4g}"
        if r.objective > f0:
            s += " [ABOVE F(0)]"
        return s + f" |w|max={np.max(np.abs(r.w)):.3g}"
    if isinstance(r, str):
        return short(r)
    return short(repr(r))


def probe(label, fn):
    """Run fn() and record what a user sees: exception, warnings, and fn's description."""
    rec = {"label": label}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rec["ret"] = describe(fn())
        except Exception as e:
            rec["exc"] = f"{type(e).__name__}: {short(e)}"
    seen = []
    for c in caught:
        if issubclass(c.category, _QUIET):
            continue
        m = f"{c.category.__name__}: {short(c.message, 160)}"
        if m not in seen:
            seen.append(m)
    rec["warn"] = seen
    _RESULTS.append(rec)


def fstar(A, b, loss, sigma):
    return rlmlib.lbfgs(A, b, sigma=sigma, loss=loss, tol=1e-12).objective


def gap(r, Fs):
    return f"{r.objective:.4g} vs F*={Fs:.4g} (gap {(r.objective - Fs) / Fs:.2g}); " + \
        describe(r)


def dup(A):
    """The CSR matrix of A with every stored entry split into two equal halves in the same
    column (a duplicate entry; scipy reads it as their sum)."""
    A = sp.csr_matrix(A)
    D = sp.csr_matrix((np.repeat(A.data / 2, 2), np.repeat(A.indices, 2), A.indptr * 2),
                      shape=A.shape)
    assert not D.has_canonical_format and np.array_equal(D.toarray(), A.toarray())
    return D


def L_max(A, loss, sigma):
    from rlmlib.solvers.limits import smoothness
    R = float(np.sqrt(np.max(np.sum(np.asarray(A) ** 2, axis=1))))
    return smoothness(rlmlib.loss_code(loss), R, sigma)
'''

EPILOGUE = r'''
print("@@" + json.dumps(_RESULTS))
'''

# bullet name -> code (run after PRELUDE, in its own process)
CASES = {}

CASES["sgd-sqhinge-bc"] = r'''
ds = rlmlib.load_dataset("breast_cancer", standardize=True)
Fs = fstar(ds.X, ds.y, "squared_hinge", 1e-2)
probe("sgd sq.hinge sigma=1e-2 10 ep", lambda: gap(rlmlib.sgd(
    ds.X, ds.y, sigma=1e-2, epochs=10, loss="squared_hinge"), Fs))
Fs = fstar(ds.X, ds.y, "logistic", 1e-4)
probe("sgd logistic sigma=1e-4 5 ep", lambda: gap(rlmlib.sgd(
    ds.X, ds.y, sigma=1e-4, epochs=5, loss="logistic"), Fs))
'''

CASES["olbfgs-default"] = r'''
Fs = fstar(X, y, "squared_hinge", 1e-2)
def run():
    r = rlmlib.olbfgs(X, y, sigma=1e-2, epochs=30)
    return f"t0={r.params.get('t0'):.3g} " + gap(r, Fs)
probe("olbfgs 60x5 30 ep", run)
y3 = np.argmax(X[:, :3], axis=1)                  # three linearly separable-ish classes
def score(solver, **kw):
    clf = rlmlib.RLMClassifier(solver=solver, sigma=1e-2, **kw).fit(X, y3)
    return clf.score(X, y3)
probe("RLMClassifier 3 classes", lambda: f"olbfgs score {score('olbfgs', epochs=30):.3f}; "
      f"lbfgs (same loss) {score('lbfgs', loss='squared_hinge'):.3f}")
'''

CASES["sgdqn-sparse"] = r'''
Xs = sp.csr_matrix(X)
Fs = fstar(X, y, "squared_hinge", 1e-2)
for v in ("corrected", "corrected_code", "2009"):
    probe(f"sgdqn sparse variant={v} 30 ep", lambda v=v: gap(rlmlib.sgdqn(
        Xs, y, sigma=1e-2, epochs=30, variant=v), Fs))
probe("sgdqn corrected_code 200 ep", lambda: gap(rlmlib.sgdqn(
    Xs, y, sigma=1e-2, epochs=200, variant="corrected_code"), Fs))
'''

CASES["t0=10"] = r'''
for name in ("svmsgd2", "sgdqn", "olbfgs"):
    probe(f"{name}(t0=10) 10 ep", lambda name=name: rlmlib.SOLVERS[name](
        X, y, sigma=1e-2, epochs=10, t0=10.0))
'''

CASES["skip=1e9"] = r'''
Fs = fstar(X, y, "squared_hinge", 1e-2)
for name in ("svmsgd2", "sgdqn"):
    probe(f"{name}(skip=10**9) 10 ep", lambda name=name: gap(rlmlib.SOLVERS[name](
        X, y, sigma=1e-2, epochs=10, skip=10 ** 9), Fs))
'''

CASES["sag-svrg-3/L"] = r'''
for loss, b in (("logistic", y), ("squared", yr)):
    L = L_max(X, loss, 1e-2)
    for name in ("sag", "svrg"):
        probe(f"{name} {loss} step=3/L_max", lambda name=name, loss=loss, b=b, L=L:
              rlmlib.SOLVERS[name](X, b, sigma=1e-2, epochs=10, loss=loss, step=3 / L))
'''

CASES["sgd_l1-eta"] = r'''
for loss, b in (("logistic", y), ("squared", yr)):
    L = L_max(X, loss, 0.0)
    probe(f"sgd_l1 {loss} eta=100/L", lambda loss=loss, b=b, L=L: rlmlib.sgd_l1(
        X, b, sigma=1e-2, eta=100 / L, epochs=5, loss=loss))
'''

CASES["olbfgs-damping"] = r'''
probe("olbfgs(damping=1e300)", lambda: rlmlib.olbfgs(X, y, sigma=1e-2, epochs=5,
                                                     damping=1e300))
'''

CASES["csr-duplicates"] = r'''
Xs = sp.csr_matrix(X)
Xd = dup(X)
def same(name, **kw):
    a = rlmlib.SOLVERS[name](Xs, y, sigma=1e-2, **kw)
    b = rlmlib.SOLVERS[name](Xd, y, sigma=1e-2, **kw)
    d = np.max(np.abs(a.w - b.w)) / max(np.max(np.abs(a.w)), 1e-300)
    return f"max|w_dup - w|/max|w| = {d:.2g}; F {b.objective:.6g} vs {a.objective:.6g}"
for name in ("fiol", "comid", "isgd", "sgd_l1"):
    probe(f"{name} dup", lambda name=name: same(name, eta=0.1, epochs=5, loss="logistic"))
probe("sgdqn dup", lambda: same("sgdqn", epochs=5))
probe("sag dup", lambda: same("sag", epochs=5, loss="logistic"))
probe("svrg dup", lambda: same("svrg", epochs=5, loss="logistic"))
probe("sgd dup", lambda: same("sgd", epochs=5))
def pre():
    a = rlmlib.precondition(Xs, sigma=1e-2, beta=1.0)
    b = rlmlib.precondition(Xd, sigma=1e-2, beta=1.0)
    return (f"norms2 rel diff {np.max(np.abs(a.norms2 - b.norms2) / a.norms2):.2g}, "
            f"coherence {b.coherence:.6g} vs {a.coherence:.6g}, numerical_rank "
            f"{b.numerical_rank:.6g} vs {a.numerical_rank:.6g}")
probe("precondition dup", pre)
'''

CASES["comid-inf"] = r'''
for eta in (1.0, 1e3):
    probe(f"comid squared eta={eta:g}", lambda eta=eta: rlmlib.comid(
        X, yr, sigma=1e-2, eta=eta, epochs=5, loss="squared"))
probe("comid squared X*1e150", lambda: rlmlib.comid(
    X * 1e150, yr, sigma=1e-2, epochs=2, loss="squared"))
'''

CASES["fiol-eta-1e300"] = r'''
def h(w, x, b, eta, loss, sigma):   # the implicit step's objective from w0 = 0
    z = float(w @ x)
    ell = {"logistic": np.logaddexp(0, -b * z), "squared": 0.5 * (z - b) ** 2}[loss]
    return ell + sigma * np.sum(np.abs(w)) + float(w @ w) / (2 * eta)
for loss in ("logistic", "squared"):
    def one(loss=loss):
        w = rlmlib.fiol_step(np.zeros(5), X[0], y[0], eta=1e300, sigma=1e-2, loss=loss)
        return (f"nnz={np.count_nonzero(w)} h(w)-h(0)="
                f"{h(w, X[0], y[0], 1e300, loss, 1e-2) - h(0 * w, X[0], y[0], 1e300, loss, 1e-2):.3g}")
    probe(f"fiol_step {loss} eta=1e300", one)
probe("fiol logistic eta=1e300", lambda: rlmlib.fiol(X, y, sigma=1e-2, eta=1e300, epochs=1,
                                                   loss="logistic"))
'''

CASES["fiol_step-1e200"] = r'''
x = np.array([1e200, -3e199, 2.0])
for method in ("sort", "partition"):
    for loss in ("logistic", "squared"):
        probe(f"fiol_step x~1e200 {method} {loss}", lambda m=method, loss=loss: (lambda w: (
            f"finite={bool(np.all(np.isfinite(w)))} w={np.array2string(w, precision=3)}"))(
            rlmlib.fiol_step(np.zeros(3), x, 1.0, eta=1.0, sigma=0.1, loss=loss, method=m)))
'''

CASES["numerical_rank"] = r'''
from rlmlib.precond.preconditioner import numerical_rank
probe("numerical_rank([1e308], 1)", lambda: numerical_rank([1e308], 1.0))
probe("numerical_rank(2-D)", lambda: numerical_rank(np.ones((2, 2)), 1.0))
probe("numerical_rank([-1])", lambda: numerical_rank([1.0, -1.0], 1.0))
'''

CASES["predict_proba"] = r'''
clf = rlmlib.RLMClassifier(solver="sgd", sigma=1e-2, epochs=5, loss="logistic").fit(X, y)
probe("binary, margin -1e308", lambda: clf.predict_proba(np.array([[-1e308, 0, 0, 0, 0]]) /
                                                      max(clf.coef_[0, 0], 1e-300) * 0.5))
y3 = np.argmax(X[:, :3], axis=1)
clf3 = rlmlib.RLMClassifier(solver="sgd", sigma=1e-2, epochs=5, loss="logistic").fit(X, y3)
clf3.coef_ = -np.abs(clf3.coef_) * 1e3            # every one-vs-rest margin very negative
probe("3 classes, margins ~ -1e3..-1e4", lambda: clf3.predict_proba(np.abs(X[:2]) * 10))
'''

CASES["complex"] = r'''
Xc = X.astype(complex)
probe("sgd complex X", lambda: rlmlib.sgd(Xc, y, sigma=1e-2, epochs=1))
probe("sgd complex y", lambda: rlmlib.sgd(X, y.astype(complex), sigma=1e-2, epochs=1))
probe("sgd complex sigma", lambda: rlmlib.sgd(X, y, sigma=1e-2 + 0j, epochs=1))
probe("objective complex w", lambda: rlmlib.objective(X, y, np.ones(5, complex),
                                                     sigma=1e-2, loss="hinge"))
probe("precondition complex X", lambda: rlmlib.precondition(Xc, sigma=1e-2, beta=1.0))
probe("RLMClassifier complex X", lambda: rlmlib.RLMClassifier(
    solver="sgd", sigma=1e-2, epochs=1).fit(Xc, y))
probe("fiol_step complex x", lambda: rlmlib.fiol_step(np.zeros(5), Xc[0], 1.0, eta=1.0,
                                                      sigma=0.1, loss="logistic"))
'''

CASES["lbfgs-1e160"] = r'''
def run():
    r = rlmlib.lbfgs(X * 1e160, y, sigma=1e-2, loss="logistic")
    return f"|w|max={np.max(np.abs(r.w)):.3g} message={r.info.get('message')!r}"
probe("lbfgs rows*1e160", run)
'''

CASES["generator-zero-X"] = r'''
from rlmlib.datasets import synthetic as S
def nz(ds):
    return f"X all zero={not np.any(ds.X)} max|X|={np.max(np.abs(ds.X)):.3g}"
probe("eigen_decay exp tau=700", lambda: nz(S.eigen_decay(60, 5, decay="exp", tau=700.0)))
probe("eigen_decay exp tau=745", lambda: nz(S.eigen_decay(60, 5, decay="exp", tau=745.0)))
probe("eigen_decay poly tau=1e6", lambda: nz(S.eigen_decay(60, 5, decay="poly", tau=1e6)))
probe("eigen_decay exp tau=1e6", lambda: nz(S.eigen_decay(60, 5, decay="exp", tau=1e6)))
probe("alpha_like spectrum=1e300", lambda: nz(S.alpha_like(60, 5, spectrum=1e300)))
probe("pgs_toy cond=1e300", lambda: nz(S.pgs_toy(60, 5, cond=1e300)))
'''

CASES["sgdqn-sigma-1e300"] = r'''
probe("sgdqn corrected sigma=1e300", lambda: rlmlib.sgdqn(X, y, sigma=1e300, epochs=1,
                                                          variant="corrected"))
'''

DASK_DIE = r'''
import os, numpy as np, rlmlib
from rlmlib.book import parallel


def solver(X, y, *, sigma):
    if sigma == 0.5:
        os._exit(3)                       # the worker process dies at this grid point
    return rlmlib.sgd(X, y, sigma=sigma, epochs=1)


if __name__ == "__main__":
    X = np.random.default_rng(0).standard_normal((60, 5))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    try:
        parallel.sweep(solver, X, y, grid={"sigma": [0.1, 0.5]}, progress=False)
        print("@@NO ERROR")
    except Exception as e:
        print("@@" + type(e).__name__ + ": " + " ".join(str(e).split()))
    parallel.close()
'''

DASK_NOGUARD = r'''
import numpy as np, rlmlib
from rlmlib.book import parallel
X = np.random.default_rng(0).standard_normal((60, 5))
y = np.where(X[:, 0] > 0, 1.0, -1.0)
res = parallel.sweep(rlmlib.sgd, X, y, grid={"sigma": [0.1, 0.01]}, fixed={"epochs": 1},
                     progress=False)
print("@@NO ERROR", res)
'''

DASK_HALFGUARD = DASK_NOGUARD + '''
if __name__ == "__main__":                # a guard, but not around the sweep above
    print("done")
'''

CASES["dask-dying-worker"] = ("script", DASK_DIE)
CASES["dask-no-main-guard"] = ("script", DASK_NOGUARD)
CASES["dask-guard-elsewhere"] = ("script", DASK_HALFGUARD)

CASES["messages"] = r'''
probe("sgd epochs=10**30", lambda: rlmlib.sgd(X, y, sigma=1e-2, epochs=10 ** 30))
probe("condition_numbers(loss=None)", lambda: rlmlib.condition_numbers(
    X, sigma=1e-2, beta=1.0, loss=None))
probe("precondition X*1e200", lambda: rlmlib.precondition(X * 1e200, sigma=1e-2, beta=1.0))
probe("condition_numbers X*1e200", lambda: rlmlib.condition_numbers(
    X * 1e200, sigma=1e-2, beta=0.25, loss="logistic"))
probe("sgd X*1e200", lambda: rlmlib.sgd(X * 1e200, y, sigma=1e-2, epochs=1))
probe("olbfgs(memory=10**12)", lambda: rlmlib.olbfgs(X, y, sigma=1e-2, epochs=1,
                                                     memory=10 ** 12))
probe("svrg(inner=10**20)", lambda: rlmlib.svrg(X, y, sigma=1e-2, epochs=1, loss="logistic",
                                                inner=10 ** 20))
probe("load_svmlight('/dev/null')", lambda: rlmlib.load_svmlight("/dev/null"))
try:
    import pandas as pd
except ImportError:
    pd = None
    probe("pandas Float64 frame", lambda: "pandas is not installed: not probed here "
          "(tests/test_messages.py checks a stand-in frame)")
if pd is not None:
    F = pd.DataFrame(X).astype("Float64")
    probe("sgd(pandas Float64 frame)", lambda: rlmlib.sgd(F, y, sigma=1e-2, epochs=1))
    probe("RLMClassifier(pandas Float64)", lambda: rlmlib.RLMClassifier(
        solver="sgd", sigma=1e-2, epochs=1).fit(F, y).score(F, y))
    Fna = F.copy()
    Fna.iloc[0, 0] = pd.NA
    probe("sgd(pandas Float64 with NA)", lambda: rlmlib.sgd(Fna, y, sigma=1e-2, epochs=1))
'''

CASES["slider-memory"] = r'''
import resource, tracemalloc
from rlmlib.book.explore import Slider
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
probe("Slider(0, 1, num=2*10**7)", lambda: Slider(0.0, 1.0, num=2 * 10 ** 7))
peak = tracemalloc.get_traced_memory()[1]
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
_RESULTS[-1]["ret"] = (_RESULTS[-1].get("ret", "") +
                       f" [traced peak {peak / 2**20:.2f} MiB, max RSS +{(after - before) / 1024:.1f} MiB]")
'''

CASES["checker-student-exception"] = r'''
import importlib, inspect, pkgutil
import rlmlib.book.checkers as C
def boom(*a, **k):
    raise KeyError("student bug")
escaped, wrapped = [], 0
for mod in pkgutil.iter_modules(C.__path__):
    m = importlib.import_module(f"rlmlib.book.checkers.{mod.name}")
    for name, f in inspect.getmembers(m, inspect.isfunction):
        if not name.startswith("check_") or f.__module__ != m.__name__:
            continue
        try:
            f(boom)
        except AssertionError as e:
            wrapped += "student bug" in str(e)
        except Exception as e:
            escaped.append(f"{name}: {type(e).__name__}: {short(e, 80)}")
def report():
    if escaped:
        raise RuntimeError(f"{len(escaped)} checkers let it escape: " + "; ".join(escaped))
    return f"{wrapped} checkers turn the student's KeyError into an AssertionError naming it"
probe("every check_* with a raising student function", report)
'''

# beyond the first list: legal hyperparameters at the other extreme (a run that does not
# move) and a few the list does not name; item 2 asks for a word when the objective explodes
CASES["beyond-the-list"] = r'''
probe("sgd(t0=1e-3) squared_hinge", lambda: rlmlib.sgd(X, y, sigma=1e-2, epochs=5,
                                                       loss="squared_hinge", t0=1e-3))
probe("saga(step=1e3)", lambda: rlmlib.saga(X, y, sigma=1e-2, epochs=5, step=1e3))
probe("olbfgs(eta0=1e3)", lambda: rlmlib.olbfgs(X, y, sigma=1e-2, epochs=5, eta0=1e3))
probe("isgd(eta=1e3) squared", lambda: rlmlib.isgd(X, yr, sigma=1e-2, eta=1e3, epochs=5,
                                                   loss="squared"))
probe("svmsgd2(t0=1e300): does w move?", lambda: rlmlib.svmsgd2(X, y, sigma=1e-2, epochs=5,
                                                                 t0=1e300))
probe("sag(step=1e-300): does w move?", lambda: rlmlib.sag(X, y, sigma=1e-2, epochs=5,
                                                           loss="logistic", step=1e-300))
probe("isgd on X*1e-100 (l1 optimum w = 0)", lambda: rlmlib.isgd(
    X * 1e-100, y, sigma=0.1, eta=0.1, epochs=2, loss="logistic"))
'''


def run_case(name, body):
    path = os.pathsep.join([str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "")
                                          .split(os.pathsep) if p])
    env = dict(os.environ, PYTHONPATH=path, TQDM_DISABLE="1", MPLBACKEND="Agg",
               PYTHONWARNINGS="ignore::DeprecationWarning")
    t = time.perf_counter()
    if isinstance(body, tuple):       # a whole script, run as a file (the dask bullets)
        with tempfile.TemporaryDirectory() as d:
            path = Path(d, f"{name.replace('-', '_')}.py")
            path.write_text(textwrap.dedent(body[1]))
            try:
                p = subprocess.run([sys.executable, str(path)], capture_output=True,
                                   text=True, timeout=TIMEOUT, env=env, cwd=d)
            except subprocess.TimeoutExpired:
                return name, [f"TIMEOUT after {TIMEOUT} s"], time.perf_counter() - t
        out = [ln[2:] for ln in p.stdout.splitlines() if ln.startswith("@@")]
        err = [e for e in p.stderr.strip().splitlines() if e.strip()]
        lines = [f"rc={p.returncode}; stdout: {' | '.join(out)[:300] or '(nothing)'}; "
                 f"stderr: {len(err)} lines, {sum('Traceback' in e for e in err)} tracebacks"
                 + (f", last: {err[-1][:160]}" if err else "")]
        return name, lines, time.perf_counter() - t
    code = PRELUDE + body + EPILOGUE
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=TIMEOUT, env=env, cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        return name, [f"TIMEOUT after {TIMEOUT} s"], time.perf_counter() - t
    js = [ln for ln in p.stdout.splitlines() if ln.startswith("@@")]
    if not js:
        tail = p.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return name, [f"CRASH rc={p.returncode}: {tail[0][:200]}"], time.perf_counter() - t
    lines = []
    for rec in json.loads(js[-1][2:]):
        what = []
        if "exc" in rec:
            what.append("RAISE " + rec["exc"])
        what += ["WARN " + w for w in rec["warn"]]
        if not what:
            what.append("SILENT")
        if "ret" in rec:
            what.append("-> " + rec["ret"])
        lines.append(f"{rec['label']}: " + " | ".join(what))
    return name, lines, time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="bullet names to run (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    names = [n for n in CASES if not args.only or n in args.only]
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        futures = {n: ex.submit(run_case, n, CASES[n]) for n in names}
        for n in names:
            name, lines, sec = futures[n].result()
            for ln in lines:
                print(f"[{name}] {ln}", flush=True)
    print(f"# {len(names)} bullets in {time.perf_counter() - t0:.0f} s "
          f"(one process each, {args.jobs} at a time)")


if __name__ == "__main__":
    main()
