"""The checkers of the SGD-QN part accept the reference answers and reject typical mistakes."""
import math

import numpy as np
import pytest

from rlmlib.book.checkers import sgdqn as C


def test_scheduled_step():
    assert "agree" in C.check_scheduled_step(C.scheduled_step)

    def no_skip_factor(w, x, y, t, t0, sigma, skip, count):
        z = x @ w
        count -= 1
        if count <= 0:
            w = w * (1 - 1 / (t + t0))
            count = skip
        return w - C._dloss(z, y) / (sigma * (t + t0)) * x, count

    def every_step(w, x, y, t, t0, sigma, skip, count):
        z = x @ w
        w = w * (1 - 1 / (t + t0))
        return w - C._dloss(z, y) / (sigma * (t + t0)) * x, max(count - 1, 0) or skip

    def fig1_order(w, x, y, t, t0, sigma, skip, count):
        w = w - C._dloss(x @ w, y) / (sigma * (t + t0)) * x
        count -= 1
        if count <= 0:
            w = w * (1 - skip / (t + t0))
            count = skip
        return w, count

    def margin_after(w, x, y, t, t0, sigma, skip, count):
        count -= 1
        if count <= 0:
            w = w * (1 - skip / (t + t0))
            count = skip
        return w - C._dloss(x @ w, y) / (sigma * (t + t0)) * x, count

    for wrong in (no_skip_factor, every_step, fig1_order, margin_after):
        with pytest.raises(AssertionError):
            C.check_scheduled_step(wrong)
    with pytest.raises(AssertionError, match="expected a pair"):
        C.check_scheduled_step(lambda *a: a[0])


def test_skip_from_cost():
    assert "agree" in C.check_skip_from_cost(lambda n, d, c: math.ceil(c * n / d))
    assert "agree" in C.check_skip_from_cost(C.skip_from_cost)
    for wrong in (lambda n, d, c: int(c * n / d),           # truncates (too small)
                  lambda n, d, c: int(c * n / d) + 1,       # one too many when exact
                  lambda n, d, c: float(math.ceil(c * n / d)),
                  lambda n, d, c: math.ceil(n / d)):
        with pytest.raises(AssertionError):
            C.check_skip_from_cost(wrong)
    with pytest.raises(AssertionError, match="expected an integer"):
        C.check_skip_from_cost(lambda n, d, c: True)


def test_secant_ratio():
    assert "agree" in C.check_secant_ratio(C.secant_ratio)

    def naive(dw, dd, x, sigma):  # underflows on tiny inputs, NaN at 0/0
        with np.errstate(all="ignore"):
            return dw / (sigma * dw + dd * x)

    def naive_limit(dw, dd, x, sigma):
        with np.errstate(all="ignore"):
            r = dw / (sigma * dw + dd * x)
        return np.where(dw == 0, 1 / sigma, r)

    def inverted(dw, dd, x, sigma):
        return 1 / C.secant_ratio(dw, dd, x, sigma)

    def no_sigma(dw, dd, x, sigma):
        with np.errstate(all="ignore"):
            return np.where(dw == 0, 1 / sigma, 1 / (dd * x / np.where(dw == 0, 1, dw)))

    for wrong in (naive, naive_limit, inverted, no_sigma):
        with pytest.raises(AssertionError):
            C.check_secant_ratio(wrong)
    with pytest.raises(AssertionError, match="not finite"):
        C.check_secant_ratio(naive)


def test_corrected_update():
    assert "agree" in C.check_corrected_update(C.corrected_update)

    def inverted(B, w1, w, x, dd, dt, sigma):  # averages inverse curvatures (the 2009 way)
        r = 1 / C.corrected_update(np.ones_like(B), w1, w, x, dd, 1, sigma)
        return B + (1 / (r - 1) - B) / dt

    def no_clip(B, w1, w, x, dd, dt, sigma):
        with np.errstate(all="ignore"):
            r = np.where(x != 0, sigma + dd * x / (w1 - w), sigma)
        r = np.where((x != 0) & (w1 == w), 100 * sigma, r)
        return 1 / (1 / B + dt * r)

    def no_dt(B, w1, w, x, dd, dt, sigma):
        return C.corrected_update(B, w1, w, x, dd, 1, sigma)

    def skip_zeros(B, w1, w, x, dd, dt, sigma):
        out = C.corrected_update(B, w1, w, x, dd, dt, sigma)
        return np.where(x != 0, out, B)

    def code_clip(B, w1, w, x, dd, dt, sigma):  # the reference code's floor 0.1 sigma
        with np.errstate(all="ignore"):
            r = np.clip(sigma + dd * x / (w1 - w), 0.1 * sigma, 100 * sigma)
        r = np.where(x != 0, np.where(w1 == w, 100 * sigma, r), sigma)
        return 1 / (1 / B + dt * r)

    for wrong in (inverted, no_clip, no_dt, skip_zeros, code_clip):
        with pytest.raises(AssertionError):
            C.check_corrected_update(wrong)


def test_rate_exponent():
    assert "agree" in C.check_rate_exponent(lambda c: min(1.0, 2 * c))
    for wrong in (lambda c: 1.0, lambda c: 2 * c, lambda c: min(1.0, c),
                  lambda c: float("nan"), lambda c: "1"):
        with pytest.raises(AssertionError):
            C.check_rate_exponent(wrong)
