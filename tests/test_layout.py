"""The library's shape (DESIGN.md, "Layout"): subpackages by role, imports that only go down,
no import circles, one registry of solvers, the numba cache keyed to every source file, and
pages that import nothing from outside the library."""
import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import rlmlib

PKG = Path(rlmlib.__file__).resolve().parent
ROOT = PKG.parent
#: which subpackage may import which (besides itself); the top level (rlmlib/__init__.py,
#: estimators) may import everything but ``book``
ALLOWED = {
    "core": set(),
    "datasets": {"core"},
    "precond": {"core"},
    "solvers": {"core", "precond"},
    "book": {"core", "datasets", "precond", "solvers", "top"},
    "top": {"core", "datasets", "precond", "solvers"},
}


def module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def imports_of(path):
    """Every rlmlib module a source file imports, at module level or inside a function."""
    name = module_name(path)
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("rlmlib"):
                continue
            for alias in node.names:   # `from . import pnorm` imports a module
                sub = f"{mod}.{alias.name}"
                found.add(sub if (ROOT / (sub.replace(".", "/") + ".py")).exists()
                          or (ROOT / sub.replace(".", "/")).is_dir() else mod)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("rlmlib"))
    found.discard(name)
    return found


SOURCES = sorted(PKG.rglob("*.py"))
GRAPH = {module_name(p): imports_of(p) for p in SOURCES}


def role(mod):
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else "top"


def test_the_subpackages_exist():
    for sub in ("core", "solvers", "precond", "datasets", "book"):
        assert (PKG / sub / "__init__.py").exists(), sub
    assert len(list(PKG.glob("*.py"))) <= 3, "rlmlib/ itself keeps only its public face"


@pytest.mark.parametrize("mod", sorted(GRAPH))
def test_imports_only_go_down(mod):
    mine = role(mod)
    for dep in GRAPH[mod]:
        theirs = role(dep)
        if dep == "rlmlib" and mod.startswith("rlmlib.book"):
            continue
        assert theirs == mine or theirs in ALLOWED[mine], (
            f"{mod} ({mine}) imports {dep} ({theirs}); {mine} may import only "
            f"{sorted(ALLOWED[mine]) or 'itself'}")


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_circles():
    # the package's own __init__ re-exports its modules: an edge into it is not a circle
    graph = {m: {d for d in deps if not (d == "rlmlib" or m.startswith(d + "."))}
             for m, deps in GRAPH.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_registry_lists_every_solver_and_only_solvers():
    assert set(rlmlib.SOLVERS) >= {"sgd", "pegasos", "pgs", "svmsgd2", "sgdqn", "olbfgs",
                                   "fiol", "comid", "isgd", "sgd_l1", "sag", "svrg", "lbfgs"}
    for name, f in rlmlib.SOLVERS.items():
        assert getattr(rlmlib, name) is f, name
        params = inspect.signature(f).parameters
        assert params["sigma"].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert list(params)[:2] == ["X", "y"], name
    # every public rlmlib.<name> that takes (X, y, *, sigma, ...) and returns a Result is
    # registered: a solver cannot be added and forgotten
    for name in dir(rlmlib):
        f = getattr(rlmlib, name)
        if inspect.isfunction(f) and name not in rlmlib.SOLVERS:
            params = list(inspect.signature(f).parameters)
            assert not (params[:2] == ["X", "y"] and "epochs" in params), name


def test_estimator_accepts_only_registered_solvers():
    import numpy as np

    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    for bad in ("precondition", "objective", "fiol_step", "no_such_solver", len):
        with pytest.raises(ValueError, match="registered rlmlib solver .*'sgd'"):
            rlmlib.RLMClassifier(solver=bad).fit(X, [1, 1, 0, 0])


def test_cache_key_covers_every_subpackage(tmp_path):
    src = inspect.getsource(rlmlib._numba_cache_dir)
    assert "rglob" in src
    for sub in ("core", "solvers", "precond", "datasets", "book"):
        assert any(p.relative_to(PKG).parts[0] == sub for p in PKG.rglob("*.py"))


def test_packaging_finds_the_subpackages():
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'include = \["rlmlib", "rlmlib\.\*"\]', text)


def test_every_module_imports():
    for m in pkgutil.walk_packages(rlmlib.__path__, "rlmlib."):
        importlib.import_module(m.name)


@pytest.mark.parametrize("page", sorted(str(p.relative_to(ROOT))
                                        for p in (ROOT / "chapters").rglob("*.md")))
def test_pages_import_only_the_library(page):
    text = (ROOT / page).read_text()
    assert not re.search(r"sys\.path\.(insert|append)", text), page
    assert not re.search(r"^\s*(from|import) benchmarks\b", text, re.M), page
    # one copy of the saved-run plumbing: rlmlib.book.records
    assert not re.search(r"^def (git|plain)\(", text, re.M), page
