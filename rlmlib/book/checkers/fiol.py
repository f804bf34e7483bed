"""Self-checks of the fully implicit online learning part (DESIGN.md, "Exercise checkers").

Each ``check_<exercise>(student_function)`` runs the student's function on fixed inputs
(expected values are numbers in ``expected.json``) and raises AssertionError naming the
input, the coordinate and the size of the error; it returns a short success message
otherwise.
"""
import numpy as np

from .base import (_call, _checker_doc, _compare_vectors, _expected, _pair, _run_cases,
                   _student)

PART = "fiol"


def _inverse_cases():
    cases = []
    for y in (1.0, -1.0):
        for t in (-0.5, -0.1, -0.9, -1e-12, -1 + 1e-12, -1e-300, -0.999999, -0.3, -0.7,
                  -0.01, -0.99, -1e-310):
            cases.append((f"s={t * y!r}, y={y}", (t * y, y)))
    return cases


@_checker_doc("logistic_inverse", "(s, y) -> float", "case")
def check_logistic_inverse(logistic_inverse):
    """``logistic_inverse(s, y)`` must return z with l'(z; y) = s for the logistic loss,
    s y in (-1, 0), to a relative error of 1e-10 (absolute 1e-10 near z = 0), across the
    domain and for s y within 1e-12 of its ends.

    Examples
    --------
    >>> from rlmlib.book.checkers.fiol import check_logistic_inverse
    >>> try:
    ...     check_logistic_inverse(lambda s, y: s)
    ... except AssertionError as e:
    ...     print(str(e).split(": ")[1])
    the value is -0.5, expected 0 (error 0.5; allowed relative 1e-10 + absolute 1e-10)
    """
    _student("logistic_inverse", logistic_inverse)
    cases = _inverse_cases()
    for label, (s, y) in cases:
        got = _call("logistic_inverse", label, logistic_inverse, s, y)
        _compare_vectors("logistic_inverse", got, _expected(PART, "logistic_inverse", label),
                         1e-10, label, atol=1e-10)
    return f"check_logistic_inverse: all {len(cases)} cases pass"


def _soft_cases():
    return [("signs and zeros", (np.array([3.0, -3.0, 0.5, -0.5, 0.0]), 1.0)),
            ("at the threshold", (np.array([1.0, -1.0]), 1.0)),
            ("a = 0, 1e300 and 1e-300", (np.array([1e300, -1e-300]), 0.0)),
            ("u = 0", (np.zeros(3), 2.0)),
            ("all inside", (np.array([2.5, -7.0]), 10.0)),
            ("mixed magnitudes", (np.array([1e300, -2e-300, 5.0, -1e-5]), 1e-300))]


@_checker_doc("soft", "(u, a) -> ndarray", "case")
def check_soft(soft):
    """``soft(u, a)`` must return S_a(u) elementwise (exact zeros inside [-a, a]), without
    changing u.

    Examples
    --------
    >>> from rlmlib.book.checkers.fiol import check_soft
    >>> try:
    ...     check_soft(lambda u, a: u)
    ... except AssertionError as e:
    ...     print(str(e).split(" (u=")[0])
    soft on input 'signs and zeros'
    """
    _student("soft", soft)

    def compare(got, expected, desc, args):
        _compare_vectors("soft", got, np.array(expected), 1e-15, desc)

    n = _run_cases("soft", PART, soft, _soft_cases(), ("u", "a"), compare)
    return f"check_soft: all {n} cases pass"


def _bps_cases():
    rng = np.random.default_rng(11)
    return [("random", (rng.standard_normal(5), rng.standard_normal(5), 0.5, 0.1)),
            ("zeros in w and x", (np.array([1.0, -2.0, 0.0]), np.array([0.0, -1.0, 2.0]), 1.0,
                                  0.5)),
            ("w = 0, sigma = 0", (np.zeros(4), np.array([1.0, -1.0, 1.0, -1.0]), 2.0, 0.0)),
            ("x of mixed sizes", (rng.standard_normal(3), np.array([1e-3, -1e3, 1.0]), 1e-4,
                                  10.0))]


@_checker_doc("bps", "(w, x, eta, sigma) -> (ndarray, ndarray)", "case")
def check_breakpoints(bps):
    """``bps(w, x, eta, sigma)`` must return (lo, hi) over the coordinates with x_j != 0, in
    their order, to a relative 1e-12, without changing w or x.

    Examples
    --------
    >>> from rlmlib.book.checkers.fiol import check_breakpoints
    >>> try:
    ...     check_breakpoints(lambda w, x, eta, sigma: (w.copy(), x.copy()))
    ... except AssertionError as e:
    ...     print(str(e).split(" (w=")[0])
    bps: lo on input 'random'
    """
    _student("bps", bps)

    def compare(got, expected, desc, args):
        lo, hi = _pair("bps", got, desc)
        _compare_vectors("bps: lo", lo, np.array(expected[0]), 1e-12, desc)
        _compare_vectors("bps: hi", hi, np.array(expected[1]), 1e-12, desc)

    n = _run_cases("bps", PART, bps, _bps_cases(), ("w", "x", "eta", "sigma"), compare)
    return f"check_breakpoints: all {n} cases pass"


def _sort_step_cases():
    rng = np.random.default_rng(12)
    cases = [("x = 0", (rng.standard_normal(4), np.zeros(4), 1.0, 0.5, 0.3)),
             ("sigma = 0", (rng.standard_normal(5), rng.standard_normal(5), -1.0, 0.7, 0.0)),
             ("ties", (np.array([1.0, 1.0, -1.0, 0.0]), np.array([1.0, 1.0, -1.0, 2.0]), 0.5,
                       1.0, 0.5)),
             ("tiny eta", (rng.standard_normal(6), rng.standard_normal(6), 2.0, 1e-9, 0.1)),
             ("huge eta", (rng.standard_normal(6), rng.standard_normal(6), 2.0, 1e6, 0.1)),
             ("huge sigma (all zero)", (rng.standard_normal(6), rng.standard_normal(6), 5.0,
                                        1.0, 1e3)),
             ("one coordinate", (np.array([2.0]), np.array([-3.0]), 1.0, 0.2, 0.4))]
    for k in range(20):
        n = int(rng.integers(1, 9))
        cases.append((f"random {k}", (rng.standard_normal(n) * 3,
                                      rng.standard_normal(n) * (rng.random(n) < 0.7),
                                      float(rng.standard_normal() * 2),
                                      float(10 ** rng.uniform(-2, 2)),
                                      float(10 ** rng.uniform(-2, 0.5)))))
    return cases


@_checker_doc("step", "(w, x, y, eta, sigma) -> ndarray", "instance")
def check_sort_step(step):
    """``step(w, x, y, eta, sigma)`` must return the exact fully implicit step for the squared
    loss, each coordinate to 1e-9 relative to max(1, |w|, |result|); the first failing
    instance and coordinate are reported. w and x must be left unchanged.

    Examples
    --------
    >>> from rlmlib.book.checkers.fiol import check_sort_step
    >>> try:
    ...     check_sort_step(lambda w, x, y, eta, sigma: w)
    ... except AssertionError as e:
    ...     print(str(e).split(" (w=")[0])
    step on input 'x = 0'
    """
    _student("step", step)

    def compare(got, expected, desc, args):
        expected = np.array(expected)
        scale = max(1.0, float(np.abs(args[0]).max()), float(np.abs(expected).max()))
        _compare_vectors("step", got, expected, 0.0, desc, atol=1e-9 * scale)

    n = _run_cases("step", PART, step, _sort_step_cases(), ("w", "x", "y", "eta", "sigma"),
                   compare)
    return f"check_sort_step: all {n} instances pass"


CASES = {"logistic_inverse": _inverse_cases, "soft": _soft_cases, "bps": _bps_cases,
         "step": _sort_step_cases}
