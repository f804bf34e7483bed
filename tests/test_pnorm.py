"""rlmlib.pnorm: the p-norm regularizer, its conjugate and the mirror map grad r*."""
import math

import mpmath
import numpy as np
import pytest
from scipy.optimize import minimize

from rlmlib import pnorm

P_GRID = [1.01, 1.02, 1.05, 1.1, 1.3, 1.5, 1.8, 1.9, 1.99, 2.0]
TINY = 2.2250738585072014e-308  # smallest normal double


def exact_grad_conjugate(theta, p, dps=80):
    """grad r*(theta) in mpmath with dps digits (the reference of the accuracy test)."""
    with mpmath.workdps(dps):
        p = mpmath.mpf(p)
        q = p / (p - 1)
        th = [mpmath.mpf(float(t)) for t in theta]
        nq = mpmath.fsum(abs(t) ** q for t in th) ** (1 / q)
        return [(1 / (q - 1)) * nq ** (2 - q) * abs(t) ** (q - 1) * mpmath.sign(t) for t in th]


def test_grad_conjugate_accuracy_against_mpmath():
    """Relative error < 1e-12 for every p in [1.01, 2] and |theta_i| in [1e-300, 1e300],
    mixed magnitudes in one vector and zeros; results below the normal range may only
    differ by a few subnormal units when they are not representable to relative accuracy."""
    rng = np.random.default_rng(0)
    vectors = [
        np.array([1e300, -1e-300, 3.7, 1e-5, 0.0, -2e150, 5e-200]),
        np.array([1e-300]),
        np.array([-1e300, 1e300]),
        np.array([1e-300, -1e-300, 0.0, 2e-300]),
        np.array([1e300, 1e299, -1e298, 0.0]),
    ]
    for e in range(-300, 301, 50):
        v = rng.standard_normal(6) * 10.0 ** e
        v[1] = 0.0
        vectors.append(v)
        vectors.append(np.abs(rng.standard_normal(5)) * 10.0 ** rng.uniform(-300, 300, 5)
                       * rng.choice([-1, 1], 5))
    worst = 0.0
    for p in P_GRID:
        for th in vectors:
            got = pnorm.grad_conjugate(th, p)
            assert np.all(np.isfinite(got))
            for i, (g, ex) in enumerate(zip(got, exact_grad_conjugate(th, p))):
                if ex == 0:
                    assert g == 0.0, (p, th, i)
                elif abs(ex) < TINY:
                    assert abs(mpmath.mpf(g) - ex) <= max(1e-12 * abs(ex), 4 * 5e-324), (p, th, i, g, ex)
                else:
                    rel = float(abs((mpmath.mpf(g) - ex) / ex))
                    assert rel < 1e-12, (p, th, i, g, ex, rel)
                    worst = max(worst, rel)
    assert worst > 0.0  # the comparison did run on normal numbers


@pytest.mark.parametrize("p", [1.01, 1.1, 1.5, 1.8, 2.0])
def test_fenchel_young_equality(p):
    """r(w) + r*(theta) = <w, theta> exactly when w = grad r*(theta)."""
    rng = np.random.default_rng(1)
    for scale in [1e-3, 1.0, 1e3]:
        theta = rng.standard_normal(20) * scale
        w = pnorm.grad_conjugate(theta, p)
        lhs = pnorm.r(w, p) + pnorm.r_conjugate(theta, p)
        assert lhs == pytest.approx(float(w @ theta), rel=1e-12)
        # and the Fenchel-Young inequality is strict at another point
        w2 = w + 0.1 * scale * rng.standard_normal(20)
        assert pnorm.r(w2, p) + pnorm.r_conjugate(theta, p) > float(w2 @ theta)


@pytest.mark.parametrize("p", [1.01, 1.05, 1.3, 1.8, 2.0])
def test_mirror_maps_are_inverse(p):
    rng = np.random.default_rng(2)
    w = rng.standard_normal(30) * np.exp(rng.uniform(-5, 5, 30))
    w[3] = 0.0
    np.testing.assert_allclose(pnorm.grad_conjugate(pnorm.grad_r(w, p), p), w, rtol=1e-11,
                               atol=0)
    theta = rng.standard_normal(30)
    np.testing.assert_allclose(pnorm.grad_r(pnorm.grad_conjugate(theta, p), p), theta,
                               rtol=1e-11, atol=0)


@pytest.mark.parametrize("p", [1.05, 1.5, 1.8])
def test_gradients_match_finite_differences(p):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(8)
    q = p / (p - 1)
    h = 1e-6
    for f, g in [(lambda v: pnorm.r(v, p), pnorm.grad_r(x, p)),
                 (lambda v: pnorm.r_conjugate(v, p), pnorm.grad_conjugate(x, p))]:
        fd = np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(8)])
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    # closed forms of the values
    assert pnorm.r(x, p) == pytest.approx(np.sum(np.abs(x) ** p) ** (2 / p) / (2 * (p - 1)))
    assert pnorm.r_conjugate(x, p) == pytest.approx(
        np.sum(np.abs(x) ** q) ** (2 / q) / (2 * (q - 1)))


def test_p2_is_the_identity():
    theta = np.random.default_rng(4).standard_normal(50) * 1e5
    assert np.array_equal(pnorm.grad_conjugate(theta, 2.0), theta)
    assert np.array_equal(pnorm.grad_r(theta, 2.0), theta)
    assert pnorm.r(theta, 2.0) == pytest.approx(0.5 * theta @ theta, rel=1e-14)


@pytest.mark.parametrize("p", [1.2, 1.5, 1.8, 2.0])
@pytest.mark.parametrize("radius", [0.3, 1.0, 50.0])
def test_ball_version_is_the_constrained_argmax(p, radius):
    """grad_conjugate(theta, p, radius) maximizes <w, theta> - r(w) over ||w||_p <= radius:
    compare with SLSQP on the constrained problem, and r_conjugate with the attained value."""
    rng = np.random.default_rng(5)
    n = 5
    for _ in range(3):
        theta = rng.standard_normal(n) * 2.0
        w = pnorm.grad_conjugate(theta, p, radius=radius)
        assert np.sum(np.abs(w) ** p) ** (1 / p) <= radius * (1 + 1e-12)
        val = float(w @ theta) - pnorm.r(w, p)
        assert pnorm.r_conjugate(theta, p, radius=radius) == pytest.approx(val, rel=1e-12)

        def neg(v):
            return -(v @ theta - np.sum(np.abs(v) ** p) ** (2 / p) / (2 * (p - 1)))

        cons = {"type": "ineq", "fun": lambda v: radius ** p - np.sum(np.abs(v) ** p)}
        best = None
        for start in [np.zeros(n) + 1e-3, 0.5 * w, rng.standard_normal(n) * 0.1]:
            res = minimize(neg, start, constraints=[cons], method="SLSQP",
                           options={"ftol": 1e-14, "maxiter": 500})
            if best is None or res.fun < best.fun:
                best = res
        # no feasible point does better than ours, and the optimizer finds ours
        assert val >= -best.fun - 1e-7
        np.testing.assert_allclose(best.x, w, atol=2e-4)
        # the unconstrained map is rescaled exactly when it leaves the ball
        free = pnorm.grad_conjugate(theta, p)
        norm_free = np.sum(np.abs(free) ** p) ** (1 / p)
        assert norm_free == pytest.approx((p - 1) * np.sum(np.abs(theta) ** (p / (p - 1)))
                                          ** ((p - 1) / p), rel=1e-12)
        expect = free if norm_free <= radius else free * (radius / norm_free)
        np.testing.assert_allclose(w, expect, rtol=1e-13)


def _strong_convexity_modulus(f, a, b, norm):
    """Largest mu with f((a+b)/2) <= (f(a)+f(b))/2 - (mu/8) ||a-b||^2 (midpoint form)."""
    gap = 0.5 * (f(a) + f(b)) - f(0.5 * (a + b))
    return 8.0 * gap / norm(a - b) ** 2


def test_strong_convexity_holds_for_p_le_2_and_fails_for_p_gt_2():
    rng = np.random.default_rng(6)
    for p in [1.1, 1.5, 1.8, 2.0]:
        norm = lambda v: np.sum(np.abs(v) ** p) ** (1 / p)
        for _ in range(200):
            a, b = rng.standard_normal((2, 6)) * np.exp(rng.uniform(-3, 3, (2, 6)))
            assert _strong_convexity_modulus(lambda v: pnorm.r(v, p), a, b, norm) >= 1 - 1e-9
    # p = 3: f = ||w||_3^2 / (2 (p - 1)); at a, b = e1 +- t e2 the modulus is O(t^(p-2)) -> 0
    p = 3.0
    norm = lambda v: np.sum(np.abs(v) ** p) ** (1 / p)
    f = lambda v: norm(v) ** 2 / (2 * (p - 1))
    e1, e2 = np.eye(2)
    mus = [_strong_convexity_modulus(f, e1 + t * e2, e1 - t * e2, norm)
           for t in [1e-1, 1e-2, 1e-3]]
    assert mus[0] > mus[1] > mus[2] > 0
    assert mus[2] < 1e-2
    # and it shrinks like t^(p-2): the ratio for t and t/10 is about 10
    assert mus[1] / mus[2] == pytest.approx(10.0, rel=0.05)


@pytest.mark.parametrize("bad_p", [2.5, 1.0, 0.5, float("nan"), float("inf"), "2", None])
def test_bad_p(bad_p):
    with pytest.raises(ValueError, match="p must be"):
        pnorm.grad_conjugate(np.ones(3), bad_p)
    with pytest.raises(ValueError, match="p must be"):
        pnorm.r(np.ones(3), bad_p)


def test_bad_inputs():
    with pytest.raises(ValueError, match="radius must be a finite number > 0, got 0"):
        pnorm.grad_conjugate(np.ones(3), 1.5, radius=0)
    with pytest.raises(ValueError, match="radius"):
        pnorm.r_conjugate(np.ones(3), 1.5, radius=-1.0)
    with pytest.raises(ValueError, match="theta must not contain NaN or inf"):
        pnorm.grad_conjugate(np.array([1.0, np.nan]), 1.5)
    with pytest.raises(ValueError, match="theta must be a 1-D array"):
        pnorm.grad_conjugate(np.ones((2, 2)), 1.5)
    with pytest.raises(TypeError, match="w must hold real numbers"):
        pnorm.grad_r(np.array(["a"]), 1.5)


def test_zero_and_extreme_vectors_stay_finite():
    for p in [1.01, 1.5, 2.0]:
        assert np.array_equal(pnorm.grad_conjugate(np.zeros(4), p), np.zeros(4))
        big = np.full(3, 1e308)
        g = pnorm.grad_conjugate(big, p)
        assert np.all(np.isfinite(g)) and np.all(g > 0)
        # equal entries: grad r*(c 1)_i = (p-1) ||c 1||_q^(2-q) c^(q-1) = (p-1) c n^((2-q)/q)
        q = p / (p - 1)
        assert g[0] == pytest.approx((p - 1) * 1e308 * 3 ** ((2 - q) / q), rel=1e-12)
        assert math.isfinite(pnorm.r_conjugate(np.full(3, 1e-300), p))


@pytest.mark.parametrize("p", [1.01, 1.5, 2.0])
def test_ball_version_near_the_largest_double(p):
    """theta close to the largest double: the p-norm of the unconstrained value overflows, the
    value on the ball does not (it is radius theta/||theta||_q-like, here the diagonal)."""
    w = pnorm.grad_conjugate(np.array([1.5e308, 1.5e308]), p, radius=1.0)
    np.testing.assert_allclose(w, [2.0 ** (-1.0 / p)] * 2, rtol=1e-13)
    w = pnorm.grad_conjugate(np.array([1.5e308, -1e-300, 0.0]), p, radius=2.0)
    np.testing.assert_allclose(w, [2.0, 0.0, 0.0], rtol=1e-13, atol=1e-300)
