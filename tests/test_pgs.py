"""rlmlib.pgs: agreement with the paper's loop, with L-BFGS on the same objective, the contract."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from rlmlib import pnorm
from rlmlib.core.losses import deriv
from rlmlib.core.objective import objective
from rlmlib.solvers.pegasos import sample_indices
from rlmlib.solvers.pgs import pgs, pgs_iterates
from rlmlib.solvers.reference import lbfgs
from rlmlib.datasets import pgs_toy
from solver_table import honest_end


def pgs_paper_loop(X, y, p, sigma, T, k, loss, radius, seed):
    """Fig. 1 of the paper in dense numpy: lambda accumulated, full mirror map every step."""
    idx = sample_indices(X.shape[0], k, T, seed)
    w = np.zeros(X.shape[1])
    lam = np.zeros(X.shape[1])
    for t in range(1, T + 1):
        A = idx[t - 1]
        lam_t = (deriv(loss, X[A] @ w, y[A]) @ X[A]) / k
        lam = lam - lam_t
        w = pnorm.grad_conjugate(lam / ((t + 1) * sigma), p, radius=radius)
    return w


@pytest.mark.parametrize("p,k,loss,radius", [
    (2.0, 1, "logistic", None), (1.8, 1, "logistic", None), (1.8, 5, "hinge", None),
    (1.3, 3, "logistic", 0.5), (2.0, 4, "hinge", 0.3), (1.5, 2, "squared", None),
    (1.01, 3, "logistic", None), (1.001, 3, "logistic", None), (1.0001, 2, "logistic", None),
])
def test_matches_the_papers_loop(binary_sparse, regression, p, k, loss, radius):
    if loss == "squared":
        X, y = regression
        Xs = sp.csr_matrix(X)
        sigma = 0.1
        if radius is None:   # the solver's default ball for the squared loss
            radius = np.max(np.abs(y)) * math.sqrt((p - 1) / sigma)
    else:
        X, Xs, y = binary_sparse
        sigma = 0.05
    ref = pgs_paper_loop(X, y, p, sigma, 400, k, loss, radius, seed=11)
    # w_i ~ |theta_i|^(q-1): relative rounding in theta is amplified q-1 times (q = 1001 at
    # p = 1.001), in the reference as in the solver
    rtol = max(1e-9, 1e-11 * p / (p - 1.0))
    for data in (X, Xs):
        res = pgs(data, y, p=p, sigma=sigma, T=400, k=k, loss=loss, radius=radius, seed=11)
        np.testing.assert_allclose(res.w, ref, rtol=rtol, atol=1e-12 * np.abs(ref).max())
        assert res.params["radius"] == (None if radius is None else pytest.approx(radius))


@pytest.mark.parametrize("p", [2.0, 1.8])
def test_logistic_gap_breast_cancer(breast_cancer_std, p):
    X, y = breast_cancer_std
    sigma = 1e-2
    ref = lbfgs(X, y, sigma=sigma, loss="logistic", p=p)
    res = pgs(X, y, p=p, sigma=sigma, T=200_000, loss="logistic", seed=0)
    gap = (res.objective - ref.objective) / ref.objective
    assert -1e-9 <= gap < 1e-3
    assert res.objective == pytest.approx(
        objective(X, y, res.w, sigma=sigma, loss="logistic", p=p), rel=1e-12)


@pytest.mark.parametrize("p", [2.0, 1.8])
@pytest.mark.parametrize("n", [10, 20, 40])
def test_logistic_gap_toy(p, n):
    ds = pgs_toy(5000, n, seed=n)
    sigma = 0.1   # rows have norm 9-18 here: sigma = 0.01 would need ~10x more steps
    ref = lbfgs(ds.X, ds.y, sigma=sigma, loss="logistic", p=p)
    res = pgs(ds.X, ds.y, p=p, sigma=sigma, T=200_000, k=4, loss="logistic", seed=0)
    gap = (res.objective - ref.objective) / ref.objective
    assert -1e-9 <= gap < 1e-3


def test_squared_loss_default_ball_contains_the_optimum(regression):
    """B = max|y| sqrt((p-1)/sigma) with rlmlib's 1/2 (z-y)^2 (the paper's
    max|y| sqrt(2(p-1)/sigma_paper) with sigma_paper = 2 sigma) holds the minimizer, and PGS
    on that ball reaches the optimum."""
    X, y = regression
    for p, sigma in [(2.0, 0.1), (1.5, 0.05), (1.8, 1.0)]:
        ref = lbfgs(X, y, sigma=sigma, loss="squared", p=p)
        B = np.max(np.abs(y)) * math.sqrt((p - 1) / sigma)
        assert np.sum(np.abs(ref.w) ** p) ** (1 / p) <= B
        # tighter: sigma r(w*) <= F(0) = mean y^2 / 2
        assert sigma * pnorm.r(ref.w, p) <= 0.5 * np.mean(y ** 2)
        res = pgs(X, y, p=p, sigma=sigma, T=100_000, loss="squared", seed=0)
        assert res.params["radius"] == pytest.approx(B)
        assert (res.objective - ref.objective) / ref.objective < 1e-3
        assert res.trace.test_metric is None


def test_ball_is_respected(binary):
    X, y = binary
    for p, B in [(2.0, 0.2), (1.5, 0.1), (1.05, 0.3)]:
        res = pgs(X * 10, y, p=p, sigma=1e-3, T=3000, loss="hinge", radius=B, seed=0)
        assert np.sum(np.abs(res.w) ** p) ** (1 / p) <= B * (1 + 1e-12)


def test_p_near_one_and_large_values_stay_finite(binary):
    X, y = binary
    # X * 1e150 at sigma = 1e-4 is beyond the condition rule (beta max||x||^2 / sigma =
    # 5.5e304 > 2**52); at sigma = 1e286 (5.5e14) it is inside
    with pytest.raises(ValueError, match="^sigma=0.0001 is too small for X in pgs"):
        pgs(X * 1e150, y, p=1.01, sigma=1e-4, T=2000, k=3, loss="logistic", seed=0)
    for scale, sigma in [(1e-150, 1e-4), (1.0, 1e-4), (1e150, 1e286)]:
        # at 1e150 the last iterate ends far above F(0): finite, and the end check says so
        res = honest_end(lambda: pgs(X * scale, y, p=1.01, sigma=sigma, T=2000, k=3,
                                     loss="logistic", seed=0))
        assert np.all(np.isfinite(res.w)) and np.all(np.isfinite(res.trace.objective))
        assert np.any(res.w != 0.0)


def test_dense_equals_sparse_seeds_and_checkpoints(binary_sparse):
    X, Xs, y = binary_sparse
    a = pgs(X, y, p=1.8, sigma=0.01, T=3000, k=7, loss="logistic", seed=5)
    b = pgs(Xs, y, p=1.8, sigma=0.01, T=3000, k=7, loss="logistic", seed=5)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-11, atol=1e-14)
    c = pgs(Xs.tocoo(), y, p=1.8, sigma=0.01, T=3000, k=7, loss="logistic", seed=5,
            n_checkpoints=2)
    np.testing.assert_array_equal(b.w, c.w)
    d = pgs(Xs, y, p=1.8, sigma=0.01, T=3000, k=7, loss="logistic", seed=6)
    assert not np.allclose(b.w, d.w)
    assert a.params == dict(p=1.8, sigma=0.01, T=3000, k=7, loss="logistic", radius=None,
                            seed=5, order="replacement", iterate="last")
    assert a.solver == "pgs" and len(a.trace) == 2   # default: start and lazy end


def test_test_set_metrics(binary, regression):
    X, y = binary
    res = pgs(X, y, p=2.0, sigma=0.01, T=2000, loss="logistic", X_test=X, y_test=y)
    assert res.trace.test_metric[-1] == pytest.approx(np.mean(res.predict(X) == y))
    Xr, yr = regression
    res = pgs(Xr, yr, p=1.5, sigma=0.1, T=2000, loss="squared", X_test=Xr, y_test=yr)
    assert res.trace.test_metric_name == "mse"
    assert res.trace.test_metric[-1] == pytest.approx(np.mean((Xr @ res.w - yr) ** 2))


@pytest.mark.parametrize("kw,exc,msg", [
    (dict(p=2.5), ValueError, r"p must be in \(1.0, 2.0\], got 2.5"),
    (dict(p=1.0), ValueError, "p must be in"),
    (dict(sigma=0), ValueError, "sigma must be a finite number > 0, got 0"),
    (dict(T=-3), ValueError, "T must be an integer >= 1, got -3"),
    (dict(k=2.5), TypeError, "k must be an integer"),
    (dict(loss="absolute"), ValueError, "loss must be one of 'hinge', 'logistic', 'squared'"),
    (dict(radius=-1.0), ValueError, "radius must be a finite number > 0, got -1.0"),
    (dict(radius=float("inf")), ValueError, "radius must be"),
    (dict(seed=1.5), TypeError, "seed must be a non-negative integer"),
])
def test_bad_parameters(binary, kw, exc, msg):
    X, y = binary
    args = dict(p=1.8, sigma=0.1, T=10)
    args.update(kw)
    with pytest.raises(exc, match=msg):
        pgs(X, y, **args)


def test_bad_data(binary):
    X, y = binary
    with pytest.raises(ValueError, match="two classes"):
        pgs(X, np.ones_like(y), p=2.0, sigma=0.1, T=10, loss="logistic")
    with pytest.raises(ValueError, match="inf"):
        pgs(X, np.where(y > 0, np.inf, 0.0), p=2.0, sigma=0.1, T=10, loss="squared")
    with pytest.raises(ValueError, match="2-D"):
        pgs(X[:, 0], y, p=2.0, sigma=0.1, T=10)


def test_iterates_are_the_runs_iterates(binary_sparse):
    X, Xs, y = binary_sparse
    at = [0, 1, 7, 100, 2500]
    W = pgs_iterates(Xs, y, p=1.5, sigma=0.02, at=at, k=3, loss="logistic", seed=4)
    assert np.array_equal(W[0], np.zeros(X.shape[1]))
    for t, w in zip(at[1:], W[1:]):
        res = honest_end(lambda: pgs(X, y, p=1.5, sigma=0.02, T=t, k=3, loss="logistic",
                                     seed=4, n_checkpoints=1))   # T = 1 ends above F(0)
        np.testing.assert_allclose(w, res.w, rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError, match="at must be a non-empty increasing"):
        pgs_iterates(X, y, p=1.5, sigma=0.02, at=[5, 3])
