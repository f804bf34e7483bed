"""Self-checks of the part "SGD, SVMSGD2 and SGD-QN" (DESIGN.md, "Exercise checkers"): each
``check_<exercise>(student_function)`` runs the student's function on fixed inputs (extreme
ones included; expected values are numbers in ``expected.json``) and raises
``AssertionError`` naming the input, the coordinate and the size of the error; it returns a
short success message otherwise.
"""
import math

import numpy as np

from .base import (_call, _checker_doc, _compare_vectors, _expected, _integer, _pair,
                   _run_cases, _student)

PART = "sgdqn"


def _step_cases():
    rng = np.random.default_rng(11)
    n = 5
    return [  # (label, (w, x, y, t, t0, sigma, skip, count))
        ("a random step, count 3 -> 2", (rng.standard_normal(n), rng.standard_normal(n), 1.0,
                                         7, 100.0, 0.01, 4, 3)),
        ("the countdown reaches 0", (rng.standard_normal(n), rng.standard_normal(n), -1.0, 7,
                                     100.0, 0.01, 4, 1)),
        ("skip = 1 (plain SGD)", (rng.standard_normal(n), rng.standard_normal(n), 1.0, 0,
                                  50.0, 0.1, 1, 1)),
        ("margin +1e3", (np.full(n, 10.0), np.full(n, 20.0), 1.0, 3, 1e4, 0.001, 16, 1)),
        ("margin -1e3", (np.full(n, 10.0), np.full(n, 20.0), -1.0, 3, 1e4, 0.001, 16, 5)),
        ("x = 0", (rng.standard_normal(n), np.zeros(n), 1.0, 10, 20.0, 0.5, 2, 1)),
        ("w = 0 at the first step", (np.zeros(n), rng.standard_normal(n), -1.0, 0, 1e5, 1e-4,
                                     9965, 9965)),
        ("large skip, regularization due", (rng.standard_normal(n), rng.standard_normal(n),
                                            1.0, 20000, 1e5, 1e-4, 9965, 1)),
    ]


@_checker_doc("scheduled_step", "(w, x, y, t, t0, sigma, skip, count) -> (ndarray, int)",
              "case")
def check_scheduled_step(scheduled_step):
    """Exercise "the scheduled regularization step": ``scheduled_step(w, x, y, t, t0, sigma,
    skip, count)`` must return ``(w_new, count_new)`` of one SVMSGD2 step in the chapter's
    order, w_new to a relative 1e-12 and count_new exactly (an integer), without changing
    w or x.

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import check_scheduled_step
    >>> def leaves_w(w, x, y, t, t0, sigma, skip, count):
    ...     return w.copy(), count
    >>> try:
    ...     check_scheduled_step(leaves_w)
    ... except AssertionError as e:
    ...     print(str(e).split(" (w=")[0])
    scheduled_step: w_new on input 'a random step, count 3 -> 2'
    """
    _student("scheduled_step", scheduled_step)

    def compare(got, expected, desc, args):
        got_w, got_c = _pair("scheduled_step", got, desc)
        _compare_vectors("scheduled_step: w_new", got_w, np.array(expected[0]), 1e-12, desc)
        _integer("scheduled_step", got_c, expected[1], desc, "count_new")

    n = _run_cases("scheduled_step", PART, scheduled_step, _step_cases(),
                   ("w", "x", "y", "t", "t0", "sigma", "skip", "count"), compare)
    return f"check_scheduled_step: all {n} cases agree (relative error <= 1e-12)"


def _skip_cases():
    return [(f"n={n}, d={d}, c={c}", (n, d, c)) for n, d, c in
            [(500, 500, 16), (47_152, 75.4, 16), (47_236, 76, 16), (10, 10, 1),
             (10, 10, 0.5), (1, 1, 16), (10 ** 9, 1, 16), (48_407, 2420, 16), (3, 2, 1),
             (100, 3, 3), (7, 7, 3), (50, 1, 1.1), (90, 3, 1.1)]]


@_checker_doc("skip_from_cost", "(n, d, c) -> int", "case")
def check_skip_from_cost(skip_from_cost):
    """Exercise "skip from the cost model": ``skip_from_cost(n, d, c)`` must return the
    smallest integer skip >= 1 with n / skip <= d / c, as an int.

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import check_skip_from_cost
    >>> try:
    ...     check_skip_from_cost(lambda n, d, c: 16)
    ... except AssertionError as e:
    ...     print(str(e).split(": ")[1])
    the value is 16, expected 10006 (off by -9990)
    """
    _student("skip_from_cost", skip_from_cost)
    cases = _skip_cases()
    for label, (n, d, c) in cases:
        got = _call("skip_from_cost", label, skip_from_cost, n, d, c)
        if isinstance(got, (float, np.floating)):
            raise AssertionError(f"skip_from_cost on input {label}: expected an int, got the "
                                 f"float {got!r}")
        _integer("skip_from_cost", got, _expected(PART, "skip_from_cost", label), label)
    return f"check_skip_from_cost: all {len(cases)} cases agree"


def _ratio_cases():
    return [  # (label, (dw, dd, x, sigma))
        ("dense step", (np.array([0.1, -0.2, 0.05]), 0.3, np.array([0.5, -1.0, 0.25]), 0.01)),
        ("sparse x: zeros in dw and x", (np.array([0.0, -0.02, 0.0, 0.01]), 0.7,
                                         np.array([0.0, 1.0, 0.0, -0.5]), 1e-3)),
        ("no loss step: dw = 0 everywhere", (np.zeros(4), 0.0, np.array([1.0, 2, 0, 3]),
                                             0.1)),
        ("tiny dw and x (sigma dw and dd x are subnormal)",
         (np.array([3e-310, -1e-310]), 1e-4, np.array([1e-310, -2e-310]), 1e-4)),
        ("huge dd", (np.array([1e-3, 2e-3]), 1e8, np.array([1.0, 1.0]), 1e-5)),
        ("dd = 0", (np.array([0.3, -0.1]), 0.0, np.array([1.0, -2.0]), 0.2)),
        ("1e300 and 1e-300 in one step", (np.array([1e300, 1e-300, 2.0]), 1e-3,
                                          np.array([2e300, 3e-300, -1.0]), 1e-2)),
    ]


@_checker_doc("secant_ratio", "(dw, dd, x, sigma) -> ndarray", "case")
def check_secant_ratio(secant_ratio):
    """Exercise "the secant ratio and its limit": ``secant_ratio(dw, dd, x, sigma)`` must
    return the vector of ratios to a relative 1e-12 (their limit where dw_i = 0), also when
    the products in it are subnormal, without changing dw or x.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.sgdqn import check_secant_ratio
    >>> def naive(dw, dd, x, sigma):                   # 0/0 left as NaN where dw = 0
    ...     with np.errstate(all="ignore"):
    ...         return dw / (sigma * dw + dd * x)
    >>> try:
    ...     check_secant_ratio(naive)
    ... except AssertionError as e:
    ...     print(str(e).split("): ")[1])
    coordinate 0 is nan (not finite), expected 1000
    """
    _student("secant_ratio", secant_ratio)

    def compare(got, expected, desc, args):
        dw, dd, x, sigma = args
        big = float(max(np.abs(dw).max(), np.abs(x).max()))

        def probe():      # the ratios depend on x_i / dw_i only: scale both to magnitude 1
            if np.ptp(np.frexp(np.r_[dw[dw != 0], x[x != 0]])[1]) > 100:
                return None           # mixed magnitudes: no common scale is moderate
            k = -int(np.frexp(big)[1])
            out = secant_ratio(np.ldexp(dw, k), dd, np.ldexp(x, k), sigma)
            right = np.allclose(np.asarray(out, dtype=float), expected, rtol=1e-12, atol=0)
            return k if right else None

        _compare_vectors("secant_ratio", got, np.array(expected), 1e-12, desc,
                         probe=probe if big > 0 else None)

    n = _run_cases("secant_ratio", PART, secant_ratio, _ratio_cases(),
                   ("dw", "dd", "x", "sigma"), compare)
    return f"check_secant_ratio: all {n} cases agree"


def _corrected_cases():
    rng = np.random.default_rng(5)
    s = 1e-4
    B0 = np.full(6, 1.0 / (s * 1e5))
    return [  # (label, (B, w1, w, x, dd, dt, sigma))
        ("a dense secant", (B0.copy(), rng.standard_normal(6), rng.standard_normal(6),
                            rng.standard_normal(6), 0.4, 17, s)),
        ("sparse x", (B0.copy(), rng.standard_normal(6), rng.standard_normal(6),
                      np.array([0.0, 0.3, 0.0, 0.0, -0.7, 0.0]), 0.2, 9966, s)),
        ("clipped above (tiny w1 - w)", (B0.copy(), np.full(6, 1.0), np.full(6, 1.0 - 1e-12),
                                         np.ones(6), 1.0, 5, s)),
        ("clipped below (negative estimate)", (B0.copy(), np.zeros(6), np.full(6, 1e-3),
                                               np.ones(6), 0.5, 5, s)),
        ("w1 = w on a non-zero x_i", (B0.copy(), np.zeros(6), np.zeros(6), np.ones(6), 0.1,
                                      3, s)),
        ("x = 0", (np.geomspace(1, 1e6, 6), np.ones(6), np.zeros(6), np.zeros(6), 0.3, 1000,
                   1e-2)),
        ("huge dt", (np.full(6, 1e3), rng.standard_normal(6), rng.standard_normal(6),
                     rng.standard_normal(6), 0.01, 10 ** 12, 1e-6)),
        ("every branch in one vector",
         (np.full(6, 50.0), np.array([1.0, 2.0, 0.0, 1.0, 3.0, 5.0]),
          np.array([1.0, 1.0, 0.0, 1.0 - 1e-13, 3.5, 4.0]),
          np.array([0.0, 1.0, 1.0, 1.0, 1.0, 0.5]), 0.02, 7, 1e-3)),
    ]


@_checker_doc("corrected_update", "(B, w1, w, x, dd, dt, sigma) -> ndarray", "case")
def check_corrected_update(corrected_update):
    """Exercise "the corrected diagonal update": ``corrected_update(B, w1, w, x, dd, dt,
    sigma)`` must return the new diagonal B to a relative 1e-12 on every coordinate (each
    case of the update, several in one vector), without changing its inputs.

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import check_corrected_update
    >>> try:
    ...     check_corrected_update(lambda B, w1, w, x, dd, dt, sigma: B)   # no update
    ... except AssertionError as e:
    ...     print(str(e).split(" (B=")[0])
    corrected_update on input 'a dense secant'
    """
    _student("corrected_update", corrected_update)

    def compare(got, expected, desc, args):
        _compare_vectors("corrected_update", got, np.array(expected), 1e-12, desc)

    n = _run_cases("corrected_update", PART, corrected_update, _corrected_cases(),
                   ("B", "w1", "w", "x", "dd", "dt", "sigma"), compare)
    return f"check_corrected_update: all {n} cases agree"


def _rate_cases():
    return [(f"c={c}", (c,)) for c in (0.05, 0.1, 0.25, 0.4, 0.5, 0.75, 1.0, 3.0, 1e3, 1e-6)]


@_checker_doc("rate_exponent", "(c) -> float", "case")
def check_rate_exponent(rate_exponent):
    """Exercise "too small a B": ``rate_exponent(c)`` must return the exponent a of the
    decay t^-a of the excess cost when every eigenvalue of HB equals c (to 1e-12).

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import check_rate_exponent
    >>> try:
    ...     check_rate_exponent(lambda c: 1.0)          # "SGD always converges like 1/t"
    ... except AssertionError as e:
    ...     print(str(e).split(": ")[1].split(" (")[0])
    the value is 1, expected 0.10000000000000001
    """
    _student("rate_exponent", rate_exponent)
    cases = _rate_cases()
    for label, (c,) in cases:
        got = _call("rate_exponent", label, rate_exponent, c)
        if not isinstance(got, (int, float, np.integer, np.floating)) or isinstance(got, bool):
            raise AssertionError(f"rate_exponent on input {label}: expected a number, got "
                                 f"{got!r}")
        if not math.isfinite(float(got)):
            raise AssertionError(f"rate_exponent on input {label}: the value is {got}, "
                                 "expected a finite number")
        _compare_vectors("rate_exponent", float(got),
                         _expected(PART, "rate_exponent", label), 1e-12, label)
    return f"check_rate_exponent: all {len(cases)} cases agree"


CASES = {"scheduled_step": _step_cases, "skip_from_cost": _skip_cases,
         "secant_ratio": _ratio_cases, "corrected_update": _corrected_cases,
         "rate_exponent": _rate_cases}
