"""Self-checks of the data-preconditioning part (DESIGN.md, "Exercise checkers"): each runs
the student's function on fixed inputs, extreme ones included (expected values are numbers
in ``expected.json``), and raises ``AssertionError`` naming the input, the coordinate and the
size of the error."""
import math

import numpy as np

from .base import _call, _checker_doc, _compare_vectors, _expected, _run_cases, _student

PART = "precond"


def _gamma_cases():
    rng = np.random.default_rng(0)
    return [  # (label, (eigenvalues, ratio)); eigenvalues as a list, as the exercise says
        ("the hand computation", ([1.0, 0.5, 0.25, 0.125], 0.25)),
        ("a zero eigenvalue", ([1.0, 1.0, 0.0], 1.0)),
        ("all zero", ([0.0, 0.0], 1e-300)),
        ("polynomial decay", (list(np.arange(1, 1001.0) ** -2.0), 1e-6)),
        ("1e300 and 1e-300 eigenvalues", ([1e300, 1e300, 1e-300], 1.0)),
        ("c + ratio overflows", ([1e308, 1.5e308], 1e308)),
        ("tiny eigenvalues and ratio", ([1e-300, 2e-300], 1e-300)),
        ("huge ratio", ([1.0, 2.0], 1e300)),
        ("random", (list(rng.random(50)), 0.1)),
        ("tiny ratio, mixed eigenvalues", ([1e-300, 1.0, 1e300, 0.0], 1e-300)),
    ]


@_checker_doc("gamma", "(eigenvalues, ratio) -> float", "case")
def check_numerical_rank(gamma):
    """Check ``gamma(eigenvalues, ratio)``, the numerical rank sum_j c_j / (c_j + ratio), to a
    relative 1e-10 (absolute 1e-300 near zero), on eigenvalues from 0 to 1e300 and ratios
    from 1e-300 to 1e300.

    Examples
    --------
    >>> from rlmlib.book.checkers.precond import check_numerical_rank
    >>> try:
    ...     check_numerical_rank(lambda c, ratio: float(len(c)))     # the plain rank
    ... except AssertionError as e:
    ...     print(str(e).split(" (eig")[0])
    gamma on input 'the hand computation'
    """
    _student("gamma", gamma)

    def compare(got, expected, desc, args):
        c, ratio = args
        nz = [v for v in c if v > 0] + [ratio]

        def probe():      # gamma is unchanged when c and ratio are scaled together
            e = np.frexp(np.asarray(nz))[1]
            if np.ptp(e) > 100:
                return None           # mixed magnitudes: no common scale is moderate
            k = -int(np.max(e))
            out = float(gamma(list(np.ldexp(np.asarray(c, dtype=float), k)),
                              float(np.ldexp(ratio, k))))
            return k if math.isclose(out, expected, rel_tol=1e-10, abs_tol=1e-300) else None

        with np.errstate(all="ignore"):
            _compare_vectors("gamma", got, float(expected), 1e-10, desc, probe=probe,
                             atol=1e-300)

    n = _run_cases("gamma", PART, gamma, _gamma_cases(), ("eigenvalues", "ratio"),
                   compare)         # the lists themselves: sorting them in place is an error
    return f"check_numerical_rank: all {n} cases correct."


def _sampled_cases():
    rng = np.random.default_rng(1)
    X1 = rng.standard_normal((40, 6)) * np.array([5, 2, 1, 0.5, 0.1, 0.01])
    X2 = rng.standard_normal((30, 12))
    X3 = X2.copy()
    X3[:, 5:] = 0.0                                     # zero columns: rank-deficient
    X4 = np.zeros((10, 4))
    X4[3] = [1e3, -1e3, 0.0, 2.0]
    return [  # (label, (X, sample, sigma, beta))
        ("graded columns", (X1, np.array([0, 3, 7, 11, 20]), 1e-3, 1.0)),
        ("s = m", (X2, np.arange(30), 1e-2, 0.25)),
        ("s = 1", (X2.copy(), np.array([4]), 1e-1, 0.5)),
        ("zero columns", (X3, np.array([1, 2, 3, 10, 11, 12, 13, 14]), 1e-4, 1.0)),
        ("a sample of zero rows", (X4, np.array([0, 1, 2]), 1e-2, 1.0)),
        ("one large row in the sample", (X4.copy(), np.array([3, 5]), 1e-6, 0.25)),
    ]


@_checker_doc("sampled_transform", "(X, sample, sigma, beta) -> ndarray", "case")
def check_sampled_transform(sampled_transform):
    """Check ``sampled_transform(X, sample, sigma, beta)``, the rows of X times
    Hhat^(-1/2) of the sampled preconditioner, for dense X: every entry to 1e-8 of the
    largest entry; X and sample must be left unchanged.

    Examples
    --------
    >>> from rlmlib.book.checkers.precond import check_sampled_transform
    >>> try:
    ...     check_sampled_transform(lambda X, sample, sigma, beta: X)
    ... except AssertionError as e:
    ...     print(str(e).split(" (X=")[0])
    sampled_transform on input 'graded columns'
    """
    _student("sampled_transform", sampled_transform)

    def compare(got, expected, desc, args):
        expected = np.array(expected)
        with np.errstate(all="ignore"):
            _compare_vectors("sampled_transform", got, expected, 0.0, desc,
                             atol=1e-8 * max(np.abs(expected).max(), 1e-300))

    n = _run_cases("sampled_transform", PART, sampled_transform, _sampled_cases(),
                   ("X", "sample", "sigma", "beta"), compare)
    return (f"check_sampled_transform: all {n} cases correct "
            "(one row, every row, zero rows).")


def _beta_cases():
    return [(f"R={R:g}", (R,)) for R in [0.0, 1e-8, 0.5, 1.0, 3.0, 10.0, 17.0, 25.0, 36.0,
                                          40.0, 41.0, 100.0, 500.0, 650.0, 700.0]]


@_checker_doc("bound", "(R) -> float", "value of R")
def check_logistic_beta(bound):
    """Check ``bound(R)``, the smallest second derivative of the logistic loss on
    |z| <= R, to a relative 1e-12, for R from 0 to 700.

    Examples
    --------
    >>> from rlmlib.book.checkers.precond import check_logistic_beta
    >>> try:
    ...     check_logistic_beta(lambda R: 0.25)      # the curvature at z = 0
    ... except AssertionError as e:
    ...     print(str(e).split(": ")[0])
    bound on input R=0.5
    """
    _student("bound", bound)
    cases = _beta_cases()
    for label, (R,) in cases:
        with np.errstate(all="ignore"):
            got = _call("bound", label, bound, R)
        _compare_vectors("bound", got, _expected(PART, "bound", label), 1e-12, label)
    return f"check_logistic_beta: all {len(cases)} values of z_max correct (0 to 700)."


CASES = {"gamma": _gamma_cases, "sampled_transform": _sampled_cases, "bound": _beta_cases}
