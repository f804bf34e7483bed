"""What the hidden graders share: a seed drawn at grading time, the comparison with the
reference on generated instances (inputs left unmodified, exceptions reported as the
student's), and the refusal of a submission that calls or copies the library's own answer
(a "twin", instructors.exercises)."""
import contextlib
import dis
import importlib
import inspect
import secrets
import sys
import types

import numpy as np

from rlmlib.book.checkers.base import _call, _not_aliased, _show, _snapshot, _unmodified


def draw_seed(seed=None):
    """The grading seed: ``seed`` if given, otherwise drawn now (reported in messages)."""
    return secrets.randbits(32) if seed is None else int(seed)


def _resolve(dotted):
    module, _, attr = dotted.rpartition(".")
    return importlib.import_module(module), attr


def _twin_objects(twins):
    objs = {}
    for dotted in twins:
        mod, attr = _resolve(dotted)
        obj = getattr(mod, attr)
        objs[dotted] = obj
    return objs


def _code_objects(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from _code_objects(c)


def _py(obj):
    """The Python function behind a numba dispatcher, a class's methods, or obj itself."""
    obj = getattr(obj, "py_func", obj)
    if inspect.isclass(obj):
        return [getattr(m, "py_func", m) for m in vars(obj).values()
                if inspect.isfunction(getattr(m, "py_func", m))]
    return [obj] if inspect.isfunction(obj) else []


def _referenced(func):
    """The objects a function's code can reach by name: its globals and closure cells,
    recursively through the student's own functions (not through the library)."""
    seen, out, todo = set(), [], [func]
    while todo:
        f = todo.pop()
        f = getattr(f, "__func__", f)
        if id(f) in seen or not inspect.isfunction(f):
            continue
        seen.add(id(f))
        names = {n for c in _code_objects(f.__code__) for n in c.co_names}
        cells = [c.cell_contents for c in (f.__closure__ or ()) if _has_contents(c)]
        found = [f.__globals__[n] for n in names if n in f.__globals__]
        for obj in found + cells:
            out.append((obj, names))
            if inspect.isfunction(obj) and not (obj.__module__ or "").startswith("rlmlib"):
                todo.append(obj)
    return out


def _has_contents(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


#: a copy is judged on functions of at least this many instructions: a shorter one is a
#: formula that independent answers share (the textbook soft threshold
#: sign(u) max(|u| - a, 0) is 24, and is the library's soft_threshold word for word)
MIN_COPY = 50


def _shape(code):
    """The instructions of ``code``, locals by slot (a renamed copy has the same shape)."""
    ops = []
    for ins in dis.get_instructions(code):
        if ins.opname in ("CACHE", "RESUME", "NOP", "PRECALL", "PUSH_NULL"):
            continue
        op = "LOAD_ATTR" if ins.opname == "LOAD_METHOD" else ins.opname
        arg = ins.argrepr.replace("NULL + ", "").replace(" + NULL|self", "") \
            .replace(" + NULL", "")
        if op in ("LOAD_FAST", "STORE_FAST", "DELETE_FAST", "LOAD_DEREF", "STORE_DEREF"):
            arg = ins.arg              # a local's slot, whatever its name
        if ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs:
            arg = ""                   # an offset: moves with the line table
        ops.append((op, arg if not isinstance(ins.argval, types.CodeType) else ""))
    return tuple(ops)


def _fingerprints(codes):
    return {sh for c in codes for sh in [_shape(c)] if len(sh) >= MIN_COPY}


def _twin_fingerprints(objs):
    return {dotted: _fingerprints(c for f in _py(obj) for c in _code_objects(f.__code__))
            for dotted, obj in objs.items()}


def _static_no_twin(name, source, twins):
    """The twin check of a submission that runs in another process (instructors/
    isolation.py): on its source, which is compiled here but never run."""
    import ast

    objs = _twin_objects(twins)
    twin_attrs = {d.rpartition(".")[2] for d in twins}
    try:
        tree = ast.parse(source)
        code = compile(tree, "<answer>", "exec")
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rlmlib"):
            used = sorted(a.name for a in node.names if a.name in twin_attrs | {"*"})
            if used:
                raise AssertionError(f"{name}: your answer imports {used[0]} from "
                                     f"{node.module}, the library's answer; the exercise "
                                     "asks you to write it")
        if isinstance(node, ast.Attribute) and node.attr in twin_attrs and \
                node.attr != name:
            raise AssertionError(f"{name}: your answer uses the library's {node.attr}; the "
                                 "exercise asks you to write it")
    mine = _fingerprints(_code_objects(code))
    for dotted, prints in _twin_fingerprints(objs).items():
        if mine & prints:
            raise AssertionError(f"{name}: your function is a copy of the library's "
                                 f"{dotted} (identical bytecode); the exercise asks you "
                                 "to write it")


def check_no_twin(name, func, twins):
    """AssertionError if ``func`` is, calls by name, or copies (same bytecode, in a
    function of at least MIN_COPY instructions) a library function computing the answer.
    For a submission run in another process (``func.source``), on its source."""
    if not twins:
        return
    if hasattr(func, "submission"):
        return _static_no_twin(name, func.source, twins)
    objs = _twin_objects(twins)
    targets = {id(o) for o in objs.values()} | {id(getattr(o, "py_func", o))
                                                 for o in objs.values()}
    if id(func) in targets or id(getattr(func, "py_func", func)) in targets:
        raise AssertionError(f"{name}: your function is the library's own "
                             f"({', '.join(twins)}); the exercise asks you to write it")
    # a copy of the library's source, variables renamed or not, has the same bytecode
    own = [func] + [o for o, _ in _referenced(func) if inspect.isfunction(o)
                    and not (o.__module__ or "").startswith("rlmlib")]
    mine = _fingerprints(c for f in own if hasattr(f, "__code__")
                         for c in _code_objects(f.__code__))
    for dotted, prints in _twin_fingerprints(objs).items():
        if mine & prints:
            raise AssertionError(f"{name}: your function is a copy of the library's "
                                 f"{dotted} (identical bytecode); the exercise asks you "
                                 "to write it")
    twin_modules = {_resolve(d)[0].__name__ for d in twins}
    twin_attrs = {d.rpartition(".")[2] for d in twins}
    names = {n for f in [func] if hasattr(f, "__code__")
             for c in _code_objects(f.__code__) for n in c.co_names}
    imported = {n for n in names if n.split(".")[0] == "rlmlib"}
    if imported and names & twin_attrs:       # `from rlmlib... import twin` in the body
        raise AssertionError(f"{name}: your function imports "
                             f"{sorted(names & twin_attrs)[0]} from {sorted(imported)[0]}, "
                             "the library's answer; the exercise asks you to write it")
    for obj, names in _referenced(func):
        if id(obj) in targets or id(getattr(obj, "py_func", obj)) in targets:
            raise AssertionError(f"{name}: your function calls the library's "
                                 f"{getattr(obj, '__name__', obj)} ({', '.join(twins)}); "
                                 "the exercise asks you to write it")
        if isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] == "rlmlib" \
                and names & twin_attrs:
            used = sorted(names & twin_attrs)
            if obj.__name__ in twin_modules or obj.__name__ == "rlmlib" or \
                    any(m.startswith(obj.__name__ + ".") for m in twin_modules):
                raise AssertionError(f"{name}: your function uses {obj.__name__}."
                                     f"{used[0]} from the library; the exercise asks you to "
                                     "write it")


@contextlib.contextmanager
def twins_disabled(twins):
    """While grading, every library twin raises when called, wherever it is imported from
    (the modules of rlmlib that hold it by name); restored afterwards."""
    objs = _twin_objects(twins)
    patched = []

    def raiser(dotted):
        def refuse(*args, **kwargs):
            raise RuntimeError(f"the library's {dotted} is disabled while grading: the "
                               "exercise asks you to write it")
        return refuse

    try:
        for dotted, obj in objs.items():
            stub = raiser(dotted)
            for mod in list(sys.modules.values()):
                if not isinstance(mod, types.ModuleType) or \
                        not (mod.__name__ or "").startswith("rlmlib"):
                    continue
                for attr, val in list(vars(mod).items()):
                    if val is obj:
                        patched.append((mod, attr, val))
                        setattr(mod, attr, stub)
        yield
    finally:
        for mod, attr, val in reversed(patched):
            setattr(mod, attr, val)


def describe(label, argnames, args):
    return f"'{label}' (" + ", ".join(f"{n}={_show(a)}" for n, a in zip(argnames, args)) + ")"


def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else list(a) if isinstance(a, list) else a


def grade_cases(name, func, ref, cases, argnames, compare, *, seed, twins=(), allowed=()):
    """Run ``func`` and ``ref`` on every ``(label, args)`` of ``cases``: the student's
    exceptions are reported as such, inputs must be left unmodified (but ``allowed``), and
    ``compare(got, expected, desc, args)`` judges; messages say the grading seed."""
    check_no_twin(name, func, twins)
    n = 0
    with twins_disabled(twins):
        for label, args in cases:
            desc = describe(label, argnames, args) + f" [hidden test, seed {seed}]"
            with np.errstate(all="ignore"):
                expected = ref(*[_copy(a) for a in args])
            before = _snapshot(args)
            got = _call(name, desc, func, *args)
            _unmodified(name, desc, args, before, argnames, allowed)
            if not allowed:
                _not_aliased(name, desc, got, args, argnames)
            compare(got, expected, desc, args)
            n += 1
    return n
