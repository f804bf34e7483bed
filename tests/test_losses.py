"""Losses against closed forms, finite differences and mpmath (issue 3, item 2)."""
import math

import mpmath
import numpy as np
import pytest

from rlmlib import losses
from rlmlib.core.losses import LOSSES, loss_code, loss_deriv, loss_value

ALL = list(LOSSES)
CLOSED = {
    "hinge": lambda z, y: np.maximum(0, 1 - y * z),
    "squared_hinge": lambda z, y: 0.5 * np.maximum(0, 1 - y * z) ** 2,
    "logistic": lambda z, y: np.log(1 + np.exp(-y * z)),
    "squared": lambda z, y: 0.5 * (z - y) ** 2,
    "absolute": lambda z, y: np.abs(z - y),
    "exponential": lambda z, y: np.exp(-y * z),
}
KINKS = {"hinge": [1.0], "absolute": [0.0], "squared_hinge": [1.0]}


def grid(y):
    z = np.linspace(-5, 5, 2001)
    return z, np.full_like(z, y)


def cases(extra):
    """(loss, label) pairs: margin losses take y = +-1, regression losses any target too."""
    return [(n, y) for n in ALL for y in [-1.0, 1.0] + ([extra] if
            LOSSES[n]["task"] == "regression" else [])]


@pytest.mark.parametrize("name,y", cases(0.3))
def test_closed_form(name, y):
    z, yy = grid(y)
    np.testing.assert_allclose(losses.value(name, z, yy), CLOSED[name](z, yy), rtol=1e-13,
                               atol=1e-15)


@pytest.mark.parametrize("name,y", cases(2.5))
def test_derivative_finite_differences(name, y):
    z, yy = grid(y)
    h = 1e-6
    fd = (losses.value(name, z + h, yy) - losses.value(name, z - h, yy)) / (2 * h)
    d = losses.deriv(name, z, yy)
    # away from kinks (in the margin s = yz, or the residual z - y) the derivative is classical
    t = z * yy if LOSSES[name]["task"] == "binary" else z - yy
    away = np.ones_like(z, dtype=bool)
    for k in KINKS.get(name, []):
        away &= np.abs(t - k) > 1e-3
    np.testing.assert_allclose(d[away], fd[away], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["hinge", "absolute"])
def test_subgradient_at_kink(name):
    # at the kink the returned value must be a subgradient: between the one-sided derivatives
    y = 1.0
    z = 1.0 if name == "hinge" else y
    left = loss_deriv(loss_code(name), z - 1e-9, y)
    right = loss_deriv(loss_code(name), z + 1e-9, y)
    d = loss_deriv(loss_code(name), z, y)
    assert min(left, right) <= d <= max(left, right)
    # subgradient inequality on a grid
    zz = np.linspace(-3, 3, 601)
    lz = losses.value(name, zz, np.full_like(zz, y))
    assert np.all(lz >= loss_value(loss_code(name), z, y) + d * (zz - z) - 1e-15)


@pytest.mark.parametrize("name", ALL)
def test_convex_monotone_derivative(name):
    z, yy = grid(1.0)
    d = losses.deriv(name, z, yy)
    assert np.all(np.diff(d) >= -1e-15)


@pytest.mark.parametrize("name", ALL)
def test_lipschitz_and_smoothness_constants(name):
    """The constants are the sup of |l'| and of |l''| (as difference quotients of l')."""
    z = np.linspace(-60, 60, 240001)
    y = np.ones_like(z)
    d = losses.deriv(name, z, y)
    L, beta = LOSSES[name]["lipschitz"], LOSSES[name]["smoothness"]
    sup_d = np.max(np.abs(d))
    if math.isfinite(L):
        assert sup_d <= L + 1e-15
        assert sup_d >= 0.999 * L  # the bound is attained (tight)
    else:
        assert sup_d > 50  # grows without bound
    q = np.abs(np.diff(d) / np.diff(z))
    if math.isfinite(beta):
        assert np.max(q) <= beta * (1 + 1e-6)
        assert np.max(q) >= 0.999 * beta
    else:
        assert np.max(q) > 1e3  # a jump (hinge, absolute) or unbounded curvature (exp)


MARGINS = [-1e4, -745.0, -700.0, -600.0, -37.0, -1.0, -1e-12, 0.0, 1e-12, 1.0, 37.0, 600.0,
           700.0, 745.0, 1e4]


@pytest.mark.parametrize("s", MARGINS)
def test_logistic_extreme_margins_mpmath(s):
    mpmath.mp.dps = 50
    code = loss_code("logistic")
    for y in (1.0, -1.0):
        v, d = loss_value(code, s * y, y), loss_deriv(code, s * y, y)
        assert math.isfinite(v) and math.isfinite(d)
        exact_v = mpmath.log1p(mpmath.exp(-s))
        exact_d = -y / (1 + mpmath.exp(s))
        if exact_v > 1e-300:
            assert abs(v - exact_v) <= 2e-16 * abs(exact_v)
        else:  # below the double range: underflow to (almost) 0 is the correctly rounded answer
            assert v <= 1e-300
        if abs(exact_d) > 1e-300:
            assert abs(d - exact_d) <= 2e-16 * abs(exact_d)
        else:
            assert abs(d) <= 1e-300


@pytest.mark.parametrize("s", MARGINS)
def test_exponential_extreme_margins(s):
    mpmath.mp.dps = 50
    code = loss_code("exponential")
    v, d = loss_value(code, s, 1.0), loss_deriv(code, s, 1.0)
    assert math.isfinite(v) and math.isfinite(d)
    if s >= -losses.EXP_CUT:
        exact = mpmath.exp(-s)
        if exact > 1e-300:
            assert abs(v - exact) <= 4e-16 * exact
            assert abs(-d - exact) <= 4e-16 * exact
        else:
            assert v <= 1e-300
    else:  # tangent continuation: value = e^C (1 + (-C - s)), derivative -e^C
        C = losses.EXP_CUT
        assert v == pytest.approx(math.exp(C) * (1 - C - s), rel=1e-14)
        assert d == -math.exp(C)


def test_exponential_continuation_is_c1():
    code, C = loss_code("exponential"), losses.EXP_CUT
    for f in (loss_value, loss_deriv):
        a, b = f(code, -C, 1.0), f(code, -C - 1e-9, 1.0)
        assert abs(a - b) <= 1e-8 * abs(a)
    # a sum over a million examples at margin -1e4 stays finite
    assert math.isfinite(1e6 * loss_value(code, -1e4, 1.0))


def test_unknown_loss_name():
    with pytest.raises(ValueError, match="loss must be one of 'hinge', .*; got 'log'"):
        loss_code("log")
    with pytest.raises(ValueError, match="got None"):
        loss_code(None)


def test_codes_distinct():
    codes = [v["code"] for v in LOSSES.values()]
    assert sorted(codes) == list(range(6))
    assert losses.NAMES[losses.LOGISTIC] == "logistic"
