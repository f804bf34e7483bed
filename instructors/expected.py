"""Write rlmlib/book/checkers/expected.json: the expected value of every fixed case of the
self-checks, computed by the reference answers (numbers only: the student edition ships the
file, not the references).

    python -m instructors.expected          # rewrite the file
    python -m instructors.expected --check  # exit 1 if the file is out of date

The file is written on one machine and read on every other: BLAS and LAPACK pick their
kernels by CPU, so the last bits of a value (an eigendecomposition's to about 1e-12
relative, a sum's to one rounding) differ from machine to machine.  ``--check`` therefore
never compares text: it runs every self-check on the reference answers computed here, with
each comparison's tolerance cut to a tenth (``rlmlib.book.checkers.base.tolerance_scale``),
and checks that the file has exactly the cases the checkers define.  A file in sync on the
machine that wrote it is in sync on any machine whose roundings stay within a tenth of the
self-checks' tolerances (the tightest is 1e-15 relative, for the soft threshold, which is
exact in IEEE arithmetic); a reference or a case that changed is out of sync.
"""
import importlib
import json
import sys

import numpy as np

from instructors.exercises import checker, functions, reference
from rlmlib.book.checkers import base
from rlmlib.book.checkers.base import EXPECTED_FILE

#: the fraction of the self-checks' tolerances within which the file must hold this
#: machine's reference values
SYNC_FRACTION = 0.1

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


def _labels():
    """{part: {key: [labels]}} of the cases the checkers define now."""
    out = {}
    for _, f in functions():
        key = KEYS.get(f.name, f.name)
        module = importlib.import_module(f"rlmlib.book.checkers.{f.part}")
        out.setdefault(f.part, {})[key] = sorted(label for label, _ in module.CASES[key]())
    return out


def out_of_sync():
    """What keeps expected.json from agreeing with the references on this machine: a list
    of sentences (empty when in sync).

    The file must have exactly the cases of the checkers, and every self-check must pass
    the reference answer computed here with a tenth of its tolerance.
    """
    problems = []
    stored = json.loads(EXPECTED_FILE.read_text(encoding="utf8"))
    for part, keys in _labels().items():
        for key, labels in keys.items():
            have = sorted(stored.get(part, {}).get(key, {}))
            if have != labels:
                problems.append(f"{part}.{key}: the file has cases {have}, the checker "
                                f"defines {labels}")
    base._expected_table.cache_clear()
    try:
        for _, f in functions():
            with base.tolerance_scale(SYNC_FRACTION), np.errstate(all="ignore"):
                try:
                    checker(f)(reference(f))
                except (AssertionError, KeyError) as e:
                    problems.append(f"{f.part}.{f.name}: {e}")
    finally:
        base._expected_table.cache_clear()
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--check" in argv:
        problems = out_of_sync()
        for p in problems:
            print(p)
        if problems:
            print(f"{EXPECTED_FILE} is out of date: run python -m instructors.expected")
            return 1
        print(f"{EXPECTED_FILE} agrees with the references on this machine (within "
              f"{SYNC_FRACTION:g} of every self-check's tolerance)")
        return 0
    EXPECTED_FILE.write_text(dumps(table()), encoding="utf8")
    print(f"[expected] {EXPECTED_FILE} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
