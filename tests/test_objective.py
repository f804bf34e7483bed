"""Objective, regularizer and metrics (issue 3, item 3)."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.core.losses import LOSSES
from rlmlib.core.objective import regularizer_grad

from test_losses import CLOSED


@pytest.mark.parametrize("loss", list(LOSSES))
def test_objective_closed_form_dense_equals_sparse(binary_sparse, loss):
    X, S, y = binary_sparse
    if LOSSES[loss]["task"] == "regression":
        y = y * 2.0 + 0.5 + X[:, 0]
    w = np.linspace(-0.3, 0.4, X.shape[1])
    sigma = 0.07
    expect = sigma * 0.5 * w @ w + np.mean(CLOSED[loss](X @ w, y))
    fd = rlmlib.objective(X, y, w, sigma=sigma, loss=loss)
    fs = rlmlib.objective(S, y, w, sigma=sigma, loss=loss)
    assert fd == pytest.approx(expect, rel=1e-13)
    assert abs(fd - fs) <= 1e-14 * abs(fd)
    fc = rlmlib.objective(sp.csc_matrix(X), y, w, sigma=sigma, loss=loss)
    assert abs(fd - fc) <= 1e-14 * abs(fd)


def test_labels_mapped_like_solvers(binary):
    X, y = binary
    w = np.ones(X.shape[1])
    f1 = rlmlib.objective(X, y, w, sigma=0.1, loss="logistic")
    f2 = rlmlib.objective(X, np.where(y > 0, "b", "a"), w, sigma=0.1, loss="logistic")
    assert f1 == f2


@pytest.mark.parametrize("p", [1.01, 1.1, 1.5, 1.8, 2.0])
def test_regularizer_formula_and_gradient(p):
    rng = np.random.default_rng(3)
    w = rng.standard_normal(7)
    expect = np.sum(np.abs(w) ** p) ** (2 / p) / (2 * (p - 1))
    assert rlmlib.regularizer(w, p) == pytest.approx(expect, rel=1e-13)
    g = regularizer_grad(w, p)
    h = 1e-6
    fd = np.array([(rlmlib.regularizer(w + h * e, p) - rlmlib.regularizer(w - h * e, p)) / (2 * h)
                   for e in np.eye(7)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("p", [1.2, 1.5, 2.0])
def test_regularizer_strongly_convex_in_p_norm(p):
    """r(u) >= r(w) + <grad r(w), u - w> + 1/2 ||u - w||_p^2 (1-strong convexity w.r.t. ||.||_p)."""
    rng = np.random.default_rng(4)
    for _ in range(200):
        w, u = rng.standard_normal((2, 5)) * rng.exponential(1, 2)[:, None]
        lhs = rlmlib.regularizer(u, p)
        rhs = (rlmlib.regularizer(w, p) + regularizer_grad(w, p) @ (u - w)
               + 0.5 * np.sum(np.abs(u - w) ** p) ** (2 / p))
        assert lhs >= rhs - 1e-12 * max(1, abs(lhs))


def test_regularizer_no_overflow():
    w = np.array([1e154, 1e154])
    with np.errstate(over="ignore"):
        assert not np.isfinite(0.5 * np.sum(w ** 2))  # the naive formula overflows
    assert rlmlib.regularizer(w, 2.0) == pytest.approx(1e308, rel=1e-14)
    # homogeneity r(c u) = c^2 r(u) up to the largest double
    u = np.array([1.0, 1.0])
    assert rlmlib.regularizer(1e154 * u, 1.9) == pytest.approx(
        1e308 * rlmlib.regularizer(u, 1.9), rel=1e-13)
    w = np.array([3e200, -1e200, 0.0])
    g = regularizer_grad(w, 1.01)
    assert np.all(np.isfinite(g)) and g[2] == 0.0
    assert rlmlib.regularizer(np.zeros(4), 1.3) == 0.0
    assert np.array_equal(regularizer_grad(np.zeros(4), 1.3), np.zeros(4))


@pytest.mark.parametrize("p", [1.0, 2.5, 0.0, np.nan])
def test_regularizer_bad_p(p):
    with pytest.raises(ValueError, match=r"p must be (a finite number )?in \(1.0, 2.0\]"):
        rlmlib.regularizer(np.ones(3), p)


def test_objective_p_norm(binary):
    X, y = binary
    w = np.linspace(-1, 1, X.shape[1])
    f = rlmlib.objective(X, y, w, sigma=0.3, loss="hinge", p=1.5)
    expect = 0.3 * rlmlib.regularizer(w, 1.5) + np.mean(np.maximum(0, 1 - y * (X @ w)))
    assert f == pytest.approx(expect, rel=1e-13)


def test_objective_bad_input(binary):
    X, y = binary
    w = np.ones(X.shape[1])
    with pytest.raises(ValueError, match="sigma must be a finite number > 0, got 0"):
        rlmlib.objective(X, y, w, sigma=0, loss="hinge")
    with pytest.raises(ValueError, match="w must be a 1-D array of length n_features=8"):
        rlmlib.objective(X, y, w[:-1], sigma=1, loss="hinge")
    with pytest.raises(ValueError, match="loss must be one of"):
        rlmlib.objective(X, y, w, sigma=1, loss="huber")
    with pytest.raises(ValueError, match="w must not contain NaN"):
        rlmlib.objective(X, y, w * np.nan, sigma=1, loss="hinge")


def test_metrics(binary_sparse, regression):
    X, S, y = binary_sparse
    w = np.linspace(-1, 1, X.shape[1])
    z = X @ w
    np.testing.assert_allclose(rlmlib.decision_function(X, w), z, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(rlmlib.decision_function(S, w), z, rtol=1e-14, atol=1e-14)
    acc = np.mean(np.where(z > 0, 1, -1) == y)
    assert rlmlib.accuracy(X, y, w) == acc == rlmlib.accuracy(S, y, w)
    assert rlmlib.test_error(S, y, w) == pytest.approx(1 - acc, abs=1e-15)
    # a test set holding one class only needs the mapping
    pos = y > 0
    acc_pos = np.mean(z[pos] > 0)
    assert rlmlib.accuracy(X[pos], y[pos], w, classes=[-1.0, 1.0]) == acc_pos
    with pytest.raises(ValueError, match="single class"):
        rlmlib.accuracy(X[pos], y[pos], w)
    Xr, yr = regression
    wr = np.ones(Xr.shape[1])
    assert rlmlib.mse(Xr, yr, wr) == pytest.approx(np.mean((Xr @ wr - yr) ** 2), rel=1e-14)
    assert rlmlib.mse(sp.coo_matrix(Xr), yr, wr) == pytest.approx(rlmlib.mse(Xr, yr, wr),
                                                                   rel=1e-14)


@pytest.mark.parametrize("w,match", [
    (np.array([1.0, np.nan]), "w must not contain NaN or inf"),
    (np.array([1.0, np.inf]), "w must not contain NaN or inf"),
    (np.array([[1.0, 2.0], [3.0, 4.0]]), "w must be a 1-D array"),
])
def test_regularizer_rejects_bad_w(w, match):
    for f in (rlmlib.regularizer, regularizer_grad):
        with pytest.raises(ValueError, match=match):
            f(w, 1.5)


def test_regularizer_rejects_bad_p():
    with pytest.raises(ValueError, match=r"p must be in \(1.0, 2.0\], got 2.5"):
        rlmlib.regularizer(np.ones(3), 2.5)
