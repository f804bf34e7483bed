"""The generalized incoherence (the book's definition, after the paper's Definition 4),
its Lemma 2, the classical coherence it relates to, and the sampled preconditioner's
spectral approximation (the event of the book's thm-pre-sample-norms), against NumPy
transcriptions."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.precond import incoherence


def data(m=600, n=15, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, n)) / np.arange(1, n + 1) ** 1.5


@pytest.mark.parametrize("rho", [1e-8, 1e-3, 1e-1, 10.0])
def test_definition_and_lemma_2(rho):
    X = data()
    m, n = X.shape
    r = incoherence(X, sigma=rho * 0.5, beta=0.5)
    # NumPy transcription of the book's definition from the left singular vectors
    A, sv, _ = np.linalg.svd(X / math.sqrt(m), full_matrices=False)
    c = sv ** 2
    wgt = c / (c + rho)
    gamma = wgt.sum()
    mu = (m / gamma * (A ** 2 @ wgt)).max()
    assert r["numerical_rank"] == pytest.approx(gamma, rel=1e-10)
    assert r["mu"] == pytest.approx(mu, rel=1e-10)
    assert r["mu0"] == pytest.approx(m / n * (A ** 2).sum(1).max(), rel=1e-10)
    # Lemma 2 (attained): max ||H^(-1/2) x_i||^2 = mu gamma, H = C + rho I
    H = X.T @ X / m + rho * np.eye(n)
    xh2 = np.einsum("ij,ij->i", X, np.linalg.solve(H, X.T).T)
    np.testing.assert_allclose(r["norms2"], xh2, rtol=1e-8)
    assert xh2.max() == pytest.approx(r["mu"] * gamma, rel=1e-8)
    # the library's coherence is the same number for the exact preconditioner
    P = rlmlib.precondition(X, sigma=rho * 0.5, beta=0.5)
    assert P.coherence == pytest.approx(r["mu"], rel=1e-7)
    # the two-sided relation to the classical coherence, and 1 <= mu <= m / gamma
    lo = n * c[-1] / ((c[-1] + rho) * gamma) * r["mu0"]
    assert lo * (1 - 1e-10) <= r["mu"] <= n / gamma * r["mu0"] * (1 + 1e-10)
    assert 1 - 1e-12 <= r["mu"] <= m / gamma * (1 + 1e-12)


def test_limits_of_rho():
    X = data(seed=1)
    m = X.shape[0]
    small = incoherence(X, sigma=1e-14, beta=1.0)
    assert small["mu"] == pytest.approx(small["mu0"], rel=1e-6)      # rho -> 0
    big = incoherence(X, sigma=1e8, beta=1.0)
    nrm = (X ** 2).sum(1)
    assert big["mu"] == pytest.approx(nrm.max() / nrm.mean(), rel=1e-6)  # rho -> inf
    assert big["numerical_rank"] == pytest.approx(nrm.sum() / m / 1e8, rel=1e-6)


def test_rank_deficient_and_sparse():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((200, 3)) @ rng.standard_normal((3, 10))   # rank 3
    r = incoherence(X, sigma=1e-3, beta=1.0)
    assert r["rank"] == 3
    assert r["mu0"] <= 200 / 3 * (1 + 1e-12)
    rs = incoherence(sp.csr_matrix(X), sigma=1e-3, beta=1.0)
    assert rs["mu"] == pytest.approx(r["mu"], rel=1e-10)


def test_sampled_spectral_bound_inequality():
    """||xtilde_i||^2 <= ||xhat_i||^2 / lambda_min(H^(-1/2) Hhat H^(-1/2)) for every row
    and every sample (the deterministic step of thm-pre-sample-norms' proof)."""
    X = data(m=500, n=12, seed=3)
    m, n = X.shape
    sigma, beta, s = 1e-3, 0.5, 80
    H = X.T @ X / m + sigma / beta * np.eye(n)
    ev, V = np.linalg.eigh(H)
    Hmh = V @ np.diag(ev ** -0.5) @ V.T
    xh2 = np.einsum("ij,ij->i", X, np.linalg.solve(H, X.T).T)
    for seed in range(5):
        P = rlmlib.precondition(X, sigma=sigma, beta=beta, m=s, seed=seed)
        XS = X[P.sample]
        Hhat = XS.T @ XS / s + sigma / beta * np.eye(n)
        lam = np.linalg.eigvalsh(Hmh @ Hhat @ Hmh)
        assert np.all(P.norms2 <= xh2 / lam[0] * (1 + 1e-9))
        assert np.all(P.norms2 >= xh2 / lam[-1] * (1 - 1e-9))


def test_bad_inputs():
    X = data()
    with pytest.raises(ValueError, match="sigma"):
        incoherence(X, sigma=0.0, beta=1.0)
    with pytest.raises(ValueError, match="beta"):
        incoherence(X, sigma=1e-3, beta=-1.0)
    with pytest.raises(ValueError, match="X = 0"):
        incoherence(np.zeros((5, 3)), sigma=1e-3, beta=1.0)
    with pytest.raises(ValueError, match="features"):
        incoherence(sp.random(5, 6000, density=0.01, format="csr", random_state=0),
                    sigma=1e-3, beta=1.0)
