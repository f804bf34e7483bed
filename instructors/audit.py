"""The audit of a submission's code (instructors' tool; DESIGN.md, "Grading outside the
submission's kernel").

``audit(source, allowed)`` parses the code of a submission's answer cells (never runs it)
and lists every construct a correct answer does not need and a submission that games the
grading does: imports of the instructors' material, of nbgrader or of library names the
statement does not offer; assignments to attributes of modules (replacing a checker or a
grader); ``exec``/``eval``/``compile``/``__import__``/``importlib``; source and frame
introspection (``inspect``, ``dis``, ``__code__``, ``__globals__``, ``sys.modules``,
frames); file and process access (``open``, ``os``, ``pathlib``, ``subprocess``, ...). Each
finding names the line. ``python -m instructors.hidden`` writes them into the gradebook
(the test cell needs a manual grade, the answer cell's comment says why); the reference
answers have none (tests/test_grading_isolation.py).
"""
from __future__ import annotations

import ast

#: modules a submission never needs: the grading material, and the ways to reach it
REFUSED_MODULES = {
    "instructors": "the instructors' reference answers and graders",
    "nbgrader": "the grading tool",
    "tools": "the course's tools", "tests": "the course's tests",
    "importlib": "dynamic import", "runpy": "running other code", "imp": "dynamic import",
    "inspect": "source introspection", "dis": "bytecode introspection",
    "gc": "reaching other objects", "ctypes": "memory access", "marshal": "code objects",
    "types": "building functions from code objects", "builtins": "the builtins",
    "os": "file and process access", "pathlib": "file access", "io": "file access",
    "shutil": "file access", "glob": "file access", "subprocess": "running processes",
    "pickle": "code in data", "sys": "the interpreter's state (modules, path, frames)",
    "nbformat": "reading notebooks", "json": "reading files",
    "linecache": "source access", "tokenize": "source access", "socket": "network",
    "multiprocessing": "running processes", "threading": "threads", "signal": "signals",
}
REFUSED_CALLS = {
    "exec": "runs code built at run time", "eval": "runs code built at run time",
    "compile": "builds code at run time", "__import__": "dynamic import",
    "open": "file access", "globals": "the module's namespace",
    "vars": "an object's namespace", "locals": "a namespace", "setattr": "sets an attribute",
    "delattr": "deletes an attribute", "getattr": "an attribute by computed name",
    "breakpoint": "the debugger", "input": "reads input", "memoryview": "raw memory",
}
#: attributes that reach code, frames, namespaces or files
REFUSED_ATTRS = {
    "__code__", "__globals__", "__closure__", "__builtins__", "__dict__", "__class__",
    "__subclasses__", "__bases__", "__mro__", "__import__", "__loader__", "__spec__",
    "__file__", "__wrapped__", "__func__", "__self__", "py_func", "f_globals", "f_locals",
    "f_back", "gi_frame", "tb_frame", "co_code", "func_globals", "_getframe", "modules",
    "path", "getsource", "getfile", "reload", "system", "popen",
}


def _imported_modules(tree):
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                names[a.asname or a.name.split(".")[0]] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def _locals_of(func):
    """The names a function binds itself: parameters and assigned names."""
    a = func.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    names |= {x.arg for x in (a.vararg, a.kwarg) if x}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _attribute_targets(tree):
    """(statement, target attribute, its root name, the names local where it is)."""
    out = []

    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, _locals_of(child) if not isinstance(child, ast.Lambda)
                      else set())
                continue
            if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = child.targets if isinstance(child, (ast.Assign, ast.Delete)) \
                    else [child.target]
                for t in targets:
                    for sub in ast.walk(t):
                        if isinstance(sub, ast.Attribute):
                            root = sub
                            while isinstance(root, (ast.Attribute, ast.Subscript)):
                                root = root.value
                            out.append((child, sub, getattr(root, "id", None), local))
            visit(child, local)
    visit(tree, set())
    return out


def audit(source: str, allowed=(), setup: str = "") -> list[str]:
    """Findings (``"line N: ..."``) in the code ``source`` of a submission; ``allowed`` are
    the ``(module, name)`` pairs of the library the statements offer, ``setup`` the code
    the notebook runs before (its imports count as modules)."""
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return [f"line {e.lineno}: the code does not parse ({e.msg})"]
    allowed = {tuple(a) for a in allowed}
    found = []

    def flag(node, what):
        found.append(f"line {getattr(node, 'lineno', '?')}: {what}")

    modules = _imported_modules(ast.parse(setup)) | _imported_modules(tree)
    for stmt, target, root, local in _attribute_targets(tree):
        if root is not None and root in local and root not in modules:
            continue                  # an attribute of the function's own object
        what = f" of the module {modules[root]}" if root in modules else ""
        flag(stmt, f"reassigns the attribute {ast.unparse(target)}{what}")
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.ImportFrom) and node.level:
                flag(node, "relative import")
                continue
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) \
                else [node.module or ""]
            for mod in mods:
                top = mod.split(".")[0]
                if top in REFUSED_MODULES:
                    flag(node, f"imports {mod} ({REFUSED_MODULES[top]})")
                elif top == "rlmlib" and not mod.startswith("rlmlib.book.checkers"):
                    if isinstance(node, ast.Import):
                        flag(node, f"imports the library module {mod} (the statements "
                                   "offer only named functions)")
                    else:
                        for a in node.names:
                            if (mod, a.name) not in allowed:
                                flag(node, f"imports {mod}.{a.name} from the library (not "
                                           "offered by the statement)")
        elif isinstance(node, ast.Global):
            flag(node, f"global {', '.join(node.names)} (changes module state)")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in REFUSED_CALLS:
            flag(node, f"calls {node.func.id}() ({REFUSED_CALLS[node.func.id]})")
        elif isinstance(node, ast.Attribute) and node.attr in REFUSED_ATTRS:
            flag(node, f"uses the attribute .{node.attr} (code, namespace, frame or file "
                       "introspection)")
        elif isinstance(node, ast.Name) and node.id in ("__builtins__", "__loader__",
                                                        "__spec__", "__file__"):
            flag(node, f"uses {node.id}")

    def line(s):
        n = s.split(":")[0].split()[-1]
        return int(n) if n.isdigit() else 0
    return sorted(set(found), key=lambda s: (line(s), s))
