"""The synthetic generators produce the distributions their docstrings promise."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.special import expit, ndtr

from rlmlib.datasets import synthetic as S


def _same(a, b):
    if sp.issparse(a):
        return (a != b).nnz == 0 and a.shape == b.shape
    return np.array_equal(a, b)


# ----------------------------------------------------------------------------- common
@pytest.mark.parametrize("make", [
    lambda seed: S.pgs_toy(500, 10, seed=seed),
    lambda seed: S.rcv1_like(300, 2000, 20, seed=seed),
    lambda seed: S.alpha_like(300, 20, seed=seed),
    lambda seed: S.correlated_lasso(300, 20, rho=0.5, seed=seed),
    lambda seed: S.eigen_decay(300, 20, tau=1.0, seed=seed),
], ids=["pgs_toy", "rcv1_like", "alpha_like", "correlated_lasso", "eigen_decay"])
def test_seed_reproducible_and_different(make):
    a, b, c = make(0), make(0), make(1)
    assert _same(a.X, b.X) and np.array_equal(a.y, b.y)
    assert not _same(a.X, c.X)
    assert a.X.shape[0] == a.y.shape[0] == (500 if a.X.shape[1] == 10 else 300)


@pytest.mark.parametrize("call, match", [
    (lambda: S.pgs_toy(0, 10), "m must be an integer >= 1, got 0"),
    (lambda: S.pgs_toy(10, 10, bayes_error=0.5), "bayes_error"),
    (lambda: S.pgs_toy(10, 10, seed=1.5), "seed must be a non-negative integer"),
    (lambda: S.pgs_toy(10, 10, seed=-1), "seed must be a non-negative integer"),
    (lambda: S.rcv1_like(10, 100, 50), "nnz_per_row"),
    (lambda: S.rcv1_like(10, 100, 5, dtype=np.int32), "dtype must be float32 or float64"),
    (lambda: S.rcv1_like(10, 100, 5, noise=float("nan")), "noise"),
    (lambda: S.alpha_like(10, 5, spectrum=0.5), "spectrum"),
    (lambda: S.correlated_lasso(10, 5, rho=1.0), "rho must be in \\[0.0, 1.0\\), got 1.0"),
    (lambda: S.correlated_lasso(10, 5, rho=0.2, snr=0.0), "snr"),
    (lambda: S.correlated_lasso(10, 5, rho=0.2, snr=float("inf")),
     "snr must be a finite number in \\(0.0, inf\\], got inf"),
    (lambda: S.eigen_decay(10, 20, tau=1.0), "n must be an integer in \\[1, 10\\], got 20"),
    (lambda: S.eigen_decay(30, 20, decay="linear", tau=1.0), "decay must be 'poly' or 'exp'"),
    (lambda: S.eigen_decay(30, 20, tau=-1.0), "tau"),
    (lambda: S.eigen_decay(30, 20, tau=1.0, task="binary", noise=0.5), "noise"),
])
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_m_test_is_an_independent_sample_of_the_same_law():
    ds = S.pgs_toy(4000, 5, m_test=3000, seed=3)
    assert ds.X.shape == (4000, 5) and ds.X_test.shape == (3000, 5)
    # the Bayes classifier errs at the same rate on both parts
    for X, y in [(ds.X, ds.y), (ds.X_test, ds.y_test)]:
        err = np.mean(np.sign(X @ ds.w_star) != y)
        assert abs(err - ds.bayes_error) < 4 * math.sqrt(0.1 * 0.9 / len(y))
    sp_ds = S.rcv1_like(500, 1000, 10, m_test=200, seed=0)
    assert sp_ds.X_test.shape == (200, 1000) and sp.isspmatrix_csr(sp_ds.X_test)


# ----------------------------------------------------------------------------- (a) PGS toy
def test_pgs_toy_w_star_is_unit_bayes_direction():
    ds = S.pgs_toy(1000, 20, seed=0)
    assert ds.X.shape == (1000, 20) and set(np.unique(ds.y)) == {-1.0, 1.0}
    assert abs(np.linalg.norm(ds.w_star) - 1.0) < 1e-14
    # w* = cov^-1 (mu_+ - mu_-) = 2 cov^-1 mu  (the LDA / Bayes direction)
    np.testing.assert_allclose(2 * np.linalg.solve(ds.cov, ds.mu), ds.w_star, atol=1e-10)
    # Bayes error of sign(w*^T x) is Phi(-sqrt(w*^T cov w*)/2)
    s = math.sqrt(ds.w_star @ ds.cov @ ds.w_star)
    assert abs(ndtr(-s / 2) - ds.bayes_error) < 1e-12
    ev = np.linalg.eigvalsh(ds.cov)
    assert abs(ev[-1] / ev[0] - 10.0) < 1e-8


def test_pgs_toy_samples_follow_the_two_gaussians():
    ds = S.pgs_toy(200_000, 10, seed=1)
    X, y = ds.X, ds.y
    assert abs(np.mean(y > 0) - 0.5) < 0.005
    for sign in (1.0, -1.0):
        Xc = X[y == sign]
        se = np.sqrt(np.diag(ds.cov) / len(Xc))
        assert np.all(np.abs(Xc.mean(axis=0) - sign * ds.mu) < 5 * se)
        np.testing.assert_allclose(np.cov(Xc.T), ds.cov, atol=0.03 * np.abs(ds.cov).max())
    err = np.mean(np.sign(X @ ds.w_star) != y)
    assert abs(err - ds.bayes_error) < 5 * math.sqrt(0.09 / len(y))


def test_pgs_toy_w_star_minimizes_the_population_logistic_risk():
    ds = S.pgs_toy(400_000, 10, seed=2)
    # Monte-Carlo gradient of E log(1 + exp(-y w^T x)) at w*: zero up to sampling error
    u = ds.y[:, None] * ds.X
    g = -expit(-(u @ ds.w_star))[:, None] * u
    se = g.std(axis=0) / math.sqrt(len(g))
    assert np.all(np.abs(g.mean(axis=0)) < 5 * se)
    # ... while at a perturbed w the gradient is clearly not zero
    w = ds.w_star + 0.1 * np.eye(10)[0]
    g2 = (-expit(-(u @ w))[:, None] * u).mean(axis=0)
    assert np.abs(g2).max() > 20 * se.max()
    # quadrature optimum at sigma = 0 is w* itself
    np.testing.assert_allclose(S.pgs_toy_optimum(ds, 0.0), ds.w_star, atol=1e-11)


def test_pgs_toy_empirical_optimum_approaches_w_star():
    # the l2-logistic minimizer of a sample of the paper's size is within the paper's 0.05
    ds = S.pgs_toy(200_000, 10, seed=4)
    sigma = 1e-6
    u = ds.y[:, None] * ds.X

    def f(w):
        z = u @ w
        return (0.5 * sigma * w @ w + np.mean(np.logaddexp(0, -z)),
                sigma * w - u.T @ expit(-z) / len(z))

    w = minimize(f, np.zeros(10), jac=True, method="L-BFGS-B",
                 options=dict(gtol=1e-12, ftol=1e-15, maxiter=2000)).x
    assert np.linalg.norm(w - ds.w_star) < 0.05


def test_pgs_toy_optimum_at_positive_sigma_is_stationary():
    ds = S.pgs_toy(500_000, 5, seed=5)
    sigma = 0.05
    w = S.pgs_toy_optimum(ds, sigma)
    assert np.linalg.norm(w) < 1.0
    u = ds.y[:, None] * ds.X
    g = sigma * w - expit(-(u @ w))[:, None] * u
    se = g.std(axis=0) / math.sqrt(len(g))
    assert np.all(np.abs(g.mean(axis=0)) < 5 * se)
    assert np.linalg.norm(w - ds.w_star) > 0.1          # shrinkage is visible at this sigma


# ----------------------------------------------------------------------------- (b) RCV1-like
@pytest.fixture(scope="module")
def text():
    return S.rcv1_like(20_000, 47_236, 76, seed=0)


def test_rcv1_like_structure(text):
    X = text.X
    assert sp.isspmatrix_csr(X) and X.shape == (20_000, 47_236)
    assert X.dtype == np.float64 and X.indices.dtype == np.int32
    lengths = np.diff(X.indptr)
    assert lengths.min() >= 1
    # mean row length 76: 1 + Poisson(75) has sd sqrt(75)
    assert abs(lengths.mean() - 76) < 5 * math.sqrt(75 / 20_000)
    # sorted, distinct column indices in every row
    d = np.diff(X.indices)
    starts = X.indptr[1:-1] - 1
    within = np.ones(len(d), bool)
    within[starts] = False
    assert np.all(d[within] > 0)
    assert X.has_canonical_format
    assert np.all(X.data > 0)
    np.testing.assert_allclose(sp.linalg.norm(X, axis=1), 1.0, rtol=1e-12)


def test_rcv1_like_zipf_frequencies(text):
    df = np.bincount(text.X.indices, minlength=text.X.shape[1])
    np.testing.assert_array_equal(df, text.df)
    # document frequency against frequency rank: log-log slope about -1 away from saturation
    r = text.rank_of_column
    order = np.argsort(r)
    ranks, dfr = r[order], df[order]
    sel = slice(200, 5000)
    slope = np.polyfit(np.log(ranks[sel] + text.zipf_offset), np.log(dfr[sel]), 1)[0]
    assert -1.15 < slope < -0.85
    assert dfr[:10].mean() > 20 * dfr[1000:1010].mean()


def test_rcv1_like_labels(text):
    y = text.y
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert abs(np.mean(y > 0) - 0.5) < 0.03
    clean = np.where(text.X @ text.w_hidden >= 0, 1.0, -1.0)
    flipped = np.mean(clean != y)
    assert abs(flipped - text.noise) < 5 * math.sqrt(0.03 * 0.97 / len(y))


def test_rcv1_like_float32_matches_float64():
    a = S.rcv1_like(1000, 3000, 30, seed=7)
    b = S.rcv1_like(1000, 3000, 30, seed=7, dtype=np.float32)
    assert b.X.dtype == np.float32
    np.testing.assert_array_equal(a.X.indices, b.X.indices)
    np.testing.assert_allclose(a.X.data, b.X.data, rtol=1e-6)


def test_rcv1_like_small_vocabulary_and_too_skewed_law():
    ds = S.rcv1_like(2000, 40, 10, seed=0)            # rows near n/4: many redraws, still exact
    assert ds.X.has_canonical_format and np.diff(ds.X.indptr).max() <= 20
    with pytest.raises(ValueError, match="too many redraws"):
        S.rcv1_like(50, 4000, 1000, zipf_exponent=6.0, seed=0)


# ----------------------------------------------------------------------------- (c) ALPHA-like
def test_alpha_like_is_ill_conditioned_as_reported():
    ds = S.alpha_like(50_000, 100, seed=0)
    assert ds.X.shape == (50_000, 100) and abs(np.mean(ds.y > 0) - 0.5) < 0.02
    ev = np.linalg.eigvalsh(ds.cov)
    assert ds.cond == pytest.approx(ev[-1] / ev[0], rel=1e-10)
    assert ds.cond > 1e4
    C = ds.X.T @ ds.X / ds.X.shape[0]
    # the sample second moment matches cov in the metric of cov (relative, per direction)
    L = np.linalg.cholesky(ds.cov)
    W = np.linalg.solve(L, np.linalg.solve(L, C).T)
    assert np.abs(np.linalg.eigvalsh(W) - 1).max() < 0.1
    sd = np.sqrt(np.diag(ds.cov))
    assert sd.max() / sd.min() > 10
    clean = np.where(ds.X @ ds.w_hidden >= 0, 1.0, -1.0)
    assert abs(np.mean(clean != ds.y) - ds.noise) < 5 * math.sqrt(0.09 / len(ds.y))


def test_delta_like_has_unequal_scales_and_a_condition_number_in_the_thousands():
    """The DELTA stand-in of the SGD-QN experiments: between the equal-scale set (condition
    number about `spectrum`) and ALPHA-like (about 1e5), as its docstring reports."""
    conds = [S.delta_like(200, 500, seed=s).cond for s in (0, 1, 2)]
    assert all(1e3 < c < 1e4 for c in conds), conds
    ds = S.delta_like(40_000, 100, seed=0)
    ev = np.linalg.eigvalsh(ds.cov)
    assert ds.cond == pytest.approx(ev[-1] / ev[0], rel=1e-10)
    sd = np.sqrt(np.diag(ds.cov))
    assert sd.max() / sd.min() > 5                       # unequal feature scales
    equal = S.alpha_like(200, 100, spectrum=10.0, scale_range=1.0, seed=0)
    assert equal.cond < 11 < 100 < ds.cond                # the old set: about 10
    clean = np.where(ds.X @ ds.w_hidden >= 0, 1.0, -1.0)
    assert abs(np.mean(clean != ds.y) - 0.2) < 5 * math.sqrt(0.16 / len(ds.y))
    with pytest.raises(ValueError, match="scale_range"):
        S.delta_like(10, 5, scale_range=0.5)


# ----------------------------------------------------------------------------- (d) lasso
@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_correlated_lasso_correlation_and_snr(rho):
    ds = S.correlated_lasso(40_000, 30, rho=rho, seed=1)
    j = np.arange(1, 31)
    np.testing.assert_allclose(ds.beta, (-1.0) ** j * np.exp(-2 * (j - 1) / 20), rtol=1e-15)
    R = np.corrcoef(ds.X.T)
    off = R[~np.eye(30, dtype=bool)]
    assert abs(off.mean() - rho) < 0.01 and np.abs(off - rho).max() < 0.03
    signal = ds.X @ ds.beta
    noise = ds.y - signal
    assert np.std(signal) / np.std(noise) == pytest.approx(3.0, rel=0.03)
    # population SNR used is exactly 3
    b = math.sqrt(rho / (1 - rho))
    C = np.eye(30) + b * b
    assert math.sqrt(ds.beta @ C @ ds.beta) / ds.k == pytest.approx(3.0, rel=1e-14)


def test_correlated_lasso_fixed_noise():
    ds = S.correlated_lasso(20_000, 10, rho=0.0, noise_sd=3.0, seed=0)
    assert ds.k == 3.0
    assert np.std(ds.y - ds.X @ ds.beta) == pytest.approx(3.0, rel=0.03)


# ----------------------------------------------------------------------------- (e) eigen decay
@pytest.mark.parametrize("decay, tau", [("poly", 1.0), ("poly", 2.0), ("exp", 0.1), ("exp", 0.5)])
def test_eigen_decay_eigenvalues_exact(decay, tau):
    m, n = 2000, 40
    ds = S.eigen_decay(m, n, decay=decay, tau=tau, seed=3)
    i = np.arange(1, n + 1)
    s = i ** -tau if decay == "poly" else np.exp(-tau * i)
    np.testing.assert_array_equal(ds.eigenvalues, s)
    C = ds.X.T @ ds.X / m
    ev = np.sort(np.linalg.eigvalsh(C))[::-1]
    # rtol 1e-10; eigvalsh's absolute error ~ eps * s_1 sets a floor for the tiny ones
    np.testing.assert_allclose(ev, s, rtol=1e-10, atol=1e-14 * s[0])
    # eigenvectors are the columns of V
    np.testing.assert_allclose(C @ ds.V, ds.V * s, atol=1e-12)
    assert 1.0 <= ds.coherence < 3.0                   # low coherence (maximum would be m/n = 50)


def test_eigen_decay_targets():
    ds = S.eigen_decay(3000, 20, tau=1.0, noise=0.1, seed=0)
    assert ds.task == "regression"
    assert np.std(ds.y - ds.X @ ds.w_hidden) == pytest.approx(0.1, rel=0.1)
    db = S.eigen_decay(3000, 20, tau=1.0, task="binary", noise=0.1, seed=0)
    assert db.task == "binary" and set(np.unique(db.y)) == {-1.0, 1.0}
    clean = np.where(db.X @ db.w_hidden >= 0, 1.0, -1.0)
    assert abs(np.mean(clean != db.y) - 0.1) < 5 * math.sqrt(0.09 / 3000)


def test_eigen_decay_extreme_rate_underflows_to_zero_without_nan():
    ds = S.eigen_decay(200, 100, decay="exp", tau=20.0, seed=0)
    assert np.all(np.isfinite(ds.X)) and ds.eigenvalues[-1] == 0.0


def test_dataset_truth_attributes():
    ds = S.correlated_lasso(10, 3, rho=0.1)
    assert ds.beta is ds.truth["beta"]
    with pytest.raises(AttributeError, match="no attribute 'w_star'"):
        ds.w_star


@pytest.mark.parametrize("bayes_error, cond, sigma", [
    (1e-300, 1e6, 1.0), (1e-6, 1e6, 1e-3), (0.49, 1.0, 1e6), (0.1, 1e3, 0.0)])
def test_pgs_toy_optimum_extreme_parameters(bayes_error, cond, sigma):
    ds = S.pgs_toy(10, 4, bayes_error=bayes_error, cond=cond, seed=0)
    w = S.pgs_toy_optimum(ds, sigma)
    assert np.all(np.isfinite(w))

    def F(w):  # the same population objective: no coordinate perturbation lowers it
        s = math.sqrt(max(w @ ds.cov @ w, 0.0))
        f = lambda z: np.logaddexp(0.0, -z)
        return 0.5 * sigma * w @ w + S._gauss_expect(w @ ds.mu, s, [f])[0]

    for d in np.eye(4):
        for h in (1e-3, -1e-3):
            assert F(w) <= F(w + h * np.linalg.norm(w) * d) + 1e-15 * abs(F(w))
    if sigma == 0.0:
        np.testing.assert_allclose(w, ds.w_star, atol=1e-10)


@pytest.mark.parametrize("rows, cols", [(400, 50), (60, 50), (50, 50)])
def test_haar_orthogonal_is_the_positive_diagonal_qr_factor(rows, cols):
    # CholeskyQR2 (tall) and Householder (square-ish) give the same Q of the same draw
    Q = S._haar_orthogonal(np.random.default_rng(3), rows, cols)
    G = np.random.default_rng(3).standard_normal((rows, cols))
    np.testing.assert_allclose(Q.T @ Q, np.eye(cols), atol=1e-13)
    R = Q.T @ G
    np.testing.assert_allclose(np.tril(R, -1), 0, atol=1e-11)
    assert np.all(np.diag(R) > 0)
    np.testing.assert_allclose(Q @ R, G, atol=1e-11)
