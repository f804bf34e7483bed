"""Write rlmlib/book/checkers/expected.json: the expected value of every fixed case of the
self-checks, computed by the reference answers (numbers only: the student edition ships the
file, not the references).

    python -m instructors.expected          # rewrite the file
    python -m instructors.expected --check  # exit 1 if the file is out of date
"""
import importlib
import json
import sys

import numpy as np

from instructors.exercises import functions, reference
from rlmlib.book.checkers.base import EXPECTED_FILE

#: the self-check's key for a function whose name in the checker differs from the exercise's
KEYS = {"logistic_curvature_bound": "bound"}


def _plain(out):
    """JSON-able: arrays to lists, numpy scalars to Python numbers, tuples to lists."""
    if isinstance(out, (tuple, list)):
        return [_plain(o) for o in out]
    if isinstance(out, np.ndarray):
        return out.tolist()
    if isinstance(out, (np.integer,)):
        return int(out)
    if isinstance(out, (np.floating,)):
        return float(out)
    return out


def _copy(a):
    return a.copy() if isinstance(a, np.ndarray) else list(a) if isinstance(a, list) else a


def table():
    out = {}
    for _, f in functions():
        key = KEYS.get(f.name, f.name)
        module = importlib.import_module(f"rlmlib.book.checkers.{f.part}")
        ref = reference(f)
        values = {}
        for label, args in module.CASES[key]():
            with np.errstate(all="ignore"):
                res = ref(*[_copy(a) for a in args])
            if f.name == "scaled_step":              # the self-check compares s*v
                res = res[0] * np.asarray(res[1])
            values[label] = _plain(res)
        out.setdefault(f.part, {})[key] = values
    return out


def dumps(t):
    return json.dumps(t, indent=1, sort_keys=True) + "\n"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    text = dumps(table())
    if "--check" in argv:
        if EXPECTED_FILE.read_text(encoding="utf8") != text:
            print(f"{EXPECTED_FILE} is out of date: run python -m instructors.expected")
            return 1
        return 0
    EXPECTED_FILE.write_text(text, encoding="utf8")
    print(f"[expected] {EXPECTED_FILE} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
