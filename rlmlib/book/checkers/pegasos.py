"""Self-checks of the Pegasos and PGS part (DESIGN.md, "Exercise checkers").

``check_<exercise>(student_function)`` runs the student's function on fixed inputs (their
expected values are numbers in ``expected.json``) and raises ``AssertionError`` naming the
input, the coordinate and the size of the error; it returns a short success message
otherwise.
"""
import numpy as np

from .base import (UNDERFLOW_ATOL, _call, _checker_doc, _compare_vectors, _expected, _run_cases,
                   _student)
from .foundations import check_scaled_step  # noqa: F401  (its older home)

PART = "pegasos"


def _grad_conjugate_cases():
    rng = np.random.default_rng(2009)
    return [
        ("p=2 (the identity)", (rng.standard_normal(6), 2.0)),
        ("p=1.8", (rng.standard_normal(8), 1.8)),
        ("p=1.5, with zeros", (np.array([0.0, 1.5, -2.0, 0.0, 0.25]), 1.5)),
        ("p=1.25, a single coordinate", (np.array([-3.0]), 1.25)),
        ("p=1.3, |theta_i| about 1e-200", (rng.standard_normal(5) * 1e-200, 1.3)),
        ("p=1.01, mixed magnitudes up to 1e300",
         (np.array([1e300, -3e299, 2.5, 0.0, -1e-5, 7e150]), 1.01)),
        ("p=1.05, |theta_i| about 1e30", (rng.standard_normal(6) * 1e30, 1.05)),
        ("p=1.5, theta = 0", (np.zeros(4), 1.5)),
        ("p=1.1, |theta_i| about 1e-150", (np.array([3e-150, -1e-150, 2e-151]), 1.1)),
        ("p=1.99, 1e300 and 1e-300 in one vector",
         (np.array([1e300, -1e-300, 3.0, 0.0]), 1.99)),
    ]


@_checker_doc("grad_conjugate", "(theta, p) -> ndarray")
def check_grad_conjugate(grad_conjugate):
    """Exercise "the mirror map without overflow": ``grad_conjugate(theta, p)`` must return
    the mirror map of the chapter to relative accuracy 1e-9 on every coordinate, also for
    p = 1.01, |theta_i| from 1e-300 to 1e300 (in one vector too) and theta = 0, without
    changing theta.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.pegasos import check_grad_conjugate
    >>> try:
    ...     check_grad_conjugate(lambda theta, p: theta.copy())    # right for p = 2 only
    ... except AssertionError as e:
    ...     print(str(e).split(" (theta")[0])
    grad_conjugate on input 'p=1.8'
    """
    _student("grad_conjugate", grad_conjugate)

    def compare(got, expected, desc, args):
        theta, p = args
        big = float(np.max(np.abs(theta))) if theta.size else 0.0

        def probe():      # the same direction at magnitude 1: grad r* is 1-homogeneous
            k = -int(np.frexp(big)[1])
            out = np.asarray(grad_conjugate(np.ldexp(theta, k), p), dtype=np.float64)
            right = np.allclose(np.ldexp(out, -k), expected, rtol=1e-9, atol=0)
            return k if right else None

        _compare_vectors("grad_conjugate", got, np.array(expected), 1e-9, desc,
                         probe=probe if big > 0 else None)

    n = _run_cases("grad_conjugate", PART, grad_conjugate, _grad_conjugate_cases(),
                   ("theta", "p"), compare)
    return f"grad_conjugate passed all {n} inputs (relative error < 1e-9, p from 1.01 to 2)."


def _ball_conjugate_cases():
    rng = np.random.default_rng(7)
    return [
        ("p=2, inside the ball", (rng.standard_normal(5) * 0.1, 2.0, 3.0)),
        ("p=2, outside the ball", (rng.standard_normal(5) * 4.0, 2.0, 0.5)),
        ("p=1.8, inside", (rng.standard_normal(6) * 0.3, 1.8, 2.0)),
        ("p=1.8, outside", (rng.standard_normal(6) * 3.0, 1.8, 0.7)),
        ("p=1.5, ||theta||_q > B >= (p-1)||theta||_q", (np.array([1.6, -0.4, 0.3]), 1.5,
                                                         1.2)),
        ("p=1.2, outside", (rng.standard_normal(4) * 5.0, 1.2, 0.2)),
        ("p=1.05, inside", (rng.standard_normal(4) * 0.5, 1.05, 1.0)),
        ("p=1.5, theta = 0", (np.zeros(3), 1.5, 1.0)),
        ("p=1.5, |theta_i| about 1e200, outside", (np.array([1e200, -3e199, 5e199]), 1.5,
                                                   2.0)),
        ("p=1.5, |theta_i| about 1e100, inside a ball of radius 1e201",
         (np.array([1e100, -3e99, 5e99]), 1.5, 1e201)),
        ("p=1.3, |theta_i| about 1e-120, inside", (np.array([2e-120, -1e-120]), 1.3, 1.0)),
        ("p=1.5, 1e150 and 1e-150 in one vector, outside",
         (np.array([1e150, 1e-150, -2.0]), 1.5, 1.0)),
    ]


@_checker_doc("r_conjugate_ball", "(theta, p, B) -> float")
def check_ball_conjugate(r_conjugate_ball):
    """Exercise "the conjugate on a ball": ``r_conjugate_ball(theta, p, B)`` must return
    sup over ||w||_p <= B of <w, theta> - ||w||_p^2 / (2(p-1)), a number (not an array), to
    relative accuracy 1e-9 or absolute 2.2e-308 (the smallest normal double: below it a
    correctly rounded value has fewer digits), inside and outside the ball, also for
    theta = 0 and |theta_i| = 1e200.

    Examples
    --------
    >>> from rlmlib.book.checkers.pegasos import check_ball_conjugate
    >>> try:
    ...     check_ball_conjugate(lambda theta, p, B: 0.0)
    ... except AssertionError as e:
    ...     print(str(e).split(" (theta")[0])
    r_conjugate_ball on input 'p=2, inside the ball'
    """
    _student("r_conjugate_ball", r_conjugate_ball)

    def compare(got, expected, desc, args):
        _compare_vectors("r_conjugate_ball", got, float(expected), 1e-9, desc,
                         atol=UNDERFLOW_ATOL)

    n = _run_cases("r_conjugate_ball", PART, r_conjugate_ball, _ball_conjugate_cases(),
                   ("theta", "p", "B"), compare)
    return f"r_conjugate_ball passed all {n} inputs, inside and outside the ball."


def pgs_time_model(k, n, d, a, b):
    """Modelled time to accuracy of PGS with batch size k: (a + b/k) * (d k + n).

    Steps to reach the target scale like a + b/k (b: the variance a batch of k divides by k;
    a: what batching does not reduce); one step of the paper's implementation costs d k + n
    (k examples with d non-zeros each, plus the mirror map over n coordinates).

    Parameters
    ----------
    k : int or ndarray
        Batch size(s).
    n, d, a, b : float
        Features, non-zeros per example, and the two constants of the step count.

    Returns
    -------
    float or ndarray

    Raises
    ------
    ValueError
        When ``k`` holds a batch size below 1 or not finite, or ``n``, ``d``, ``a``, ``b``
        is negative or not finite.

    Examples
    --------
    >>> from rlmlib.book.checkers.pegasos import pgs_time_model
    >>> pgs_time_model(2, n=100, d=10, a=1.0, b=4.0)
    360.0
    """
    kv = np.asarray(k)
    if kv.dtype.kind not in "biuf" or not np.all(np.isfinite(kv)) or np.any(kv < 1):
        raise ValueError(f"k must hold finite batch sizes >= 1, got {k!r}")
    for name, v in (("n", n), ("d", d), ("a", a), ("b", b)):
        if not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v) \
                or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    return (a + b / k) * (d * k + n)


def _best_k_cases():
    return [
        ("RCV1: n=47236, d=76, a=1, b=100", (47236, 76.0, 1.0, 100.0)),
        ("n=1000, d=10, a=1, b=0.085", (1000, 10.0, 1.0, 0.085)),
        ("n=20, d=20, a=1, b=0.5", (20, 20.0, 1.0, 0.5)),
        ("dense: n=500, d=500, a=0.5, b=400", (500, 500.0, 0.5, 400.0)),
        ("n=10^6, d=50, a=2, b=10", (1_000_000, 50.0, 2.0, 10.0)),
        ("n=61, d=10, a=b=1", (61, 10.0, 1.0, 1.0)),
        ("n=1e9, d=1, a=1, b=1e-2", (10**9, 1.0, 1.0, 1e-2)),
        ("n=10, d=1000, a=1e3, b=1e-3", (10, 1000.0, 1e3, 1e-3)),
        ("n=2, d=1, a=1, b=1 (a tie)", (2, 1.0, 1.0, 1.0)),
    ]


@_checker_doc("best_k", "(n, d, a, b) -> int")
def check_best_k(best_k):
    """Exercise "the best batch size": ``best_k(n, d, a, b)`` must return an integer k >= 1
    that minimizes :func:`pgs_time_model` over the integers (any minimizer, if two tie).

    Examples
    --------
    >>> from rlmlib.book.checkers.pegasos import check_best_k
    >>> try:
    ...     check_best_k(lambda n, d, a, b: 300)            # the paper's k, everywhere
    ... except AssertionError as e:
    ...     print(str(e).split(":")[0])
    best_k on input 'RCV1
    """
    _student("best_k", best_k)
    cases = _best_k_cases()
    for label, (n, d, a, b) in cases:
        desc = f"'{label}' (n={n}, d={d}, a={a}, b={b})"
        got = _call("best_k", desc, best_k, n, d, a, b)
        best = _expected(PART, "best_k", label)
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer)):
            raise AssertionError(f"best_k on input {desc}: expected an integer k >= 1, got "
                                 f"{got!r} of type {type(got).__name__}")
        if got < 1:
            raise AssertionError(f"best_k on input {desc}: k must be >= 1, got {got}")
        t_got, t_best = pgs_time_model(int(got), n, d, a, b), pgs_time_model(best, n, d, a, b)
        if t_got > t_best * (1 + 1e-12):
            raise AssertionError(
                f"best_k on input {desc}: returned k={got} with modelled time {t_got:.6g}, "
                f"but k={best} gives {t_best:.6g} (excess {t_got / t_best - 1:.3g} relative)")
    return f"best_k passed all {len(cases)} inputs."


CASES = {"grad_conjugate": _grad_conjugate_cases, "r_conjugate_ball": _ball_conjugate_cases,
         "best_k": _best_k_cases}
