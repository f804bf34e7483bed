"""What every exercise checker shares (DESIGN.md, "Exercise checkers"): calling the student's
function, describing inputs, the expected values of the fixed cases, and comparisons whose
messages name the input, the coordinate and the size of the error.

A self-check holds no answer: its cases are inputs written here and expected values read
from ``expected.json`` (numbers written by the instructors' tool ``python -m
instructors.expected`` from the reference answers), plus properties every answer has.
A cause (overflow, underflow) is named only when a second call proves it: the student's
function is right on the same input scaled to moderate magnitudes (``probe``).
"""
import contextlib
import functools
import json
import math
import warnings
from pathlib import Path

import numpy as np

EXPECTED_FILE = Path(__file__).with_name("expected.json")
#: the absolute floor of a tolerance near underflow, the smallest normal double
#: (2.2e-308): below it doubles are subnormal, with fewer significant bits, and a correctly
#: rounded result can be many relative units off (an exercise whose answers reach that range
#: states the floor)
UNDERFLOW_ATOL = float(np.finfo(np.float64).tiny)

#: the fraction of each comparison's tolerance in force (1: the self-checks as students
#: meet them; ``tolerance_scale`` lowers it to test expected.json against this machine)
_TOL_SCALE = [1.0]


@contextlib.contextmanager
def tolerance_scale(factor):
    """Within this block every comparison of the self-checks allows only ``factor`` times
    its usual error (relative and absolute parts alike).

    ``python -m instructors.expected --check`` runs every self-check on the reference
    answers computed on this machine with ``factor = 0.1``: the values of expected.json,
    written on another machine (other BLAS kernels round the last bits differently), are
    in sync when they are within a tenth of what the self-check allows, so a correct
    answer keeps nine tenths of its tolerance.

    Parameters
    ----------
    factor : float
        In (0, 1].

    Returns
    -------
    contextlib.AbstractContextManager
        The block in which the tolerances are cut.

    Raises
    ------
    ValueError
        When ``factor`` is not in (0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.base import _compare_vectors, tolerance_scale
    >>> _compare_vectors("f", np.float64(1 + 1e-10), 1.0, 1e-9, "x")  # within 1e-9
    >>> with tolerance_scale(0.01):
    ...     try:
    ...         _compare_vectors("f", np.float64(1 + 1e-10), 1.0, 1e-9, "x")
    ...     except AssertionError as e:
    ...         print(str(e).split(" (error")[0])
    f on input x: the value is 1.0000000001, expected 1
    """
    if not 0 < factor <= 1:
        raise ValueError(f"factor must be in (0, 1], got {factor!r}")
    old = _TOL_SCALE[0]
    _TOL_SCALE[0] = old * factor
    try:
        yield
    finally:
        _TOL_SCALE[0] = old


@functools.lru_cache(maxsize=1)
def _expected_table():
    return json.loads(EXPECTED_FILE.read_text(encoding="utf8"))


def _expected(part, name, label):
    """The expected value of case ``label`` of ``part``'s checker ``name`` (a float, an int,
    or a list for arrays and pairs)."""
    try:
        return _expected_table()[part][name][label]
    except KeyError as e:
        raise KeyError(f"expected.json has no value for {part}.{name} case {label!r}: run "
                       "`python -m instructors.expected` after changing a case") from e


def _describe(x, limit=6):
    a = np.asarray(x)
    if a.ndim == 0:
        return f"{float(a):.6g}"
    if a.ndim > 1:
        return f"array of shape {a.shape}"
    body = ", ".join(f"{v:.4g}" for v in a[:limit])
    return f"[{body}{', ...' if a.size > limit else ''}] (length {a.size})"


def _show(a):
    """An argument as a message shows it (arrays summarized, numpy scalars plain)."""
    if isinstance(a, np.ndarray):
        return _describe(a)
    if isinstance(a, (float, np.floating)):
        return repr(float(a))
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        return repr(int(a))
    if isinstance(a, list) and len(a) > 6:
        return _describe(np.asarray(a, dtype=float))
    return repr(a)


#: seconds a student's function may take on one input (RLMLIB_CHECKER_TIME_LIMIT overrides)
TIME_LIMIT = 60.0


class _TimeLimit(BaseException):
    """Raised inside the student's function when its time is up (not an Exception: the
    student's own ``except Exception`` cannot swallow it)."""


def _time_limit():
    import os

    return float(os.environ.get("RLMLIB_CHECKER_TIME_LIMIT", TIME_LIMIT))


class TimeLimitExceeded(AssertionError):
    """A student's function did not return within the checker's time limit.

    The message names the function and the input; the limit is 60 seconds a call
    (``RLMLIB_CHECKER_TIME_LIMIT``).

    Parameters
    ----------
    message : str
        What ran too long, on which input.

    Examples
    --------
    >>> from rlmlib.book.checkers.base import TimeLimitExceeded
    >>> isinstance(TimeLimitExceeded("f on input x: no result within 60 s"), AssertionError)
    True
    """


@contextlib.contextmanager
def _alarm(limit):
    """Raise _TimeLimit in the main thread after ``limit`` seconds (SIGALRM on Unix; a
    Python loop is interrupted, compiled code when it returns to Python). Elsewhere (another
    thread, no setitimer) nothing is timed."""
    import signal
    import threading

    timed = (hasattr(signal, "setitimer") and limit > 0
             and threading.current_thread() is threading.main_thread())
    if not timed:
        yield
        return

    def expire(signum, frame):
        raise _TimeLimit()

    old = signal.signal(signal.SIGALRM, expire)
    left, _ = signal.getitimer(signal.ITIMER_REAL)  # an outer limit, resumed afterwards
    signal.setitimer(signal.ITIMER_REAL, min(limit, left) if left > 0 else limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _limited(name, f):
    """f under the time limit: TimeLimitExceeded naming ``name`` when a call exceeds it."""
    @functools.wraps(f)
    def run(*args, **kwargs):
        limit = _time_limit()
        try:
            with _alarm(limit):
                return f(*args, **kwargs)
        except _TimeLimit:
            raise TimeLimitExceeded(
                f"{name}: your function did not return within {limit:g} s (the checker's "
                f"time limit, RLMLIB_CHECKER_TIME_LIMIT; a loop that never ends?)") from None
    run.__rlmlib_limited__ = True
    return run


def _call(name, label, func, *args):
    """func(*args); an exception of the student's code becomes an AssertionError saying so,
    with the input (a ZeroDivisionError or an OverflowError is a finding, not a crash). The
    call runs under the time limit (:func:`_limited`); exceeding it names the input too."""
    if not getattr(func, "__rlmlib_limited__", False):
        func = _limited(name, func)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")       # a RuntimeWarning is not the finding
            return func(*args)
    except TimeLimitExceeded as e:
        raise TimeLimitExceeded(f"{name} on input {label}: {str(e).split(': ', 1)[1]}") \
            from None
    except Exception as e:  # noqa: BLE001 - any error of the student's code is reported
        raise AssertionError(f"{name} on input {label}: your function raised "
                             f"{type(e).__name__}: {e}") from e


def _snapshot(args):
    """Copies of the array and list arguments, to check afterwards that they were left
    unmodified."""
    import copy

    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else
            copy.deepcopy(a) if isinstance(a, list) else None for a in args]


def _unmodified(name, label, args, before, names, allowed=()):
    """AssertionError if the student's function changed an input array or list in place."""
    for arg, old, argname in zip(args, before, names):
        if old is None or argname in allowed:
            continue
        if isinstance(old, list):
            if arg != old and not (len(arg) == len(old) and all(
                    a == o or (a != a and o != o) for a, o in zip(arg, old))):
                raise AssertionError(
                    f"{name} on input {label}: your function modified its input list "
                    f"{argname} in place (it was {_show(old)}, it is now {_show(arg)}); "
                    "work on a copy")
            continue
        changed = ~((arg == old) | (np.isnan(arg) & np.isnan(old)))
        if changed.any():
            i = int(np.flatnonzero(changed.reshape(-1))[0])
            raise AssertionError(
                f"{name} on input {label}: your function modified its input {argname} in "
                f"place (entry {i} changed from {old.reshape(-1)[i]:.17g} to "
                f"{arg.reshape(-1)[i]:.17g}); work on a copy")


def _where(scalar, i):
    """'the value' for a scalar result, 'coordinate i' for a vector."""
    return "the value" if scalar else f"coordinate {i}"


def _checker_doc(student, signature, what="input"):
    """Decorator: the numpydoc sections every checker shares (Parameters, Returns, Raises),
    inserted before the Examples of the checker's own docstring."""
    sections = (f"Parameters\n----------\n{student} : callable{signature}\n"
                f"    The student's function.\n\n"
                f"Returns\n-------\nstr\n    A one-line message when every {what} passes.\n\n"
                f"Raises\n------\nAssertionError\n    Naming the first input that fails, the "
                f"coordinate and the size of the error\n    (or the exception your function "
                f"raised).\nTypeError\n    If ``{student}`` is not callable.\n\n")

    def decorate(f):
        doc = f.__doc__
        i = doc.index("    Examples\n")
        f.__doc__ = doc[:i] + "".join("    " + line if line else line for line in
                                      sections.splitlines(True)) + doc[i:]
        return f
    return decorate


def _student(name, f):
    """The student's function must be callable (TypeError naming it otherwise)."""
    if not callable(f):
        raise TypeError(f"{name} must be a function (the one the exercise asks for), got "
                        f"{f!r} of type {type(f).__name__}")
    return f if getattr(f, "__rlmlib_limited__", False) else _limited(name, f)


def _as_real(name, got, case):
    """The student's result as a float64 array; strings, None and other non-numbers are an
    AssertionError (numpy would turn '1.5' into 1.5 silently)."""
    if isinstance(got, (str, bytes)) or got is None:
        raise AssertionError(f"{name} on input {case}: expected real numbers, got {got!r}")
    try:
        a = np.asarray(got)
    except (TypeError, ValueError) as e:
        raise AssertionError(f"{name} on input {case}: expected real numbers, got "
                             f"{got!r}") from e
    if a.dtype.kind not in "biuf":
        raise AssertionError(f"{name} on input {case}: expected real numbers, got {got!r} "
                             f"(dtype {a.dtype})")
    return a.astype(np.float64)


def _compare_vectors(name, got, expected, rtol, case, probe=None, atol=0.0):
    """Compare ``got`` with ``expected`` (an array, or a scalar for a scalar result) to
    relative accuracy ``rtol`` (plus ``atol``); raise AssertionError naming the input, the
    coordinate and the size of the error otherwise. ``probe()``, when given, tells whether
    the student's function is right on the same input scaled to moderate magnitudes
    (``_cause``): only then is the error diagnosed as underflow or overflow."""
    if np.ndim(expected) == 0:
        if isinstance(got, (list, tuple, np.ndarray)) or np.ndim(got) != 0:
            raise AssertionError(f"{name} on input {case}: expected a number, got "
                                 f"{type(got).__name__} of shape {np.shape(got)} (return "
                                 "the number itself)")
        got_f = float(_as_real(name, got, case).reshape(-1)[0])
        return _compare_arrays(name, np.array([got_f]), np.array([float(expected)]), rtol,
                               case, True, probe, atol)
    return _compare_arrays(name, got, expected, rtol, case, False, probe, atol)


def _cause(probe):
    """The cause of a wrong result, when ``probe()`` proves it: ``probe()`` returns the power
    of two k by which it scaled the input when the student's function is right on the
    scaled input (None otherwise). Right when scaled down (k < 0): an intermediate
    overflowed; right when scaled up (k > 0): one underflowed. Otherwise no cause is named."""
    if probe is None:
        return ""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            k = probe()
    except Exception:  # noqa: BLE001 - a probe that fails proves nothing
        k = None
    if not k:
        return ""
    if k < 0:
        return (f" - overflow: your function is right on the same input scaled down by 2^{-k}"
                ", so an intermediate exceeded the largest double")
    return (f" - underflow: your function is right on the same input scaled up by 2^{k}, so "
            "an intermediate fell below the smallest normal double")


def _compare_arrays(name, got, expected, rtol, case, scalar=False, probe=None, atol=0.0):
    expected = np.atleast_1d(np.asarray(expected, dtype=np.float64))
    got = np.atleast_1d(_as_real(name, got, case))
    if got.shape != expected.shape:
        raise AssertionError(f"{name} on input {case}: expected an array of shape "
                             f"{expected.shape}, got shape {got.shape}")
    shape = expected.shape
    if expected.ndim > 1:                      # a matrix: report entries as (row, column)
        got, expected = got.ravel(), expected.ravel()

    def where(scalar, i):
        if len(shape) > 1:
            return f"entry {tuple(int(j) for j in np.unravel_index(i, shape))}"
        return _where(scalar, i)
    bad = ~np.isfinite(got) & np.isfinite(expected)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        cause = _cause(probe)
        raise AssertionError(f"{name} on input {case}: {where(scalar, i)} is {got[i]} "
                             f"(not finite), expected {expected[i]:.17g}{cause}")
    # a 0 for a non-zero value is an error, unless the value is subnormal and within atol
    under = (got == 0) & (expected != 0) & ~((np.abs(expected) < UNDERFLOW_ATOL) &
                                             (np.abs(expected) <= atol))
    if under.any():
        i = int(np.flatnonzero(under)[0])
        cause = _cause(probe)
        raise AssertionError(f"{name} on input {case}: {where(scalar, i)} is 0, expected "
                             f"{expected[i]:.17g} (relative error 1){cause}")
    scale = np.abs(expected)
    same = (got == expected) | (np.isnan(got) & np.isnan(expected))
    err = np.where(same, 0.0, np.abs(got - expected))
    tol = _TOL_SCALE[0] * (rtol * scale + atol)
    over = err > tol
    if over.any():
        ratio = np.where(over, err / np.maximum(tol, 1e-300), 0.0)
        i = int(np.argmax(ratio))
        rel = err[i] / scale[i] if scale[i] > 0 else math.inf
        rtol, atol = _TOL_SCALE[0] * rtol, _TOL_SCALE[0] * atol
        allowed = (f"relative {rtol:g}" if rtol else "") + (" + " if rtol and atol else "") \
            + (f"absolute {atol:.3g}" if atol else "")
        raise AssertionError(f"{name} on input {case}: {where(scalar, i)} is "
                             f"{got[i]:.17g}, expected {expected[i]:.17g} (error "
                             f"{err[i]:.3g}{f', relative {rel:.3g}' if scale[i] > 0 else ''}"
                             f"; allowed {allowed or 0})"
                             f"{_cause(probe)}")


def _not_aliased(name, label, got, args, names):
    """AssertionError if the result is (or holds) one of the input arrays itself: a caller
    that changes the result would change its input (returning ``theta`` for p = 2)."""
    parts = got if isinstance(got, (tuple, list)) else (got,)
    for g in parts:
        for arg, argname in zip(args, names):
            if isinstance(g, np.ndarray) and isinstance(arg, np.ndarray) and \
                    np.shares_memory(g, arg):
                raise AssertionError(f"{name} on input {label}: your function returned its "
                                     f"input {argname} itself (the same memory); return a "
                                     "new array")
            if isinstance(g, list) and g is arg:
                raise AssertionError(f"{name} on input {label}: your function returned its "
                                     f"input list {argname} itself; return a new one")


def _run_cases(name, part, student, cases, argnames, compare, allowed=()):
    """Run ``student`` on every fixed case ``(label, args)`` of ``part``'s checker ``name``:
    an exception is reported as the student's, an input modified in place (but those in
    ``allowed``) or returned as the result is an error, and ``compare(got, expected, desc,
    args)`` judges the result."""
    for label, args in cases:
        desc = f"'{label}' (" + ", ".join(
            f"{n}={_show(a)}" for n, a in zip(argnames, args)) + ")"
        before = _snapshot(args)
        got = _call(name, desc, student, *args)
        _unmodified(name, desc, args, before, argnames, allowed)
        if not allowed:
            _not_aliased(name, desc, got, args, argnames)
        compare(got, _expected(part, name, label), desc, args)
    return len(cases)


def _pair(name, got, desc):
    """The student's result must be a pair (a tuple or a list of two)."""
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        raise AssertionError(f"{name} on input {desc}: expected a pair, got "
                             f"{type(got).__name__}")
    return got


def _integer(name, got, expected, desc, what="the value"):
    """``got`` must be an integer (int, numpy integer, or a float with an integral value)
    equal to ``expected``; the message gives the difference."""
    if isinstance(got, (bool, np.bool_)) or not isinstance(
            got, (int, np.integer, float, np.floating)):
        raise AssertionError(f"{name} on input {desc}: expected an integer for {what}, got "
                             f"{got!r} of type {type(got).__name__}")
    if isinstance(got, (float, np.floating)) and not float(got).is_integer():
        raise AssertionError(f"{name} on input {desc}: {what} is {got!r}, not an integer "
                             f"(expected {expected}; off by {float(got) - expected:+.3g})")
    if got != expected:
        raise AssertionError(f"{name} on input {desc}: {what} is {got!r}, expected "
                             f"{expected} (off by {got - expected:+g})")
