"""The Foundations exercise checker accepts the reference solution and rejects typical
mistakes, each with a message naming the input and the coordinate."""
import math

import numpy as np
import pytest

from rlmlib.book.checkers.pegasos import check_scaled_step


def _dloss(z, y):  # logistic loss derivative w.r.t. z, overflow-safe
    s = y * z
    return -y * math.exp(-s) / (1 + math.exp(-s)) if s > 0 else -y / (1 + math.exp(s))


def reference(s, v, x, y, t, lam, t0):
    eta = 1.0 / (lam * (t + t0))
    d = _dloss(s * float(v @ x), y)
    s = s * (1.0 - eta * lam)
    if abs(s) < 1e-9:          # fold the scale into v (covers s = 0)
        v = v * s
        s = 1.0
    nz = np.flatnonzero(x)
    v[nz] -= (eta * d / s) * x[nz]
    return s, v


def divides_by_old_scale(s, v, x, y, t, lam, t0):
    eta = 1.0 / (lam * (t + t0))
    d = _dloss(s * float(v @ x), y)
    s_new = s * (1.0 - eta * lam)
    v = v - (eta * d / s) * x
    return (s_new if s_new != 0 else 1.0), v


def forgets_shrink(s, v, x, y, t, lam, t0):
    eta = 1.0 / (lam * (t + t0))
    d = _dloss(s * float(v @ x), y)
    return s, v - (eta * d / s) * x


def shrinks_v_instead(s, v, x, y, t, lam, t0):
    eta = 1.0 / (lam * (t + t0))
    d = _dloss(s * float(v @ x), y)
    v = (1.0 - eta * lam) * v - (eta * d / s) * x      # correct w, but O(n) per step
    return s, v


def touches_v_off_support(s, v, x, y, t, lam, t0):
    # right w, right s, but an O(n) update: v = w+ / s+ recomputes every coordinate
    eta = 1.0 / (lam * (t + t0))
    w = s * v
    w_new = (1.0 - eta * lam) * w - eta * _dloss(float(w @ x), y) * x
    s_new = s * (1.0 - eta * lam)
    return s_new, w_new / s_new


def no_zero_guard(s, v, x, y, t, lam, t0):
    eta = 1.0 / (lam * (t + t0))
    d = _dloss(s * float(v @ x), y)
    s = s * (1.0 - eta * lam)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = v - (eta * d / s) * x if s != 0 else v * np.inf
    return s, v


def wrong_sign(s, v, x, y, t, lam, t0):
    eta = 1.0 / (lam * (t + t0))
    d = _dloss(s * float(v @ x), y)
    s = s * (1.0 - eta * lam)
    if abs(s) < 1e-9:
        v, s = v * s, 1.0
    return s, v + (eta * d / s) * x


def test_accepts_reference():
    assert "passed all 9 inputs" in check_scaled_step(reference)


@pytest.mark.parametrize("mistake,msg", [
    (divides_by_old_scale, r"scaled_step: s\*v on input 'a first step from w = 0'.*"
                           r"coordinate 2 is 1.149.*relative error 0.1"),
    (forgets_shrink, r"'a first step from w = 0'.*the new scale is 1, expected "
                     r"\(1 - eta\*sigma\)\*s = 0.9"),
    (shrinks_v_instead, r"the new scale is 1, expected .*must go into s"),
    (touches_v_off_support, r"'a sparse x \(only 3 non-zeros\)'.*coordinate ([02357]) of v "
                            r"changed .* although x\[\1\] = 0"),
    (no_zero_guard, r"1 - eta\*sigma = 0 .*the new scale s is 0.0"),
    (wrong_sign, r"scaled_step: s\*v on input 'a first step from w = 0'.*relative error"),
])
def test_rejects_typical_mistakes(mistake, msg):
    with pytest.raises(AssertionError, match=msg):
        check_scaled_step(mistake)


def test_rejects_wrong_return_type():
    with pytest.raises(AssertionError, match="expected a pair"):
        check_scaled_step(lambda *a: np.zeros(5))


def naive_derivative(s, v, x, y, t, lam, t0):
    # the textbook -y e^{-yz} / (1 + e^{-yz}): inf / inf = nan at margin -1400
    eta = 1.0 / (lam * (t + t0))
    z = s * float(v @ x)
    with np.errstate(over="ignore", invalid="ignore"):
        d = -y * np.exp(-y * z) / (1 + np.exp(-y * z))
    s = s * (1.0 - eta * lam)
    if abs(s) < 1e-9:
        v, s = v * s, 1.0
    nz = np.flatnonzero(x)
    v = v.copy()
    v[nz] -= (eta * d / s) * x[nz]
    return s, v


def python_division(s, v, x, y, t, lam, t0):
    # plain Python floats: dividing by the new scale raises ZeroDivisionError at t + t0 = 1
    eta = 1.0 / (lam * (t + t0))
    d = _dloss(s * float(v @ x), y)
    s = float(s) * (1.0 - eta * lam)
    c = float(eta * d) / s
    return s, v - c * x


def test_extreme_margins_are_tested():
    # the naive derivative is right at moderate margins and nan at y<w,x> = -1400
    with np.errstate(over="ignore", invalid="ignore"):
        assert math.isnan(-1.0 * np.exp(np.float64(1400)) / (1 + np.exp(np.float64(1400))))
    with pytest.raises(AssertionError, match=r"margin y<w,x> = -1400.*is nan \(not finite\)"):
        with np.errstate(all="ignore"):
            check_scaled_step(naive_derivative)


def test_errors_of_the_readers_code_are_reported_not_raised():
    with pytest.raises(AssertionError, match=r"1 - eta\*sigma = 0.*raised ZeroDivisionError"):
        check_scaled_step(python_division)
    with pytest.raises(AssertionError, match=r"'a first step from w = 0'.*raised KeyError"):
        check_scaled_step(lambda *a: {}["x"])
