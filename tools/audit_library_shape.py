"""New-user audit of the library's shape (one driver, one registry, one set of checks, a
numba cache key that follows every edit, pages that import only the library), checked
mechanically on the current code.

    PYTHONPATH=. .venv/bin/python tools/audit_library_shape.py [--skip-tests] [--jobs 2]

1. imports: the existing walker (tests/test_layout.py: no circles, nothing imported upward);
2. the numba cache key: in a temporary copy of rlmlib/, one module of every subpackage is
   edited in turn and the key a fresh ``import rlmlib`` computes must change each time;
3. one driver: tests/test_hardening.py's spy that every registered solver builds one
   core.problem.Problem and walks Problem.run (lbfgs the documented exception);
4. the registry: RLMClassifier refuses names that are not registered, with the list;
5. pages: no sys.path edits, no benchmarks imports, no function defined identically in the
   code cells of two pages (name and body, or body alone);
6. DESIGN.md: the five-minute page and "Adding a solver" (file, registry line, tests);
7. one set of checks: about 25 edge inputs to every registered solver, each solver in its
   own process (a call that is neither refused nor finished within the time limit counts as
   a hang); accept/reject per solver, and every input on which solvers disagree.
"""
import argparse
import ast
import concurrent.futures as cf
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
HANG = 60   # seconds one solver's remaining probes may take before the current one is a hang


def env():
    path = os.pathsep.join([str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "")
                                          .split(os.pathsep) if p])
    e = dict(os.environ, PYTHONPATH=path, TQDM_DISABLE="1", MPLBACKEND="Agg")
    return e


def head(title):
    print(f"\n== {title}", flush=True)


# ------------------------------------------------------------------ 1, 3, 4: existing tests
def pytest_lines(args, label):
    t = time.perf_counter()
    p = subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                       capture_output=True, text=True, env=env(), cwd=ROOT, timeout=900)
    tail = [ln for ln in p.stdout.strip().splitlines() if ln.strip()][-1:]
    fails = [ln for ln in p.stdout.splitlines() if ln.startswith("FAILED")]
    print(f"{label}: {' '.join(args)} -> {tail[0] if tail else p.returncode} "
          f"({time.perf_counter() - t:.0f} s)")
    for f in fails:
        print("   ", f[:200])


# ------------------------------------------------------------------ 2: numba cache key
def cache_key(root):
    e = env()
    e["PYTHONPATH"] = str(root)
    e.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([PY, "-c", "import os, rlmlib, numba; "
                          "print(os.environ['NUMBA_CACHE_DIR'], numba.config.CACHE_DIR)"],
                         capture_output=True, text=True, env=e, cwd=root, check=True)
    ours, numbas = out.stdout.split()
    return Path(ours).name, ours == numbas


def audit_cache():
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        shutil.copytree(ROOT / "rlmlib", root / "rlmlib",
                        ignore=shutil.ignore_patterns("__pycache__"))
        key, read = cache_key(root)
        print(f"fresh copy: key {key}; numba reads the same directory: {read}")
        subs = sorted(p.name for p in (root / "rlmlib").iterdir()
                      if p.is_dir() and (p / "__init__.py").exists())
        targets = [("top", root / "rlmlib" / "estimators.py")]
        for sub in subs:
            mods = sorted(p for p in (root / "rlmlib" / sub).rglob("*.py")
                          if p.name != "__init__.py")
            targets.append((sub, mods[0]))
            nested = [p for p in mods if len(p.relative_to(root / "rlmlib" / sub).parts) > 1]
            if nested:
                targets.append((sub + " (nested)", nested[0]))
        bad = 0
        for label, path in targets:
            text = path.read_text()
            path.write_text(text + "\n# an edit\n")
            new, _ = cache_key(root)
            path.write_text(text)
            changed = new != key
            bad += not changed
            print(f"  edit {path.relative_to(root)} [{label}]: key {new} "
                  f"{'changes' if changed else 'DOES NOT CHANGE'}")
        back, _ = cache_key(root)
        print(f"  every edit undone: key {back} ({'same as before' if back == key else 'DIFFERS'})"
              f"; {bad} edit(s) the key missed")


# ------------------------------------------------------------------ 4: the registry
REGISTRY = r'''
import numpy as np, rlmlib
X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
for bad in ("precondition", "objective", "fiol_step", "load_dataset", "no_such_solver", len):
    try:
        rlmlib.RLMClassifier(solver=bad).fit(X, [1, 1, 0, 0])
        print(f"{bad!r}: ACCEPTED")
    except Exception as e:
        print(f"{getattr(bad, '__name__', bad)!r}: {type(e).__name__}: {e}"[:230])
for name in rlmlib.SOLVERS:
    kw = {"sgd": {}, "lbfgs": {}}.get(name)
    if kw is None:
        continue
    print(f"{name!r}: accepted ->", rlmlib.RLMClassifier(solver=name).fit(X, [1, 1, 0, 0])
          .score(X, [1, 1, 0, 0]))
'''


def audit_registry():
    p = subprocess.run([PY, "-c", REGISTRY], capture_output=True, text=True, env=env(),
                       cwd=ROOT, timeout=300)
    print(p.stdout.rstrip() or p.stderr.strip().splitlines()[-1])


# ------------------------------------------------------------------ 5: pages
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.M | re.S)


def code_cells(text):
    for m in CELL.finditer(text):
        body = m.group(1)
        if body.startswith("---\n"):           # cell options in a YAML block
            body = body.split("\n---\n", 1)[-1]
        lines = [ln for ln in body.splitlines()
                 if not ln.lstrip().startswith(("%", "!", ":"))]
        yield "\n".join(lines)


def audit_pages():
    pages = sorted((ROOT / "chapters").rglob("*.md"))
    syspath, bench = [], []
    defs = defaultdict(list)          # ast dump (name included) -> [(page, name)]
    bodies = defaultdict(list)        # ast dump with the name blanked -> [(page, name)]
    unparsed = 0
    for page in pages:
        rel = str(page.relative_to(ROOT))
        text = page.read_text()
        for cell in code_cells(text):
            if re.search(r"\bsys\.path\b", cell):
                syspath.append(rel)
            if re.search(r"^\s*(from|import)\s+benchmarks\b|import_module\(['\"]benchmarks"
                         r"|runpy|exec\(open", cell, re.M):
                bench.append(rel)
            try:
                tree = ast.parse(cell)
            except SyntaxError:
                unparsed += 1
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    if len(node.body) == 1 and isinstance(node.body[0], (ast.Pass,
                                                                          ast.Expr)):
                        continue    # a stub for the reader to fill in
                    defs[ast.dump(node)].append((rel, node.name))
                    name = node.name
                    node.name = "_"
                    bodies[ast.dump(node)].append((rel, name))
                    node.name = name
    print(f"{len(pages)} pages; code cells that do not parse as Python: {unparsed}")
    print(f"pages touching sys.path in code: {sorted(set(syspath)) or 'none'}")
    print(f"pages importing/running benchmarks: {sorted(set(bench)) or 'none'}")
    for label, table in (("identical definitions (name and body)", defs),
                         ("identical bodies under different names", bodies)):
        shared = [v for v in table.values() if len({p for p, _ in v}) > 1]
        if label.startswith("identical bodies"):
            shared = [v for v in shared if len({n for _, n in v}) > 1]
        print(f"{label} in more than one page: {len(shared)}")
        for v in shared:
            print("   ", "; ".join(f"{p}:{n}" for p, n in v))


# ------------------------------------------------------------------ 6: DESIGN.md
def audit_design():
    text = (ROOT / "DESIGN.md").read_text()
    for heading in ("## The library in five minutes", "### Adding a solver",
                    "**The one driver"):
        print(f"{heading!r}: {'present' if heading.lower() in text.lower() else 'MISSING'}")
    i = text.find("## The library in five minutes")
    five = text[i:text.find("\n## ", i + 1)]
    print(f"  'The library in five minutes': {len(five.split())} words")
    i = text.lower().find("### adding a solver")
    sec = text[i:text.find("\n## ", i + 1)] if i >= 0 else ""
    for what, pat in (("the file", r"rlmlib/solvers/<name>\.py"),
                      ("the registry line", r"SOLVERS"),
                      ("the tests that then run on it", r"test_hardening|test_properties|"
                                                        r"test_bounds|solver_table")):
        print(f"  'Adding a solver' names {what}: {bool(re.search(pat, sec))}")
    print(f"  its length: {len(sec.splitlines())} lines")


# ------------------------------------------------------------------ 7: edge inputs
PROBE = r'''
import json, sys, warnings
import numpy as np, scipy.sparse as sp
import rlmlib
sys.path.insert(0, "tests")
from solver_table import SOLVER_TABLE
name, start = sys.argv[1], int(sys.argv[2])
f = rlmlib.SOLVERS[name]
entry = SOLVER_TABLE[name]
rng = np.random.default_rng(0)
X = rng.standard_normal((60, 5))
y = np.where(X[:, 0] > 0, 1.0, -1.0)
steps = entry["steps"]


def with_steps(v):
    return None if steps is None else {steps: v}


INPUTS = [
    ("sigma=1e-320", lambda: dict(sigma=1e-320)),
    ("sigma=1e-300", lambda: dict(sigma=1e-300)),
    ("sigma=1e300", lambda: dict(sigma=1e300)),
    ("sigma=nan", lambda: dict(sigma=float("nan"))),
    ("sigma=0", lambda: dict(sigma=0.0)),
    ("sigma=np.float32", lambda: dict(sigma=np.float32(0.1))),
    ("sigma=True", lambda: dict(sigma=True)),
    ("sigma='0.1'", lambda: dict(sigma="0.1")),
    ("X has nan", lambda: dict(X=np.where(np.arange(300).reshape(60, 5) == 7, np.nan, X))),
    ("X has inf", lambda: dict(X=np.where(np.arange(300).reshape(60, 5) == 7, np.inf, X))),
    ("X*1e200", lambda: dict(X=X * 1e200)),
    ("X*1e-200", lambda: dict(X=X * 1e-200)),
    ("X subnormal entry", lambda: dict(X=np.where(np.arange(300).reshape(60, 5) == 7, 1e-310,
                                                  X))),
    ("y has nan", lambda: dict(y=np.where(np.arange(60) == 3, np.nan, y))),
    ("y one class", lambda: dict(y=np.ones(60))),
    ("y three classes", lambda: dict(y=np.arange(60) % 3 - 1.0)),
    ("y strings", lambda: dict(y=np.where(y > 0, "a", "b"))),
    ("epochs=0", lambda: with_steps(0)),
    ("steps > 2**53", lambda: with_steps(2 ** 53 if steps == "epochs" else 2 ** 53 + 1)),
    ("epochs=2.5", lambda: with_steps(2.5)),
    ("complex X", lambda: dict(X=X.astype(complex))),
    ("empty X (0 rows)", lambda: dict(X=X[:0], y=y[:0])),
    ("len(y) != m", lambda: dict(y=y[:-1])),
    ("object dtype X", lambda: dict(X=X.astype(object))),
    ("lists", lambda: dict(X=X.tolist(), y=y.tolist())),
    ("int X", lambda: dict(X=np.round(X * 3).astype(np.int64))),
    ("float32 X", lambda: dict(X=X.astype(np.float32))),
    ("CSC X", lambda: dict(X=sp.csc_matrix(X))),
    ("X 1-D", lambda: dict(X=X[:, 0])),
]
if start == -1:
    print(json.dumps([label for label, _ in INPUTS]))
    sys.exit()
for label, spoil in INPUTS[start:]:
    over = spoil()
    if over is None:
        print("@@" + json.dumps([label, "n/a", ""]), flush=True)
        continue
    kw = dict(sigma=0.1, **entry["kwargs"])
    kw.pop("t0", None)     # each solver's default t0 (the table's t0=100 is a speed choice)
    kw.update(over)
    Xa, ya = kw.pop("X", X), kw.pop("y", y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = f(Xa, ya, **kw)
            ok = bool(np.all(np.isfinite(res.w)) and np.isfinite(res.objective))
            warned = sorted({c.category.__name__ for c in caught
                             if not issubclass(c.category, DeprecationWarning)})
            out = ["accept" if ok else "accept-NONFINITE", ",".join(warned)]
        except Exception as e:
            out = [type(e).__name__, " ".join(str(e).split())[:150]]
    print("@@" + json.dumps([label] + out), flush=True)
'''


#: disagreements DESIGN.md documents ("Validated ranges"): the l1 methods' sigma weighs ||w||_1,
#: which adds no curvature, so they accept 0 and (acting as 0) a tiny sigma; every other
#: solver applies the condition rule beta max||x||^2 / sigma <= 2**52
DOCUMENTED = {
    "sigma=0": "fiol, comid, isgd, sgd_l1 accept sigma = 0 (no regularization) by design",
    "sigma=1e-300": "the l1 methods are exempt from the condition rule (a tiny sigma acts as "
                    "0); the rest refuse it with one message",
}


def probe_solver(name):
    """{label: (outcome, detail)} for every edge input, restarting after a hang."""
    got, start = {}, 0
    while True:
        try:
            p = subprocess.run([PY, "-c", PROBE, name, str(start)], capture_output=True,
                               text=True, env=env(), cwd=ROOT, timeout=HANG)
            out, timed_out = p.stdout, False
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            timed_out = True
        for ln in out.splitlines():
            if ln.startswith("@@"):
                label, *rest = json.loads(ln[2:])
                got[label] = rest
        if not timed_out:
            if p.returncode and not got:
                raise RuntimeError(p.stderr[-500:])
            return got
        start = len(got)
        got[f"#{start}"] = ["HANG", f"> {HANG} s"]     # relabelled by the caller
        start += 1


def audit_inputs(jobs):
    import rlmlib

    labels = json.loads(subprocess.run([PY, "-c", PROBE, "sgd", "-1"], capture_output=True,
                                       text=True, env=env(), cwd=ROOT, check=True).stdout)
    names = list(rlmlib.SOLVERS)
    with cf.ThreadPoolExecutor(jobs) as ex:
        results = dict(zip(names, ex.map(probe_solver, names)))
    for name, got in results.items():     # a hang was recorded by position
        for key in [k for k in got if k.startswith("#")]:
            got[labels[int(key[1:])]] = got.pop(key)

    def short(o):
        return {"accept": "ok", "n/a": "-", "HANG": "HANG"}.get(o, o[:14])

    w = max(map(len, labels)) + 1
    print(" " * w + " ".join(f"{n[:7]:>7}" for n in names))
    disagree = []
    for label in labels:
        row = [results[n].get(label, ["?", ""])[0] for n in names]
        print(f"{label:<{w}}" + " ".join(f"{short(o)[:7]:>7}" for o in row))
        kinds = {("accept" if o.startswith("accept") else "reject") for o in row
                 if o not in ("n/a", "?")}
        types = {o for o in row if o not in ("n/a", "?")}
        if len(kinds) > 1 or "HANG" in types:
            disagree.append((label, "accept/reject"))
        elif len(types) > 1:
            disagree.append((label, "exception types"))
    print("(ok: accepted with a finite result; '-': the solver has no such argument; a "
          "warning's category is in the details below)")
    print(f"\ninputs on which the registered solvers disagree: {len(disagree)}")
    for label, how in disagree:
        if label in DOCUMENTED:
            print(f"  [documented: {DOCUMENTED[label]}]")
        groups = defaultdict(list)
        for n in names:
            o, detail = results[n].get(label, ["?", ""])
            if o != "n/a":
                groups[(o, detail if not o.startswith("accept") else "")].append(n)
        print(f"  {label} ({how}):")
        for (o, detail), ns in groups.items():
            print(f"     {o}: {', '.join(ns)}" + (f" -- {detail[:140]}" if detail else ""))
    warned = [(n, label, results[n][label][1]) for n in names for label in labels
              if results[n].get(label, [""])[0].startswith("accept")
              and results[n][label][1]]
    print(f"accepted with a warning: {len(warned)}")
    for n, label, cats in warned:
        print(f"     {n} on {label}: {cats}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-tests", action="store_true",
                    help="do not run the existing tests (layout, cache, driver)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if not args.skip_tests:
        head("1, 3, 4. existing tests")
        pytest_lines(["tests/test_layout.py"], "imports, circles, registry, pages")
        pytest_lines(["tests/test_cache.py"], "cache key (edit of core/losses.py)")
        pytest_lines(["tests/test_hardening.py", "-k",
                      "driver or own_loop or table_entry or rejects_alike"],
                     "one driver, one set of checks")
    head("2. numba cache key: edit one module of every subpackage in a temporary copy")
    audit_cache()
    head("4. RLMClassifier and the registry")
    audit_registry()
    head("5 (item 7). pages: sys.path, benchmarks, copied helpers")
    audit_pages()
    head("6 (item 8). DESIGN.md")
    audit_design()
    head("7 (Not done if). edge inputs across every registered solver")
    audit_inputs(args.jobs)
    print(f"\n# done in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
