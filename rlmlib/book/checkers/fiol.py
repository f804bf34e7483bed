"""Checkers for the exercises of the fully implicit online learning chapter.

Each ``check_<exercise>(student_function)`` runs the reader's function on chosen inputs and
raises AssertionError naming the first input it fails on and the size of the error; it
returns a short success message otherwise.
"""
import math

import numpy as np

from .base import _checker_doc, _compare_vectors, _describe
from ...solvers.fiol import breakpoints, fiol_step, loss_inverse, soft_threshold


@_checker_doc("logistic_inverse", "(s, y) -> float", "case")
def check_logistic_inverse(logistic_inverse):
    """``logistic_inverse(s, y)`` must return z with l'(z; y) = s for the logistic loss,
    s y in (-1, 0), to a relative error of 1e-10, also for s y within 1e-12 of the ends.

    Examples
    --------
    >>> import math
    >>> from rlmlib.book.checkers.fiol import check_logistic_inverse
    >>> from rlmlib.solvers.fiol import loss_inverse
    >>> check_logistic_inverse(lambda s, y: loss_inverse("logistic", s, y)[0])
    'check_logistic_inverse: all 14 cases pass'
    >>> naive = lambda s, y: y * math.log(-1.0 / (s * y) - 1.0)   # cancels near s y = -1
    >>> try:
    ...     check_logistic_inverse(naive)
    ... except AssertionError as e:
    ...     print(str(e).split(":")[0])
    logistic_inverse(s=-0.999999999999, y=1.0) (case 4)
    """
    cases = []
    for y in (1.0, -1.0):
        for t in (-0.5, -0.1, -0.9, -1e-12, -1 + 1e-12, -1e-300, -0.999999):
            cases.append((t * y, y))
    for i, (s, y) in enumerate(cases):
        expected = loss_inverse("logistic", s, y)[0]
        try:
            got = float(logistic_inverse(s, y))
        except Exception as e:  # noqa: BLE001 - report any failure with its input
            raise AssertionError(f"logistic_inverse(s={s!r}, y={y}) raised {e!r}") from e
        if not math.isfinite(got) or abs(got - expected) > 1e-10 * max(1.0, abs(expected)):
            raise AssertionError(
                f"logistic_inverse(s={s!r}, y={y}) (case {i}): got {got!r}, expected "
                f"{expected:.17g}")
    return f"check_logistic_inverse: all {len(cases)} cases pass"


@_checker_doc("soft", "(u, a) -> ndarray", "case")
def check_soft(soft):
    """``soft(u, a)`` must return S_a(u) elementwise (exact zeros inside [-a, a]).

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.fiol import check_soft
    >>> check_soft(lambda u, a: np.sign(u) * np.maximum(np.abs(u) - a, 0.0))
    'check_soft: all 5 cases pass'
    >>> try:
    ...     check_soft(lambda u, a: u - a * np.sign(u))   # no zeros inside [-a, a]
    ... except AssertionError as e:
    ...     print("fails")
    fails
    """
    cases = [(np.array([3.0, -3.0, 0.5, -0.5, 0.0]), 1.0), (np.array([1.0, -1.0]), 1.0),
             (np.array([1e300, -1e-300]), 0.0), (np.zeros(3), 2.0),
             (np.array([2.5, -7.0]), 10.0)]
    for u, a in cases:
        got = np.asarray(soft(u.copy(), a), dtype=np.float64)
        _compare_vectors("soft", got, soft_threshold(u, a), 0.0, f"u={_describe(u)}, a={a}")
    return f"check_soft: all {len(cases)} cases pass"


@_checker_doc("bps", "(w, x, eta, sigma) -> (ndarray, ndarray)", "case")
def check_breakpoints(bps):
    """``bps(w, x, eta, sigma)`` must return (lo, hi) over the coordinates with x_j != 0.

    Examples
    --------
    >>> from rlmlib.book.checkers.fiol import check_breakpoints
    >>> from rlmlib.solvers.fiol import breakpoints
    >>> check_breakpoints(lambda w, x, eta, sigma: breakpoints(w, x, eta=eta,
    ...                                                        sigma=sigma)[:2])
    'check_breakpoints: all 4 cases pass'
    """
    rng = np.random.default_rng(11)
    cases = [(rng.standard_normal(5), rng.standard_normal(5), 0.5, 0.1),
             (np.array([1.0, -2.0, 0.0]), np.array([0.0, -1.0, 2.0]), 1.0, 0.5),
             (np.zeros(4), np.array([1.0, -1.0, 1.0, -1.0]), 2.0, 0.0),
             (rng.standard_normal(3), np.array([1e-3, -1e3, 1.0]), 1e-4, 10.0)]
    for w, x, eta, sigma in cases:
        lo, hi, _ = breakpoints(w, x, eta=eta, sigma=sigma)
        got = bps(w.copy(), x.copy(), eta, sigma)
        case = f"w={_describe(w)}, x={_describe(x)}, eta={eta}, sigma={sigma}"
        _compare_vectors("lo", got[0], lo, 1e-12, case)
        _compare_vectors("hi", got[1], hi, 1e-12, case)
    return f"check_breakpoints: all {len(cases)} cases pass"


def _sort_step_cases():
    rng = np.random.default_rng(12)
    cases = [("x = 0", rng.standard_normal(4), np.zeros(4), 1.0, 0.5, 0.3),
             ("sigma = 0", rng.standard_normal(5), rng.standard_normal(5), -1.0, 0.7, 0.0),
             ("ties", np.array([1.0, 1.0, -1.0, 0.0]), np.array([1.0, 1.0, -1.0, 2.0]), 0.5,
              1.0, 0.5),
             ("tiny eta", rng.standard_normal(6), rng.standard_normal(6), 2.0, 1e-9, 0.1),
             ("huge eta", rng.standard_normal(6), rng.standard_normal(6), 2.0, 1e6, 0.1),
             ("huge sigma (all zero)", rng.standard_normal(6), rng.standard_normal(6), 5.0,
              1.0, 1e3),
             ("one coordinate", np.array([2.0]), np.array([-3.0]), 1.0, 0.2, 0.4)]
    for k in range(20):
        n = int(rng.integers(1, 9))
        cases.append((f"random {k}", rng.standard_normal(n) * 3,
                      rng.standard_normal(n) * (rng.random(n) < 0.7),
                      float(rng.standard_normal() * 2), float(10 ** rng.uniform(-2, 2)),
                      float(10 ** rng.uniform(-2, 0.5))))
    return cases


@_checker_doc("step", "(w, x, y, eta, sigma) -> ndarray", "instance")
def check_sort_step(step):
    """``step(w, x, y, eta, sigma)`` must return the exact fully implicit step for the squared
    loss (relative error 1e-9); the first failing instance is reported.

    Examples
    --------
    >>> from rlmlib.book.checkers.fiol import check_sort_step
    >>> from rlmlib import fiol_step
    >>> check_sort_step(lambda w, x, y, eta, sigma: fiol_step(w, x, y, eta=eta, sigma=sigma,
    ...                                                       loss="squared"))
    'check_sort_step: all 27 instances pass'
    """
    cases = _sort_step_cases()
    for name, w, x, y, eta, sigma in cases:
        expected = fiol_step(w, x, y, eta=eta, sigma=sigma, loss="squared")
        try:
            got = step(w.copy(), x.copy(), y, eta, sigma)
        except Exception as e:  # noqa: BLE001
            raise AssertionError(f"step failed on instance '{name}' (w={_describe(w)}, "
                                 f"x={_describe(x)}, y={y}, eta={eta}, sigma={sigma}): "
                                 f"{e!r}") from e
        scale = max(1.0, float(np.abs(w).max()), float(np.abs(expected).max()))
        got = np.asarray(got, dtype=np.float64)
        if got.shape != expected.shape or not np.all(
                np.abs(got - expected) <= 1e-9 * scale):
            raise AssertionError(
                f"step is wrong on instance '{name}': w={_describe(w)}, x={_describe(x)}, "
                f"y={y}, eta={eta}, sigma={sigma}: got {_describe(got)}, expected "
                f"{_describe(expected)}")
    return f"check_sort_step: all {len(cases)} instances pass"
