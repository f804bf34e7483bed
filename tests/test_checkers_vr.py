"""The variance-reduction part's checkers accept correct solutions (the library's own
kernels among them) and reject the typical mistakes, naming the cause."""
import math

import numpy as np
import pytest

from rlmlib.book.checkers import vr as ck
from rlmlib.solvers.saga import l1_catch_up


def loop(u, c, eta, sigma, k):
    for _ in range(k):
        v = u - eta * c
        u = math.copysign(max(abs(v) - eta * sigma, 0.0), v)
    return u


def test_catch_up_checker():
    assert "correct" in ck.check_saga_catch_up(loop)
    # the library's closed form (O(1) while the sign holds) passes too
    assert "correct" in ck.check_saga_catch_up(
        lambda u, c, eta, sigma, k: l1_catch_up(u, c, eta, eta * sigma, float(k)))
    with pytest.raises(AssertionError, match="lumped"):
        ck.check_saga_catch_up(lambda u, c, e, s, k: math.copysign(
            max(abs(u - k * e * c) - k * e * s, 0.0), u - k * e * c))
    with pytest.raises(AssertionError, match="one step short"):
        ck.check_saga_catch_up(lambda u, c, e, s, k: loop(u, c, e, s, max(k - 1, 0)))
    with pytest.raises(AssertionError, match="shrink .* missing"):
        ck.check_saga_catch_up(lambda u, c, e, s, k: u - k * e * c)
    with pytest.raises(AssertionError, match="expected"):
        ck.check_saga_catch_up(lambda u, c, e, s, k: loop(u, c, e, s, k) * (1 + 1e-9) + 1e-9)
    with pytest.raises(TypeError, match="catch_up must be a function"):
        ck.check_saga_catch_up(3)


def test_squared_hinge_checker():
    good = lambda b, yz, q: max(b + (1 - yz - b) / (1 + q), 0.0)
    assert "correct" in ck.check_sdca_squared_hinge(good)
    with pytest.raises(AssertionError, match="hinge loss's step"):
        ck.check_sdca_squared_hinge(lambda b, yz, q: min(max(b + (1 - yz) / q, 0.0), 1.0))
    with pytest.raises(AssertionError, match="projected"):
        ck.check_sdca_squared_hinge(lambda b, yz, q: b + (1 - yz - b) / (1 + q))
    with pytest.raises(AssertionError, match="numerator"):
        ck.check_sdca_squared_hinge(lambda b, yz, q: max(b + (1 - yz) / (1 + q), 0.0))


def test_squared_hinge_checker_agrees_with_the_library():
    import rlmlib
    from rlmlib.book.vr import draws

    # one coordinate step of rlmlib.sdca from alpha = 0 equals the reference step
    X = np.array([[1.0, 2.0], [0.5, -1.0], [-1.0, 0.3]])
    y = np.array([1.0, -1.0, 1.0])
    i = int(draws(3, 1, "cyclic")[0])
    res = rlmlib.sdca(X, y, sigma=0.5, epochs=1, loss="squared_hinge", order="cyclic")
    q = X[i] @ X[i] / (0.5 * 3)
    assert res.info["alpha"][i] * y[i] == pytest.approx(ck._ref_sqhinge(0.0, 0.0, q))


def good_gap(X, y, alpha, sigma):
    w = X.T @ alpha / (sigma * len(y))
    P = sigma / 2 * w @ w + np.mean(np.maximum(0, 1 - y * (X @ w)))
    return P - (np.mean(alpha * y) - sigma / 2 * w @ w)


def test_duality_gap_checker():
    assert "correct" in ck.check_duality_gap(good_gap)

    def cancel(X, y, alpha, sigma):
        w = X.T @ alpha / (sigma * len(y))
        return np.mean(np.maximum(0, 1 - y * (X @ w))) - np.mean(alpha * y)

    def no_sigma(X, y, alpha, sigma):
        w = X.T @ alpha / len(y)
        P = sigma / 2 * w @ w + np.mean(np.maximum(0, 1 - y * (X @ w)))
        return P - (np.mean(alpha * y) - sigma / 2 * w @ w)

    def mutates(X, y, alpha, sigma):
        g = good_gap(X, y, alpha, sigma)
        alpha *= 0
        return g

    with pytest.raises(AssertionError, match="cancel"):
        ck.check_duality_gap(cancel)
    with pytest.raises(AssertionError, match="1/σ"):
        ck.check_duality_gap(no_sigma)
    with pytest.raises(AssertionError, match="modified"):
        ck.check_duality_gap(mutates)


def test_library_gap_equals_checker_reference():
    import rlmlib

    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 4))
    y = np.sign(X[:, 0] + 0.5 * rng.standard_normal(50))
    res = rlmlib.sdca(X, y, sigma=0.1, epochs=3, loss="hinge")
    assert res.info["gap"] == pytest.approx(ck._ref_gap(X, y, res.info["alpha"], 0.1),
                                            rel=1e-10)
