"""rlmlib.pegasos: agreement with the pseudo-code, with a certified SVM optimum, and the contract."""
import warnings

import numpy as np
import pytest
from numba import njit

from rlmlib.core.objective import objective
from rlmlib.solvers.pegasos import pegasos, sample_indices
from rlmlib.datasets import pgs_toy


@njit
def _dcd_passes(X, y, lam, a, w, perm_seed, passes):
    m = X.shape[0]
    np.random.seed(perm_seed)
    for _ in range(passes):
        for i in np.random.permutation(m):
            qi = (X[i] @ X[i]) / (lam * m)
            g = y[i] * (X[i] @ w) - 1.0            # -m * dD/da_i
            new = min(max(a[i] - g / qi, 0.0), 1.0)
            if new != a[i]:
                w += (new - a[i]) * y[i] * X[i] / (lam * m)
                a[i] = new


def svm_optimum(X, y, lam, gap_tol=1e-6, max_rounds=200):
    """Dual coordinate ascent for the SVM (Hsieh et al. 2008) with a duality-gap certificate.

    Primal P(w) = lam/2 ||w||^2 + mean hinge; dual D(a) = mean a - lam/2 ||w(a)||^2 with
    a in [0, 1]^m and w(a) = sum a_i y_i x_i / (lam m). Returns (w, P(w)) once
    P(w) - D(a) <= gap_tol * P(w), so P(w) is F* to that relative accuracy.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    a = np.zeros(X.shape[0])
    w = np.zeros(X.shape[1])
    for r in range(max_rounds):
        _dcd_passes(X, y, lam, a, w, r, 50)
        w = X.T @ (a * y) / (lam * X.shape[0])     # w(a) afresh: no drift from the updates
        P = 0.5 * lam * w @ w + np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))
        D = np.mean(a) - 0.5 * lam * w @ w
        if P - D <= gap_tol * P:
            return w, P
    raise AssertionError(f"dual coordinate ascent did not certify: gap {P - D}")


def pegasos_pseudocode(X, y, lam, T, k, project, seed):
    """Pegasos exactly as the paper's pseudo-code, dense numpy, on the solver's batches."""
    idx = sample_indices(X.shape[0], k, T, seed)
    w = np.zeros(X.shape[1])
    for t in range(1, T + 1):
        A = idx[t - 1]
        eta = 1.0 / (lam * t)
        plus = [i for i in A if y[i] * (X[i] @ w) < 1.0]
        w = (1.0 - eta * lam) * w + eta / k * sum((y[i] * X[i] for i in plus), np.zeros_like(w))
        if project:
            nw = np.linalg.norm(w)
            if nw > 1.0 / np.sqrt(lam):
                w *= (1.0 / np.sqrt(lam)) / nw
    return w


@pytest.mark.parametrize("k,project", [(1, True), (1, False), (4, True)])
def test_matches_pseudocode(binary_sparse, k, project):
    X, Xs, y = binary_sparse
    lam = 0.05
    ref = pegasos_pseudocode(X, y, lam, 300, k, project, seed=3)
    for data in (X, Xs):
        res = pegasos(data, y, sigma=lam, T=300, k=k, project=project, seed=3)
        np.testing.assert_allclose(res.w, ref, rtol=1e-10, atol=1e-12)


def test_relative_gap_breast_cancer(breast_cancer_std):
    X, y = breast_cancer_std
    yy = np.where(y == 1, 1.0, -1.0)
    lam = 1e-2
    w_star, P_star = svm_optimum(X, yy, lam)
    # cross-check the certified optimum against scikit-learn's liblinear (dual CD as well)
    from sklearn.svm import LinearSVC

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svc = LinearSVC(loss="hinge", fit_intercept=False, C=1.0 / (lam * X.shape[0]),
                        tol=1e-12, dual=True, max_iter=200000, random_state=0).fit(X, y)
    P_svc = objective(X, y, svc.coef_.ravel(), sigma=lam, loss="hinge")
    # liblinear stops at max_iter here (it warns), close to but not at the optimum
    assert P_star <= P_svc * (1 + 1e-6) and P_svc == pytest.approx(P_star, rel=1e-3)
    res = pegasos(X, y, sigma=lam, T=400_000, seed=0)
    gap = (res.objective - P_star) / P_star
    assert 0.0 <= gap < 1e-2
    assert res.objective == pytest.approx(objective(X, y, res.w, sigma=lam, loss="hinge"))


@pytest.mark.parametrize("n", [10, 20, 40])
def test_relative_gap_toy(n):
    ds = pgs_toy(1000, n, seed=n)
    lam = 1e-2
    _, P_star = svm_optimum(ds.X, ds.y, lam)
    res = pegasos(ds.X, ds.y, sigma=lam, T=1_000_000, k=2, seed=1)
    gap = (res.objective - P_star) / P_star
    assert 0.0 <= gap < 1e-2


def test_projection_keeps_the_ball(binary):
    X, y = binary
    lam = 0.5
    res = pegasos(X * 50, y, sigma=lam, T=2000, seed=0)
    assert np.linalg.norm(res.w) <= (1 / np.sqrt(lam)) * (1 + 1e-12)


def test_dense_equals_sparse_and_seeds(binary_sparse):
    X, Xs, y = binary_sparse
    a = pegasos(X, y, sigma=0.01, T=5000, k=3, seed=7)
    b = pegasos(Xs, y, sigma=0.01, T=5000, k=3, seed=7)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.trace.objective, b.trace.objective, rtol=1e-12)
    c = pegasos(Xs.tocsc(), y, sigma=0.01, T=5000, k=3, seed=7, n_checkpoints=3)
    np.testing.assert_array_equal(b.w, c.w)          # checkpoints do not change the run
    d = pegasos(Xs, y, sigma=0.01, T=5000, k=3, seed=8)
    assert not np.allclose(b.w, d.w)
    assert len(a.trace) == 2 and a.trace.seconds[-1] > 0   # default: start and lazy end
    assert a.params == dict(sigma=0.01, T=5000, k=3, project=True, seed=7, order="replacement",
                            loss="hinge",
                            iterate="last")


def test_labels_and_test_metric(binary):
    X, y = binary
    lab = np.where(y > 0, "spam", "ham")
    res = pegasos(X, lab, sigma=0.01, T=3000, X_test=X, y_test=lab)
    assert list(res.classes) == ["ham", "spam"]
    assert res.trace.test_metric_name == "accuracy"
    assert res.trace.test_metric[-1] == pytest.approx(np.mean(res.predict(X) == lab))


def test_long_runs_renormalize_the_scale():
    # s shrinks like 1/t: after 3e5 steps without projection it has been folded into v
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0])
    res = pegasos(X, y, sigma=1e-3, T=300_000, project=False)
    assert np.all(np.isfinite(res.w))
    # optimum of lam/2 ||w||^2 + mean hinge here is w = (1, -1) (margins exactly 1)
    np.testing.assert_allclose(res.w, [1.0, -1.0], atol=2e-2)


@pytest.mark.parametrize("kw,exc,msg", [
    (dict(sigma=0.0), ValueError, "sigma must be a finite number > 0, got 0.0"),
    (dict(sigma=-1), ValueError, "sigma must be"),
    (dict(sigma=float("nan")), ValueError, "sigma must be"),
    (dict(T=0), ValueError, "T must be an integer >= 1, got 0"),
    (dict(T=10.0), TypeError, "T must be an integer"),
    (dict(k=0), ValueError, "k must be an integer >= 1"),
    (dict(project="yes"), TypeError, "project must be True or False"),
    (dict(seed=-1), ValueError, "seed must be a non-negative integer"),
])
def test_bad_parameters(binary, kw, exc, msg):
    X, y = binary
    args = dict(sigma=0.1, T=10)
    args.update(kw)
    with pytest.raises(exc, match=msg):
        pegasos(X, y, **args)


def test_bad_data(binary):
    X, y = binary
    with pytest.raises(ValueError, match="NaN"):
        pegasos(np.where(X > 2, np.nan, X), y, sigma=0.1, T=10)
    with pytest.raises(ValueError, match="exactly two classes"):
        pegasos(X, np.arange(len(y)) % 3, sigma=0.1, T=10)
    with pytest.raises(ValueError, match="same number of examples"):
        pegasos(X, y[:-1], sigma=0.1, T=10)
    with pytest.raises(ValueError, match="n_features"):
        pegasos(X, y, sigma=0.1, T=10, X_test=X[:, :3], y_test=y)
