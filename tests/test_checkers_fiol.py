"""The fiol exercise checkers accept the reference solutions and reject typical mistakes,
naming the first failing instance."""
import math

import numpy as np
import pytest

from rlmlib.book.checkers import fiol as ch
from rlmlib.solvers.fiol import fiol_step


def good_inverse(s, y):
    t = s * y
    return y * (math.log1p(t) - math.log(-t))


def test_logistic_inverse():
    assert "pass" in ch.check_logistic_inverse(good_inverse)
    with pytest.raises(AssertionError, match=r"s=-0.1, y=1.0\) \(case 1\)"):  # the inverse's sign flipped
        ch.check_logistic_inverse(lambda s, y: -good_inverse(s, y))
    with pytest.raises(AssertionError, match="raised"):  # log of a negative number
        ch.check_logistic_inverse(lambda s, y: math.log(s) - math.log1p(-s))
    with pytest.raises(AssertionError, match="s="):  # sign of y forgotten
        ch.check_logistic_inverse(lambda s, y: good_inverse(s, y) * y)


def test_soft_and_breakpoints():
    assert "pass" in ch.check_soft(lambda u, a: np.sign(u) * np.maximum(np.abs(u) - a, 0))
    with pytest.raises(AssertionError, match="soft"):
        ch.check_soft(lambda u, a: u - a * np.sign(u))  # no clipping at zero

    def bps(w, x, eta, sigma):
        nz = x != 0
        return w[nz] / (eta * x[nz]) - sigma / np.abs(x[nz]), \
            w[nz] / (eta * x[nz]) + sigma / np.abs(x[nz])

    assert "pass" in ch.check_breakpoints(bps)
    with pytest.raises(AssertionError, match="lo"):  # sigma / x instead of sigma / |x|
        ch.check_breakpoints(lambda w, x, e, s: (bps(w, x, e, s)[0] * 0 + w[x != 0] /
                                                 (e * x[x != 0]) - s / x[x != 0],
                                                 bps(w, x, e, s)[1]))


def test_sort_step_reports_first_failure():
    ref = lambda w, x, y, eta, sigma: fiol_step(w, x, y, eta=eta, sigma=sigma,  # noqa: E731
                                                loss="squared")
    assert "pass" in ch.check_sort_step(ref)
    # COMID instead of the implicit step: wrong already on the sigma = 0 instance
    comid = lambda w, x, y, eta, sigma: np.sign(w - eta * (w @ x - y) * x) * np.maximum(  # noqa
        np.abs(w - eta * (w @ x - y) * x) - eta * sigma, 0)
    with pytest.raises(AssertionError, match="instance 'x = 0'|instance 'sigma = 0'"):
        ch.check_sort_step(comid)
    with pytest.raises(AssertionError, match="failed on instance 'x = 0'"):
        ch.check_sort_step(lambda w, x, y, eta, sigma: w / (x @ x))  # 0/0 on x = 0
