"""The Pegasos/PGS chapter's exercise checkers accept the reference solutions and reject the
typical mistakes, with messages that name the input, the coordinate and the error."""
import math

import numpy as np
import pytest

from rlmlib.book.checkers import pegasos as checkers
from rlmlib import pnorm


# ------------------------------------------------------------------------ grad r* exercise
def ref_grad_conjugate(theta, p):
    """The chapter's reference solution: factor out M = max|theta_i| (see its text)."""
    q = p / (p - 1)
    M = np.max(np.abs(theta))
    if M == 0:
        return np.zeros_like(theta)
    nu = np.sum((np.abs(theta) / M) ** q) ** (1 / q)
    c = M ** ((2 - q) / (q - 1))
    return nu ** (2 - q) * (np.abs(theta) * c) ** (q - 1) * np.sign(theta) / (q - 1)


def naive(theta, p):
    q = p / (p - 1)
    with np.errstate(all="ignore"):
        nq = np.sum(np.abs(theta) ** q) ** (1 / q)
        return nq ** (2 - q) * np.abs(theta) ** (q - 1) * np.sign(theta) / (q - 1)


def no_factor(theta, p):
    return ref_grad_conjugate(theta, p) * (p / (p - 1) - 1)


def p_for_q(theta, p):
    # the formula of grad r (exponent p) where grad r* (exponent q) is needed
    return pnorm.grad_r(theta, p)


def no_sign(theta, p):
    return np.abs(ref_grad_conjugate(theta, p))


def test_grad_conjugate_checker_accepts_references():
    assert "passed" in checkers.check_grad_conjugate(ref_grad_conjugate)
    assert "passed" in checkers.check_grad_conjugate(pnorm.grad_conjugate)


@pytest.mark.parametrize("wrong,pattern", [
    (no_factor, r"input 'p=1.8'.*coordinate \d+ is .* expected .*relative error"),
    (p_for_q, r"input 'p=1.8'.*coordinate \d+"),
    (no_sign, r"input 'p=2 \(the identity\)'.*coordinate \d+"),
    # the textbook formula: |theta_i|^q underflows at 1e-200 and overflows at 1e300
    (naive, r"input 'p=1.3, \|theta_i\| about 1e-200'.*coordinate \d+ is nan \(not finite\)"),
])
def test_grad_conjugate_checker_rejects_mistakes(wrong, pattern):
    with pytest.raises(AssertionError, match=pattern):
        checkers.check_grad_conjugate(wrong)


def test_grad_conjugate_checker_names_shape_errors():
    with pytest.raises(AssertionError, match="expected an array of shape"):
        checkers.check_grad_conjugate(lambda th, p: th[:-1])


def test_naive_formula_fails_only_through_under_and_overflow():
    # the overflow case is what separates it from the reference: the checker is not
    # rejecting it for a reason unrelated to overflow
    th = np.random.default_rng(0).standard_normal(5)
    np.testing.assert_allclose(naive(th, 1.5), pnorm.grad_conjugate(th, 1.5), rtol=1e-12)
    big = np.array([1e300, -3e299, 2.5, 0.0, -1e-5, 7e150])
    assert not np.all(np.isfinite(naive(big, 1.01)))


# ---------------------------------------------------------------- ball conjugate exercise
def ref_ball(theta, p, B):
    q = p / (p - 1)
    M = np.max(np.abs(theta))
    nq = 0.0 if M == 0 else M * np.sum((np.abs(theta) / M) ** q) ** (1 / q)
    if (p - 1) * nq <= B:
        return (p - 1) * nq ** 2 / 2
    return B * nq - B ** 2 / (2 * (p - 1))


def ball_ignored(theta, p, B):
    return pnorm.r_conjugate(theta, p)


def ball_wrong_switch(theta, p, B):
    # switching at ||theta||_q > B (the unscaled p = 2 rule) instead of (p-1)||theta||_q > B
    q = p / (p - 1)
    nq = np.sum(np.abs(theta) ** q) ** (1 / q)
    return (p - 1) * nq ** 2 / 2 if nq <= B else B * nq - B ** 2 / (2 * (p - 1))


def ball_forgot_scaling(theta, p, B):
    # the conjugate of (1/2)||w||_p^2 on the ball, not of ||w||_p^2 / (2(p-1))
    q = p / (p - 1)
    nq = np.sum(np.abs(theta) ** q) ** (1 / q)
    return nq ** 2 / 2 if nq <= B else B * nq - B ** 2 / 2


def test_ball_checker():
    assert "passed" in checkers.check_ball_conjugate(ref_ball)
    for wrong, pattern in [(ball_ignored, "outside"), (ball_wrong_switch, r"\|\|theta\|\|_q > B"),
                           (ball_forgot_scaling, "p=1.8")]:
        with pytest.raises(AssertionError, match=pattern + ".*relative error"):
            checkers.check_ball_conjugate(wrong)


# ------------------------------------------------------------------------- best k exercise
def ref_best_k(n, d, a, b):
    kc = math.sqrt(b * n / (a * d))
    cands = {max(1, math.floor(kc)), max(1, math.ceil(kc))}
    return min(cands, key=lambda k: checkers.pgs_time_model(k, n, d, a, b))


def brute_best_k(n, d, a, b):
    ks = np.arange(1, 5000)
    return int(ks[np.argmin(checkers.pgs_time_model(ks, n, d, a, b))])


def test_best_k_checker():
    assert "passed" in checkers.check_best_k(ref_best_k)
    assert "passed" in checkers.check_best_k(brute_best_k)
    mistakes = [
        (lambda n, d, a, b: max(1, round(n / d)), "RCV1.*returned k=622.*k=249"),
        (lambda n, d, a, b: 1, "RCV1.*returned k=1"),
        (lambda n, d, a, b: math.sqrt(b * n / (a * d)), "expected an integer"),
        (lambda n, d, a, b: max(1, int(math.sqrt(b * n / (a * d)))), "between 2 and 3.*k=2"),
        (lambda n, d, a, b: 0, r"k must be >= 1, got 0"),
    ]
    for wrong, pattern in mistakes:
        with pytest.raises(AssertionError, match=pattern):
            checkers.check_best_k(wrong)


def no_zero_guard(theta, p):
    # the factored formula without the M = 0 branch: 0/0 at theta = 0
    q = p / (p - 1)
    M = np.max(np.abs(theta))
    with np.errstate(all="ignore"):
        nu = np.sum((np.abs(theta) / M) ** q) ** (1 / q)
        c = M ** ((2 - q) / (q - 1))
        return nu ** (2 - q) * (np.abs(theta) * c) ** (q - 1) * np.sign(theta) / (q - 1)


def flush_tiny(theta, p):
    # a result that underflows to 0 where the true value is a normal number
    out = ref_grad_conjugate(theta, p)
    return np.where(np.abs(theta) < 1e-140, 0.0, out)


def test_grad_conjugate_checker_tests_zero_and_names_underflow():
    with pytest.raises(AssertionError, match=r"theta = 0.*is nan \(not finite\)"):
        checkers.check_grad_conjugate(no_zero_guard)
    with pytest.raises(AssertionError, match=r"1e-200.*coordinate 0 is 0, expected .*underflow"):
        checkers.check_grad_conjugate(flush_tiny)
    # an infinite coordinate is called overflow, a nan is not
    with pytest.raises(AssertionError, match=r"is inf \(not finite\).*overflow: "):
        checkers.check_grad_conjugate(lambda th, p: th * np.inf)


def ball_naive_norm(theta, p, B):
    q = p / (p - 1)
    with np.errstate(over="ignore"):
        nq = np.sum(np.abs(theta) ** q) ** (1 / q)
    return (p - 1) * nq ** 2 / 2 if (p - 1) * nq <= B else B * nq - B ** 2 / (2 * (p - 1))


def test_ball_checker_extreme_inputs_and_scalar_results():
    with pytest.raises(AssertionError, match=r"1e200.*the value is inf \(not finite\)"):
        checkers.check_ball_conjugate(ball_naive_norm)
    with pytest.raises(AssertionError, match=r"expected a number, got an array of shape \(1,\)"):
        checkers.check_ball_conjugate(lambda th, p, B: np.array([ref_ball(th, p, B)]))
    # a wrong scalar is "the value", never "coordinate 0"
    with pytest.raises(AssertionError, match=r"the value is .*relative error") as e:
        checkers.check_ball_conjugate(lambda th, p, B: 1.01 * ref_ball(th, p, B) + 1e-3)
    assert "coordinate" not in str(e.value)
    with pytest.raises(AssertionError, match=r"raised ZeroDivisionError"):
        checkers.check_ball_conjugate(lambda th, p, B: 1 / 0)


def test_best_k_checker_rejects_rounding():
    # k* = sqrt(6.1) = 2.47 < 2.5: round gives 2, but f(3) < f(2) since k*^2 > 2 * 3
    assert checkers.pgs_time_model(3, 61, 10, 1, 1) < checkers.pgs_time_model(2, 61, 10, 1, 1)
    rounding = lambda n, d, a, b: max(1, round(math.sqrt(b * n / (a * d))))
    with pytest.raises(AssertionError, match=r"n=61.*returned k=2 .*but k=3"):
        checkers.check_best_k(rounding)
