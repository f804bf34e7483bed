"""Checks of scalar arguments, run before any kernel (DESIGN.md, "Checks").

Every message names the argument, the value received and what was expected, in the manner of
scikit-learn's validation: ``"sigma must be a finite number > 0, got -1.0"``. Checks of the
data (rows, labels, scale) live in :mod:`rlmlib.core.rows`.
"""
import math
import numbers

import numpy as np


def _show(v):
    if isinstance(v, np.generic):
        v = v.item()  # 'a', not np.str_('a')
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


def _is_real(v):
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def _as_float(v):
    """float(v) for a real v, inf (with v's sign) for an integer too large for a double
    (10**400 would raise OverflowError), NaN for anything that is not a real number."""
    if not _is_real(v):
        return math.nan
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _show_number(v):
    if isinstance(v, numbers.Integral) and not isinstance(v, bool) and abs(int(v)) > 2 ** 1023:
        return f"an integer of {len(str(abs(int(v))))} digits (beyond the double range)"
    return _show(v)


def check_positive(name, v):
    """A finite real number > 0; returns it as float."""
    x = _as_float(v)
    if not math.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {_show_number(v)}")
    return x


def check_first_step(name, arg, value, sigma):
    """Refuse an offset ``arg`` (t0, or eta0 through t0 = 1/(sigma eta0)) so small that
    sigma * value is below the smallest normal double: the first step 1/(sigma t0), or the
    offset 1/(sigma eta0), would overflow. Called before any step; returns value."""
    if sigma * value < 2.0 ** -1022:
        raise ValueError(
            f"{name}: {arg}={_show_number(value)} is too small for sigma={_show_number(sigma)}: "
            f"1/(sigma * {arg}) overflows; expected {arg} >= {2.0 ** -1022 / sigma:.3g} "
            f"(sigma * {arg} a normal double)")
    return value


# ------------------------------------------------------------------ validated numeric ranges
# (DESIGN.md, "Validated ranges"). One place for the bounds every solver relies on.
SIGMA_MIN = 2.0 ** -1022
"""Smallest sigma: the smallest normal double. Below it sigma is subnormal (relative precision
lost, 1/sigma = inf), so steps 1/(sigma t) and balls 1/sqrt(sigma) are not representable."""
SIGMA_MAX = 2.0 ** 960
"""Largest sigma: sigma * t stays finite for every step count t < 2**63."""
STEPS_MAX = 2 ** 53
"""Largest step count (T * k, epochs * m): step counters and t sigma stay exact in a double."""


def check_sigma(v, name="sigma"):
    """The regularization weight: a real number in [SIGMA_MIN, SIGMA_MAX] (2^-1022 to 2^960).

    Every solver calls this one check (DESIGN.md, "Validated ranges")."""
    x = _as_float(v)
    if not math.isfinite(x) or x <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {_show_number(v)}")
    if x < SIGMA_MIN:
        raise ValueError(
            f"{name} must be at least the smallest normal double 2**-1022 "
            f"(~2.2e-308), got {x!r}: below it {name} is subnormal (1/{name} overflows and "
            f"{name} * r(w) loses its relative precision)")
    if x > SIGMA_MAX:
        raise ValueError(f"{name} must be at most 2**960 (~9.7e288) so that {name} * t stays "
                         f"finite for every step t, got {_show_number(v)}")
    return x


def check_steps(name, total, what):
    """A total number of steps (``what`` says how it is made, e.g. 'T * k'): at most 2**53,
    checked before anything is allocated or run."""
    if total > STEPS_MAX:
        raise ValueError(f"{name} is too large: {what} = {total} steps, at most 2**53 "
                         f"(~9.0e15) are supported (step counters must stay exact)")
    return total


def check_n_checkpoints(v, total_steps=None):
    """None (no intermediate evaluation) or an integer in [1, 10**6]: each checkpoint is one
    pass over the data and a trace entry, so more than a million is never meant."""
    if v is None:
        return None
    v = check_int("n_checkpoints", v, lo=1)
    if v > 10 ** 6:
        raise ValueError(f"n_checkpoints must be at most 10**6 (each checkpoint is one pass "
                         f"over the data), got {_show_number(v)}")
    return v


def _memory_bytes():
    """Physical memory of this machine in bytes (None where the OS does not say)."""
    import os
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(name, value, n_bytes, what):
    """Resource check before allocating: ``n_bytes`` (``what`` says for what) must fit in half
    of the machine's physical memory (``value`` may be a string, e.g. '(1000, 10)' for
    name='m, n'); otherwise a ValueError names the argument, not numpy's
    MemoryError after the fact."""
    total = _memory_bytes()
    if total is not None and n_bytes > total // 2:
        shown = value if isinstance(value, str) else _show_number(value)
        raise ValueError(f"{name}={shown} would need {n_bytes / 2**30:.3g} GiB "
                         f"of memory ({what}); this machine has {total / 2**30:.3g} GiB")
    return value


def check_int(name, v, lo=1, hi=None):
    """An integer in [lo, hi] (bools and floats are rejected); returns it as int."""
    if not isinstance(v, numbers.Integral) or isinstance(v, (bool, np.bool_)):
        want = f"an integer >= {lo}" + (f" and <= {hi}" if hi is not None else "")
        raise TypeError(f"{name} must be {want}, got {_show(v)} of type {type(v).__name__}")
    v = int(v)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        if hi is None:
            raise ValueError(f"{name} must be an integer >= {lo}, got {_show_number(v)}")
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {_show_number(v)}")
    return v


def check_bool(name, v):
    """True or False (numpy's bools too); returns it as bool."""
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {v!r}")
    return bool(v)


def check_interval(name, v, lo, hi, lo_closed=True, hi_closed=True):
    """A finite real number in the interval given by lo, hi and the closedness flags."""
    interval = ("[" if lo_closed else "(") + f"{lo}, {hi}" + ("]" if hi_closed else ")")
    x = _as_float(v)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number in {interval}, got "
                         f"{_show_number(v)}")
    ok_lo = x >= lo if lo_closed else x > lo
    ok_hi = x <= hi if hi_closed else x < hi
    if not (ok_lo and ok_hi):
        raise ValueError(f"{name} must be in {interval}, got {_show(v)}")
    return x


def check_choice(name, v, choices):
    """One of a fixed set of values."""
    ok = isinstance(v, (str, numbers.Number)) and not isinstance(v, bool) and v in choices
    if not ok:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {_show(v)}")
    return v


def check_seed(seed):
    """A seed for numpy.random.default_rng: a non-negative integer."""
    if not isinstance(seed, numbers.Integral) or isinstance(seed, (bool, np.bool_)):
        raise TypeError(
            f"seed must be a non-negative integer, got {_show(seed)} of type "
            f"{type(seed).__name__}"
        )
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer, got {int(seed)}")
    return int(seed)


def sigma_keyword(func):
    """Decorator for solvers: ``lam=`` (the old name of the regularization weight) raises a
    TypeError that names ``sigma``, the one name rlmlib uses for it."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if "lam" in kwargs:
            raise TypeError(
                f"{func.__name__}() takes the regularization weight as sigma=, not lam= "
                f"(got lam={_show(kwargs['lam'])}): write {func.__name__}(X, y, "
                f"sigma={_show(kwargs['lam'])}, ...)")
        return func(*args, **kwargs)

    return wrapper


KAPPA_MAX = 2.0 ** 52
"""Largest condition number beta max||x||^2 / sigma of an l2 (or p-norm) regularized problem:
the curvature of F lies in [sigma, L], L = beta R^2 + sigma, and the minimizer's relative
forward error from rounding the data and the gradient is about kappa * 2^-52. At
kappa >= 2^52 no digit of w* is determined in double precision (and L + sigma rounds to L: the
regularization's curvature is below the rounding of the loss's)."""


def check_condition(solver, sigma, R, beta):
    """Refuse sigma below ``beta R^2 / KAPPA_MAX`` (R = max_i ||x_i||_2, ``beta`` the loss's
    smoothness, 1 for a kinked loss): the problem's condition number ``beta R^2 / sigma``
    must be at most 2^52 (``KAPPA_MAX``, DESIGN.md "Validated ranges"). One rule for every
    solver whose sigma weighs a strongly convex penalty (``Problem.check_scale``; the l1
    penalty adds no curvature and has none). Returns the condition number."""
    r = R / math.sqrt(sigma)
    kappa = beta * r * r  # inf, not OverflowError, when it overflows
    if not kappa <= KAPPA_MAX:
        need = beta * R * R / KAPPA_MAX
        want = (f"expected sigma >= {need:.3g} for this X, or X scaled down" if
                math.isfinite(need) else "max||x||^2 overflows: scale X down")
        head = (f"sigma={_show_number(sigma)} is too small for X in {solver}" if
                math.isfinite(need) else
                f"X is too large for {solver} with sigma={_show_number(sigma)}")
        raise ValueError(
            f"{head}: the condition number "
            f"beta max||x||^2 / sigma = {beta:.3g} * {R:.3g}^2 / {sigma:.3g} = {kappa:.3g} "
            f"exceeds 2**52 (~4.5e15), beyond what double precision resolves (the "
            f"minimizer's rounding error grows like kappa * 2**-52); {want}")
    return kappa
