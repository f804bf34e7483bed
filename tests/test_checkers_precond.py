"""The data-preconditioning chapter's checkers accept correct solutions and reject the
typical mistakes, naming the cause."""
import math

import numpy as np
import pytest

from rlmlib.book.checkers import precond as ck
from rlmlib.precond.preconditioner import logistic_beta, numerical_rank


def good_gamma(c, ratio):
    c = np.asarray(c, dtype=float)
    pos = c > 0
    return float(np.sum(1.0 / (1.0 + ratio / c[pos])))


def test_numerical_rank_checker():
    assert "correct" in ck.check_numerical_rank(good_gamma)
    with pytest.raises(AssertionError, match="overflow|0/0"):
        ck.check_numerical_rank(lambda c, r: float(np.sum(np.asarray(c) / (np.asarray(c)
                                                                             + r))))
    with pytest.raises(AssertionError, match="complement"):
        ck.check_numerical_rank(lambda c, r: float(np.sum(r / (np.asarray(c) + r))))
    with pytest.raises(AssertionError, match="inverted"):
        ck.check_numerical_rank(lambda c, r: good_gamma(c, 1.0 / r))
    with pytest.raises(AssertionError, match="expected"):
        ck.check_numerical_rank(lambda c, r: good_gamma(c, r) * 1.001)


def test_numerical_rank_library_passes():
    # the library's own function, on the checker's non-extreme cases
    assert numerical_rank([1, 0.5, 0.25, 0.125], 0.25) == pytest.approx(2.3)


def good_transform(X, sample, sigma, beta):
    XS = X[sample] / np.sqrt(len(sample))
    _, sv, Vt = np.linalg.svd(XS, full_matrices=False)
    keep = sv > sv.max() * 1e-10 if sv.size and sv.max() > 0 else sv > 0
    U, c = Vt[keep].T, sv[keep] ** 2
    coef = (c + sigma / beta) ** -0.5 - np.sqrt(beta / sigma)
    return np.sqrt(beta / sigma) * X + ((X @ U) * coef) @ U.T


def no_complement(X, sample, sigma, beta):
    XS = X[sample] / np.sqrt(len(sample))
    _, sv, Vt = np.linalg.svd(XS, full_matrices=False)
    keep = sv > sv.max() * 1e-10 if sv.size and sv.max() > 0 else sv > 0
    U, c = Vt[keep].T, sv[keep] ** 2
    return ((X @ U) * (c + sigma / beta) ** -0.5) @ U.T


def by_m(X, sample, sigma, beta):
    H = X[sample].T @ X[sample] / X.shape[0] + sigma / beta * np.eye(X.shape[1])
    ev, V = np.linalg.eigh(H)
    return X @ (V @ np.diag(ev ** -0.5) @ V.T)


def test_sampled_transform_checker():
    assert "correct" in ck.check_sampled_transform(good_transform)
    with pytest.raises(AssertionError, match="complement"):
        ck.check_sampled_transform(no_complement)
    with pytest.raises(AssertionError, match="normalized by m"):
        ck.check_sampled_transform(by_m)
    with pytest.raises(AssertionError, match="beta/sigma used"):
        ck.check_sampled_transform(lambda X, S, s, b: good_transform(X, S, b, s))


def test_sampled_transform_matches_library():
    import rlmlib

    X = np.random.default_rng(0).standard_normal((40, 6))
    P = rlmlib.precondition(X, sigma=1e-2, beta=0.5, m=7, seed=3)
    np.testing.assert_allclose(good_transform(X, P.sample, 1e-2, 0.5), P.transform(X),
                               atol=1e-9)


def test_logistic_beta_checker():
    assert "correct" in ck.check_logistic_beta(logistic_beta)

    def textbook(R):
        s = 1.0 / (1.0 + math.exp(-R))
        return s * (1.0 - s)

    with pytest.raises(AssertionError, match="cancellation"):
        ck.check_logistic_beta(textbook)

    with pytest.raises(AssertionError, match="curvature at z = 0"):
        ck.check_logistic_beta(lambda R: 0.25)
