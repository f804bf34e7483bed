"""What every exercise checker shares: calling the student's function, describing inputs,
comparing results with messages that name the input, the coordinate and the size of the error.
"""
import math

import numpy as np


def _describe(x, limit=6):
    a = np.asarray(x)
    if a.ndim == 0:
        return f"{float(a):.6g}"
    body = ", ".join(f"{v:.4g}" for v in a[:limit])
    return f"[{body}{', ...' if a.size > limit else ''}] (length {a.size})"


def _call(name, label, func, *args):
    """func(*args); an exception of the reader's code becomes an AssertionError naming the
    input (a ZeroDivisionError or an OverflowError is a finding, not a crash)."""
    try:
        return func(*args)
    except Exception as e:  # noqa: BLE001 - any error of the reader's code is reported
        raise AssertionError(f"{name} on input {label} raised {type(e).__name__}: {e}") from e


def _where(scalar, i):
    """'the value' for a scalar result, 'coordinate i' for a vector."""
    return "the value" if scalar else f"coordinate {i}"


def _checker_doc(student, signature, what="input"):
    """Decorator: the numpydoc sections every checker shares (Parameters, Returns, Raises),
    inserted before the Examples of the checker's own docstring."""
    sections = (f"Parameters\n----------\n{student} : callable{signature}\n"
                f"    The reader's function.\n\n"
                f"Returns\n-------\nstr\n    A one-line message when every {what} passes.\n\n"
                f"Raises\n------\nAssertionError\n    Naming the first input that fails and "
                f"what is wrong (the size of the error,\n    or its likely cause).\n\n")

    def decorate(f):
        doc = f.__doc__
        i = doc.index("    Examples\n")
        f.__doc__ = doc[:i] + "".join("    " + line if line else line for line in
                                      sections.splitlines(True)) + doc[i:]
        return f
    return decorate


def _student(name, f):
    """The reader's function must be callable (TypeError naming it otherwise)."""
    if not callable(f):
        raise TypeError(f"{name} must be a function (the one the exercise asks for), got "
                        f"{f!r} of type {type(f).__name__}")
    return f


def _as_real(name, got, case):
    """The reader's result as a float64 array; strings, None and other non-numbers are an
    AssertionError (numpy would turn '1.5' into 1.5 silently)."""
    a = np.asarray(got) if not isinstance(got, (str, bytes)) else np.asarray([got])
    if a.dtype.kind not in "biuf":
        raise AssertionError(f"{name} on input {case}: expected real numbers, got {got!r} "
                             f"(dtype {a.dtype})")
    return a.astype(np.float64)


def _compare_vectors(name, got, expected, rtol, case):
    """Compare ``got`` with ``expected`` (an array, or a scalar for a scalar result) to
    relative accuracy ``rtol``; raise AssertionError naming the input, the coordinate and the
    likely cause (overflow, underflow) otherwise."""
    if np.ndim(expected) == 0:
        if np.ndim(got) != 0:
            raise AssertionError(f"{name} on input {case}: expected a number, got an array "
                                 f"of shape {np.shape(got)}")
        got_f = float(_as_real(name, got, case).reshape(-1)[0])
        return _compare_arrays(name, np.array([got_f]), np.array([float(expected)]), rtol,
                               case, scalar=True)
    return _compare_arrays(name, got, expected, rtol, case)


def _compare_arrays(name, got, expected, rtol, case, scalar=False):
    expected = np.atleast_1d(np.asarray(expected, dtype=np.float64))
    try:
        got = np.atleast_1d(_as_real(name, got, case))
    except (TypeError, ValueError) as e:
        raise AssertionError(f"{name} on input {case}: expected real numbers, got {got!r}") from e
    if got.shape != expected.shape:
        raise AssertionError(f"{name} on input {case}: expected an array of shape "
                             f"{expected.shape}, got shape {got.shape}")
    bad = ~np.isfinite(got)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        cause = ("overflow: an intermediate exceeded the largest double" if np.isinf(got[i])
                 else "0/0, inf/inf or 0*inf: often an intermediate that overflowed to inf "
                 "or underflowed to 0")
        raise AssertionError(f"{name} on input {case}: {_where(scalar, i)} is {got[i]} "
                             f"(not finite), expected {expected[i]:.17g} - {cause}")
    under = (got == 0) & (np.abs(expected) > 1e-300)
    if under.any():
        i = int(np.flatnonzero(under)[0])
        raise AssertionError(f"{name} on input {case}: {_where(scalar, i)} is 0, expected "
                             f"{expected[i]:.17g} - underflow: an intermediate fell below the "
                             "smallest double and was rounded to 0")
    scale = np.abs(expected)
    err = np.abs(got - expected)
    tol = rtol * scale + 1e-300
    if np.any(err > tol):
        i = int(np.argmax(err / tol))
        rel = err[i] / scale[i] if scale[i] > 0 else math.inf
        raise AssertionError(f"{name} on input {case}: {_where(scalar, i)} is "
                             f"{got[i]:.17g}, expected {expected[i]:.17g} (relative error "
                             f"{rel:.3g}, allowed {rtol:g})")
