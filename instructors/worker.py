"""The process that runs a submission's code during the hidden grading (DESIGN.md, "Grading
outside the submission's kernel"): never imported by the submission's kernel, never given
the course's path.

The grader (instructors/isolation.py, the trusted process) starts this file as
``python -I worker.py`` in an empty temporary directory: isolated mode puts neither the
script's directory, nor PYTHONPATH, nor the working directory on ``sys.path``, so neither
``instructors`` (reference answers, graders) nor the course tree is importable. It then
sends one JSON line per request on stdin and reads one JSON line per reply:

* ``{"setup": str, "answer": [cell, ...], "allowed": [[module, name], ...], "twins": [dotted]}``
  executes the part's set-up cell and the submission's answer cells (each on its own, as a
  notebook runs them: an error is reported, later cells still run) in a fresh namespace
  whose ``__import__`` refuses the instructors' material, nbgrader and every name of
  ``rlmlib`` the statements do not offer (``allowed``; the self-checks of
  ``rlmlib.book.checkers`` stay importable: they hold no answer), with the library's twins
  replaced by functions that raise;
* ``{"call": name, "args": [...]}`` calls the submission's function and replies with its
  result and its arguments after the call (the grader checks they were left unmodified).

Values cross the pipe as JSON of numbers, lists, tuples and numeric arrays only
(``encode``/``decode``): a result of any other type (an object that compares equal to
anything, a float subclass, an object array) arrives as ``Unencodable`` and fails every
comparison. The grader draws every hidden instance after this process has started and sends
only inputs: the submission never sees an expected value or the seed.
"""
import base64
import builtins
import importlib
import json
import math
import os
import sys
import warnings

ANSWER_FILE = "<answer>"
REFUSED_TOP = ("instructors", "nbgrader", "tools", "tests")


class Unencodable:
    """A result that is not numbers: its type's name, nothing else."""

    def __init__(self, type_name):
        self.type_name = type_name

    def __repr__(self):
        return f"<an object of type {self.type_name}>"


def encode(x, _depth=0):
    """A JSON-able form of numbers, strings, None, lists, tuples and numeric arrays."""
    import numpy as np

    if _depth > 20:
        return {"t": "object", "type": "deeply nested"}
    if x is None or type(x) is str:
        return x
    if type(x) is bool:
        return {"t": "bool", "v": x}
    if type(x) is int:
        return {"t": "int", "v": str(x)}
    if type(x) is float:
        return {"t": "float", "v": float.hex(x)}
    if type(x) in (list, tuple):
        return {"t": type(x).__name__, "v": [encode(v, _depth + 1) for v in x]}
    if type(x) is np.ndarray or (isinstance(x, np.generic) and type(x).__module__ ==
                                 "numpy"):
        a = np.asarray(x)
        if a.dtype.kind not in "biuf" or a.dtype.fields is not None:
            return {"t": "object", "type": f"numpy array of dtype {a.dtype}"}
        return {"t": "nd" if type(x) is np.ndarray else "np", "dtype": a.dtype.str,
                "shape": list(a.shape),
                "b64": base64.b64encode(a.tobytes(order="C")).decode()}
    return {"t": "object", "type": type(x).__name__}


def decode(x):
    """The inverse of ``encode``; anything else becomes ``Unencodable``."""
    import numpy as np

    if x is None or isinstance(x, str):
        return x
    if not isinstance(x, dict):
        return Unencodable(type(x).__name__)
    t = x.get("t")
    if t == "bool":
        return bool(x["v"])
    if t == "int":
        return int(x["v"])
    if t == "float":
        return float.fromhex(x["v"])
    if t in ("list", "tuple"):
        v = [decode(e) for e in x["v"]]
        return v if t == "list" else tuple(v)
    if t in ("nd", "np"):
        dtype = np.dtype(x["dtype"])
        if dtype.kind not in "biuf" or dtype.fields is not None:
            return Unencodable(f"numpy array of dtype {dtype}")
        shape = tuple(int(s) for s in x["shape"])
        a = np.frombuffer(base64.b64decode(x["b64"]), dtype=dtype)
        if a.size != math.prod(shape):
            return Unencodable("malformed array")
        a = a.reshape(shape).copy()
        return a if t == "nd" else a[()]
    return Unencodable(str(x.get("type", "unknown")))


def _encode_result(result, args):
    """``encode(result)``, but an input array or list returned as (part of) the result is
    sent as a reference to that argument (the grader rejects a result that is its input)."""
    import numpy as np

    def one(r):
        for i, a in enumerate(args):
            if (type(r) is np.ndarray and type(a) is np.ndarray and
                    np.shares_memory(r, a)) or (type(r) is list and r is a):
                return {"t": "arg", "i": i}
        return encode(r)
    if type(result) in (tuple, list) and not any(result is a for a in args):
        return {"t": type(result).__name__, "v": [one(r) for r in result]}
    return one(result)


def _guarded_import(allowed):
    real = builtins.__import__

    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        top = name.split(".")[0]
        if level != 0 or top in REFUSED_TOP:
            raise ImportError(f"{name} is not importable while grading")
        if top == "rlmlib":
            names = list(fromlist or ())
            ok = bool(names) and (name.startswith("rlmlib.book.checkers") or all(
                (name, n) in allowed for n in names))
            if not ok:
                offered = ", ".join(f"{m}.{n}" for m, n in sorted(allowed)) or "nothing"
                what = (f"from {name} import {', '.join(names)}" if names
                        else f"import {name}")
                raise ImportError(f"`{what}` is not available while grading: the "
                                  f"statements offer {offered} and the self-checks "
                                  "(from rlmlib.book.checkers... import ...)")
        return real(name, globals, locals, fromlist, level)
    return guarded


def _disable(twins):
    """Every rlmlib module attribute holding a twin raises when called."""
    objs = []
    for dotted in twins:
        mod, _, attr = dotted.rpartition(".")
        try:
            objs.append((dotted, getattr(importlib.import_module(mod), attr)))
        except (ImportError, AttributeError):
            continue
    for dotted, obj in objs:
        def refuse(*args, _d=dotted, **kwargs):
            raise RuntimeError(f"the library's {_d} is disabled while grading: the "
                               "exercise asks you to write it")
        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").startswith("rlmlib"):
                for attr, val in list(vars(mod).items()):
                    if val is obj:
                        setattr(mod, attr, refuse)


def main():
    out = os.fdopen(os.dup(1), "w", encoding="utf8")
    os.dup2(2, 1)                      # what the submission prints goes to stderr
    sys.stdout = sys.stderr
    import numpy as np  # noqa: F401 - loaded before the submission runs
    import rlmlib  # noqa: F401

    def reply(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    ns = None
    for line in sys.stdin:
        req = json.loads(line)
        if "setup" in req:
            allowed = {tuple(a) for a in req["allowed"]}
            for m, _ in allowed:
                importlib.import_module(m)
            _disable(req["twins"])
            safe = dict(vars(builtins))
            safe["__import__"] = _guarded_import(allowed)
            ns = {"__name__": "__answer__", "__builtins__": safe}
            errors = {}
            cells = req["answer"] if isinstance(req["answer"], list) else [req["answer"]]
            for i, cell in enumerate([req["setup"]] + cells):
                try:          # each cell on its own, as a notebook runs them
                    exec(compile(cell, "<setup>" if i == 0 else ANSWER_FILE, "exec"), ns)
                except BaseException as e:  # noqa: BLE001 - the submission's error
                    errors[i - 1] = f"{type(e).__name__}: {str(e)[:2000]}"
            reply({"names": sorted(k for k, v in ns.items() if callable(v)),
                   "errors": errors})
        elif "call" in req:
            func = ns.get(req["call"]) if ns is not None else None
            if not callable(func):
                reply({"missing": req["call"]})
                continue
            args = [decode(a) for a in req["args"]]
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    result = func(*args)
            except BaseException as e:  # noqa: BLE001 - the submission's error, reported
                reply({"raised": [type(e).__name__, str(e)[:2000]],
                       "args": [encode(a) for a in args]})
                continue
            reply({"result": _encode_result(result, args),
                   "args": [encode(a) for a in args]})


if __name__ == "__main__":
    main()
