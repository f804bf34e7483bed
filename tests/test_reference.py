"""The reference L-BFGS solver (issue 3, item 5)."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.core.objective import regularizer_grad
from rlmlib.solvers.reference import lbfgs


def logistic_grad(X, y, w, sigma):
    z = y * (X @ w)
    return X.T @ (-y / (1 + np.exp(z))) / len(y) + sigma * w


@pytest.mark.parametrize("sigma", [1e-1, 1e-3, 1e-5])
def test_logistic_optimality_condition(breast_cancer_std, sigma):
    X, y = breast_cancer_std
    res = lbfgs(X, y, sigma=sigma, loss="logistic")
    ypm = np.where(y == res.classes[1], 1.0, -1.0)
    g = logistic_grad(X, ypm, res.w, sigma)  # gradient computed independently, with numpy
    # certified relative accuracy 1e-10 on F*: ||g||^2 / (2 sigma) <= 1e-10 F
    assert g @ g / (2 * sigma) <= 1e-10 * res.objective
    assert res.info["converged"]
    assert res.objective == pytest.approx(rlmlib.objective(X, y, res.w, sigma=sigma,
                                                           loss="logistic"), rel=1e-15)


@pytest.mark.parametrize("sigma", [1e-2, 1e-4])
def test_agrees_with_sklearn_logistic_regression(breast_cancer_std, sigma):
    from sklearn.linear_model import LogisticRegression

    X, y = breast_cancer_std
    m = len(y)
    res = lbfgs(X, y, sigma=sigma, loss="logistic")
    clf = LogisticRegression(C=1 / (sigma * m), fit_intercept=False, tol=1e-12,
                             max_iter=100000).fit(X, y)
    f_sk = rlmlib.objective(X, y, clf.coef_.ravel(), sigma=sigma, loss="logistic")
    # both minimize the same F; ours is certified to 1e-10, so sklearn cannot be lower
    assert res.objective <= f_sk * (1 + 1e-10)
    assert f_sk <= res.objective * (1 + 1e-8)
    # and the minimizers agree (F is sigma-strongly convex: ||w - w*||^2 <= 2 gap / sigma)
    gap = 2 * (f_sk - res.objective + res.info["gap_bound"]) / sigma
    assert np.sum((clf.coef_.ravel() - res.w) ** 2) <= gap + 1e-20


def test_squared_loss_closed_form(regression):
    X, y = regression
    sigma = 0.01
    res = lbfgs(X, y, sigma=sigma, loss="squared")
    m, n = X.shape
    w_star = np.linalg.solve(X.T @ X / m + sigma * np.eye(n), X.T @ y / m)
    np.testing.assert_allclose(res.w, w_star, rtol=1e-6, atol=1e-8)
    f_star = rlmlib.objective(X, y, w_star, sigma=sigma, loss="squared")
    assert abs(res.objective - f_star) <= 1e-10 * f_star
    assert res.classes is None


@pytest.mark.parametrize("p", [1.5, 1.8])
def test_p_norm_optimality(binary, p):
    X, y = binary
    sigma = 0.05
    res = lbfgs(X, y, sigma=sigma, loss="logistic", p=p)
    g = logistic_grad(X, y, res.w, 0.0) + sigma * regularizer_grad(res.w, p)
    q = p / (p - 1)
    assert np.sum(np.abs(g) ** q) ** (2 / q) / (2 * sigma) <= 1e-10 * res.objective
    # p < 2 moves the solution away from the p = 2 one
    res2 = lbfgs(X, y, sigma=sigma, loss="logistic")
    assert np.max(np.abs(res.w - res2.w)) > 1e-3


@pytest.mark.parametrize("loss", ["squared_hinge", "exponential"])
def test_other_smooth_losses_dense_equals_sparse(binary_sparse, loss):
    X, S, y = binary_sparse
    rd = lbfgs(X, y, sigma=1e-2, loss=loss)
    rs = lbfgs(S, y, sigma=1e-2, loss=loss)
    assert rd.info["converged"] and rs.info["converged"]
    assert abs(rd.objective - rs.objective) <= 1e-10 * rd.objective
    # the gap bound of the dense run also holds for the sparse one's objective value
    np.testing.assert_allclose(rd.w, rs.w, rtol=1e-4, atol=1e-6)


def test_trace_decreasing_and_timed(binary):
    X, y = binary
    res = lbfgs(X, y, sigma=1e-3, loss="logistic", X_test=X, y_test=y)
    tr = res.trace
    assert tr.iteration[0] == 0 and tr.seconds[0] == 0.0
    assert np.all(np.diff(tr.objective) <= 1e-15 * abs(tr.objective[0]))
    assert np.all(np.diff(tr.seconds) >= 0) and np.all(np.diff(tr.epoch) >= 0)
    assert tr.test_metric_name == "accuracy" and tr.test_metric[-1] == rlmlib.accuracy(X, y,
                                                                                        res.w)


def test_rejects_nonsmooth_and_bad_input(binary):
    X, y = binary
    with pytest.raises(ValueError, match="differentiable loss for L-BFGS.*got 'hinge'"):
        lbfgs(X, y, sigma=1.0, loss="hinge")
    with pytest.raises(ValueError, match="loss must be one of"):
        lbfgs(X, y, sigma=1.0, loss="nope")
    with pytest.raises(ValueError, match="sigma must be a finite number > 0, got nan"):
        lbfgs(X, y, sigma=np.nan, loss="logistic")
    with pytest.raises(ValueError, match=r"p must be in \(1.0, 2.0\], got 3"):
        lbfgs(X, y, sigma=1.0, loss="logistic", p=3)
    with pytest.raises(ValueError, match="w0 must be a finite 1-D array of length"):
        lbfgs(X, y, sigma=1.0, loss="logistic", w0=np.ones(3))
