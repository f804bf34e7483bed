"""Data preconditioning, SAG and SVRG: agreement with certified optima, the identities of the
preconditioner, implicit vs dense transform, and errors on bad input."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.precond.preconditioner import logistic_beta, numerical_rank


def problem(loss, m=300, n=12, density=None, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n)) * (1.0 / np.arange(1, n + 1))  # decaying spectrum
    if density is not None:
        X *= rng.random((m, n)) < density
    w = rng.standard_normal(n)
    z = X @ w
    y = z + 0.1 * rng.standard_normal(m) if loss == "squared" else np.where(z > 0, 1.0, -1.0)
    return X, y


SIGMA = 1e-2
BETA = {"squared": 0.5, "logistic": logistic_beta(3.0)}


@pytest.fixture(scope="module")
def refs():
    out = {}
    for loss in ("squared", "logistic"):
        for sparse in (False, True):
            X, y = problem(loss, density=0.3 if sparse else None)
            Xs = sp.csr_matrix(X) if sparse else X
            ref = rlmlib.lbfgs(Xs, y, sigma=SIGMA, loss=loss, tol=1e-12)
            assert ref.info["converged"]
            out[loss, sparse] = (Xs, y, ref)
    return out


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("solver", ["sag", "svrg"])
@pytest.mark.parametrize("pre", [None, "exact", "sampled"])
def test_reaches_certified_optimum(refs, loss, sparse, solver, pre):
    X, y, ref = refs[loss, sparse]
    P = None
    if pre is not None:
        P = rlmlib.precondition(X, sigma=SIGMA, beta=BETA[loss],
                                m=None if pre == "exact" else 40, seed=1)
    res = getattr(rlmlib, solver)(X, y, sigma=SIGMA, epochs=120, loss=loss, precondition=P)
    F = rlmlib.objective(X, y, res.w, sigma=SIGMA, loss=loss)
    assert F == pytest.approx(res.objective, rel=1e-12)
    gap = (F - ref.objective) / ref.objective
    assert gap < 1e-8, (solver, loss, sparse, pre, gap)
    # the solution is returned in the original coordinates: it is the optimum w*
    np.testing.assert_allclose(res.w, ref.w, atol=1e-4 * np.abs(ref.w).max())


@pytest.mark.parametrize("solver", ["sag", "svrg"])
def test_ridge_closed_form(regression, solver):
    X, y = regression
    m, n = X.shape
    w_star = np.linalg.solve(X.T @ X / m + SIGMA * np.eye(n), X.T @ y / m)
    for P in (None, rlmlib.precondition(X, sigma=SIGMA, beta=1.0)):
        res = getattr(rlmlib, solver)(X, y, sigma=SIGMA, epochs=80, loss="squared",
                                      precondition=P)
        np.testing.assert_allclose(res.w, w_star, rtol=0, atol=1e-7)


def test_transformed_problem_agrees():
    """G(u) = F(w) for u = H^(1/2) w; solving G and mapping back gives w*."""
    X, y = problem("logistic")
    beta = BETA["logistic"]
    P = rlmlib.precondition(X, sigma=SIGMA, beta=beta)
    Xh = P.transform(X)
    rng = np.random.default_rng(3)
    w = rng.standard_normal(X.shape[1])
    u = P.to_transformed(w)
    np.testing.assert_allclose(P.to_original(u), w, rtol=1e-10)
    z = Xh @ u
    np.testing.assert_allclose(z, X @ w, rtol=1e-9, atol=1e-12)  # margins unchanged
    F = rlmlib.objective(X, y, w, sigma=SIGMA, loss="logistic")
    phihat = np.log1p(np.exp(-y * z)) - beta / 2 * z ** 2
    G = phihat.mean() + beta / 2 * u @ u
    assert G == pytest.approx(F, rel=1e-11)
    # the matrix H^(-1/2) is the inverse square root of C + (sigma/beta) I
    C = X.T @ X / X.shape[0]
    Hm = P.matrix()
    np.testing.assert_allclose(Hm @ (C + SIGMA / beta * np.eye(X.shape[1])) @ Hm,
                               np.eye(X.shape[1]), atol=1e-9)


def test_numerical_rank_identities():
    X, _ = problem("squared", m=200, n=10)
    for beta in (1.0, 0.3):
        P = rlmlib.precondition(X, sigma=SIGMA, beta=beta)
        c = np.linalg.eigvalsh(X.T @ X / 200)
        gamma = numerical_rank(np.maximum(c, 0), SIGMA / beta)
        assert P.numerical_rank == pytest.approx(gamma, rel=1e-10)
        assert P.numerical_rank == pytest.approx(P.norms2.mean(), rel=1e-10)
        Xh = P.transform(X)
        np.testing.assert_allclose(P.norms2, np.einsum("ij,ij->i", Xh, Xh), rtol=1e-9)
        assert P.coherence == pytest.approx(P.norms2.max() / gamma)
        assert P.coherence >= 1.0


def test_sampled_sparse_equals_dense():
    X, _ = problem("squared", m=150, n=20, density=0.25)
    Xs = sp.csr_matrix(X)
    Pd = rlmlib.precondition(X, sigma=SIGMA, beta=0.7, m=30, seed=4)
    Ps = rlmlib.precondition(Xs, sigma=SIGMA, beta=0.7, m=30, seed=4)
    np.testing.assert_array_equal(Pd.sample, Ps.sample)
    np.testing.assert_allclose(Ps.transform(Xs), Pd.transform(X), atol=1e-10)
    np.testing.assert_allclose(Ps.norms2, Pd.norms2, rtol=1e-9)
    # the implicit form is H^(-1/2) for Chat = (1/s) sum over the sample, dense reference
    S = X[Pd.sample]
    H = S.T @ S / 30 + SIGMA / 0.7 * np.eye(20)
    ev, V = np.linalg.eigh(H)
    Hm = V @ np.diag(ev ** -0.5) @ V.T
    np.testing.assert_allclose(Ps.transform(Xs), X @ Hm, atol=1e-9)
    # the shifts: the sampled rows give up (m/s) beta of curvature, the others none
    assert set(np.unique(Ps.shift)) == {0.0, 150 / 30}
    assert Ps.numerical_rank == pytest.approx(np.einsum("ij,ij->i", S @ Hm, S @ Hm).mean())


def test_coordinates_of_sparse_rows():
    """Q = X U and ||x_i||^2 from the one-pass kernel: rows of every length (the 4-way
    unrolled sum and its remainder), empty rows, features outside the sample."""
    rng = np.random.default_rng(5)
    m, n = 120, 40
    X = rng.standard_normal((m, n)) * (rng.random((m, n)) < rng.random((m, 1)) * 0.5)
    X[:3] = 0.0                                  # empty rows
    X[3:9] = rng.standard_normal((6, n))         # full rows
    X[9, :] = 0.0
    X[9, 39] = 2.0                               # a single entry, possibly outside S
    Xs = sp.csr_matrix(X)
    for s in (None, 1, 7, 120):
        P = rlmlib.precondition(Xs, sigma=SIGMA, beta=0.5, m=s, seed=2)
        U = P.U
        np.testing.assert_allclose(P.Q, X @ U, atol=1e-12 * max(1.0, np.abs(X @ U).max()))
        Hm = P.matrix()
        np.testing.assert_allclose(P.norms2, np.einsum("ij,ij->i", X @ Hm, X @ Hm),
                                   rtol=1e-9, atol=1e-13)
        if s is not None and s < m:
            outside = np.setdiff1d(np.arange(n), Xs[P.sample].indices)
            assert np.all(np.abs(U[outside]) == 0.0)


def test_diagnostics_computed_on_first_access():
    X, _ = problem("squared", m=100, n=8)
    P = rlmlib.precondition(X, sigma=SIGMA, beta=0.5, m=20)
    assert not {"_gamma", "_coherence", "_mean_norm2"} & set(vars(P))
    gamma = P.numerical_rank
    assert gamma == pytest.approx(numerical_rank(P.eigenvalues, SIGMA / 0.5), rel=1e-12)
    assert P.coherence == pytest.approx(P.norms2.max() / gamma)
    assert P.mean_norm2 == pytest.approx(P.norms2.mean())
    assert {"_gamma", "_coherence", "_mean_norm2"} <= set(vars(P))


def test_sampled_with_all_rows_is_exact():
    X, y = problem("squared", m=80, n=6)
    Pe = rlmlib.precondition(X, sigma=SIGMA, beta=1.0)
    Ps = rlmlib.precondition(X, sigma=SIGMA, beta=1.0, m=80)
    np.testing.assert_allclose(Ps.matrix(), Pe.matrix(), atol=1e-10)
    np.testing.assert_allclose(Ps.shift, 1.0)


def test_condition_numbers_exact():
    X, _ = problem("squared", m=200, n=10)
    k = rlmlib.condition_numbers(X, sigma=1e-3, beta=0.5, loss="squared")
    assert k["method"] == "exact"
    R2 = np.max(np.sum(X * X, axis=1))
    assert k["kappa"] == pytest.approx((R2 + 1e-3) / 1e-3)
    P = rlmlib.precondition(X, sigma=1e-3, beta=0.5)
    assert k["kappa_hat"] == pytest.approx(1 + (1 / 0.5 - 1) * P.norms2.max())
    assert k["kappa_hat"] < k["kappa"]
    ks = rlmlib.condition_numbers(sp.csr_matrix(X), sigma=1e-3, beta=0.5, loss="squared",
                                  m=50)
    assert ks["method"].startswith("estimated")


def test_logistic_beta():
    assert logistic_beta(0.0) == 0.25
    R = 2.0
    zs = np.linspace(-R, R, 2001)
    curv = np.exp(zs) / (1 + np.exp(zs)) ** 2
    assert logistic_beta(R) == pytest.approx(curv.min(), rel=1e-12)
    assert logistic_beta(700.0) == pytest.approx(np.exp(-700.0), rel=1e-14)
    assert logistic_beta(41.0) == pytest.approx(1 / (2 + np.exp(41.0)), rel=1e-15)
    with pytest.raises(ValueError, match="underflows"):
        logistic_beta(800.0)
    with pytest.raises(ValueError, match="R must be"):
        logistic_beta(-1.0)


def test_spam_sized_sparse_not_densified():
    """48,407 features with s = 5 rows: memory O(n s + m s), a dense copy would be 2 GB."""
    rng = np.random.default_rng(0)
    X = sp.random(300, 48_407, density=2e-3, format="csr", random_state=0)
    y = np.where(rng.standard_normal(300) > 0, 1.0, -1.0)
    P = rlmlib.precondition(X, sigma=1e-3, beta=0.2, m=5)
    assert P.U.shape == (48_407, 5) and P.Q.shape == (300, 5)
    res = rlmlib.sag(X, y, sigma=1e-3, epochs=2, loss="logistic", precondition=P)
    assert res.w.shape == (48_407,) and np.isfinite(res.objective)
    with pytest.raises(ValueError, match="exact preconditioner"):
        rlmlib.precondition(X, sigma=1e-3, beta=0.2)


def test_bad_inputs():
    X, y = problem("squared", m=50, n=4)
    with pytest.raises(ValueError, match="sigma"):
        rlmlib.precondition(X, sigma=0.0, beta=1.0)
    with pytest.raises(ValueError, match="beta"):
        rlmlib.precondition(X, sigma=1.0, beta=-1.0)
    with pytest.raises(ValueError, match="beta must be in \\(0, 0.25\\]"):
        rlmlib.precondition(X, sigma=1.0, beta=0.3, loss="logistic")
    with pytest.raises(ValueError, match="m must be"):
        rlmlib.precondition(X, sigma=1.0, beta=1.0, m=0)
    with pytest.raises(ValueError, match="m must be"):
        rlmlib.precondition(X, sigma=1.0, beta=1.0, m=51)
    P = rlmlib.precondition(X, sigma=1.0, beta=0.5)
    with pytest.raises(ValueError, match="beta must be in \\(0, 0.25\\]"):
        rlmlib.sag(X, np.sign(y), sigma=1.0, epochs=1, loss="logistic", precondition=P)
    with pytest.raises(ValueError, match="built for sigma"):
        rlmlib.svrg(X, y, sigma=2.0, epochs=1, loss="squared", precondition=P)
    with pytest.raises(ValueError, match="another X"):
        rlmlib.sag(X[:40], y[:40], sigma=1.0, epochs=1, loss="squared", precondition=P)
    with pytest.raises(TypeError, match="Preconditioner"):
        rlmlib.sag(X, y, sigma=1.0, epochs=1, loss="squared", precondition=np.eye(4))
    with pytest.raises(ValueError, match="loss must be"):
        rlmlib.svrg(X, np.sign(y), sigma=1.0, epochs=1, loss="hinge")
    with pytest.raises(ValueError, match="sigma"):
        rlmlib.sag(X, y, sigma=-1.0, epochs=1, loss="squared")
    with pytest.raises(ValueError, match="inner"):
        rlmlib.svrg(X, y, sigma=1.0, epochs=1, loss="squared", inner=0)
    with pytest.raises(ValueError, match="step"):
        rlmlib.sag(X, y, sigma=1.0, epochs=1, loss="squared", step=0.0)
    with pytest.raises(TypeError, match="sigma"):
        rlmlib.sag(X, y, lam=1.0, epochs=1, loss="squared")


def test_trace_independent_of_checkpoints():
    X, y = problem("logistic", m=100, n=5)
    for solver in (rlmlib.sag, rlmlib.svrg):
        a = solver(X, y, sigma=SIGMA, epochs=6, loss="logistic")
        b = solver(X, y, sigma=SIGMA, epochs=6, loss="logistic", n_checkpoints=3)
        np.testing.assert_allclose(a.w, b.w, rtol=1e-12)
        assert b.trace.epoch[-1] >= 6


BOUNDS_CODE = """
import numpy as np, scipy.sparse as sp, rlmlib
rng = np.random.default_rng(0)
X = rng.standard_normal((30, 6)); y = np.where(X[:, 0] > 0, 1, -1)
Xs = sp.random(30, 50, density=0.2, format="csr", random_state=1)
for A in (X, Xs):
    for P in (None, rlmlib.precondition(A, sigma=0.1, beta=0.2, m=4),
              rlmlib.precondition(A, sigma=0.1, beta=0.2)):
        for epochs in (1, 3):
            rlmlib.sag(A, y, sigma=0.1, epochs=epochs, loss="logistic", precondition=P,
                       n_checkpoints=2)
            rlmlib.svrg(A, y, sigma=0.1, epochs=epochs, loss="logistic", precondition=P,
                        inner=7, n_checkpoints=2)
print("ok")
"""


def test_kernels_in_bounds(tmp_path):
    """sag/svrg kernels (with the look-ahead prefetch) under numba's bounds checking."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", BOUNDS_CODE], env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_beta_over_sigma_beyond_the_digits_is_refused():
    """beta/sigma up to 1e300 was accepted without a loss; beyond ~1e12 the inverse's
    alpha_2 I + U diag(e) U^T cancels every digit."""
    import numpy as np
    import pytest

    import rlmlib

    X = np.random.default_rng(0).standard_normal((20, 4))
    with pytest.raises(ValueError, match=r"^beta/sigma = 1e\+14 .* above 1e\+12"):
        rlmlib.precondition(X, sigma=1e-14, beta=1.0)
    rlmlib.precondition(X, sigma=1e-11, beta=1.0)  # inside: built


def test_built_on_a_row_permutation_is_refused():
    """A preconditioner built on X with its rows permuted keeps per-row quantities of the
    wrong rows: it passed the 'built for another X' check and the run diverged."""
    import numpy as np
    import pytest

    import rlmlib

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 4)) * rng.uniform(0.1, 3.0, (40, 1))
    y = np.where(X[:, 0] > 0, 1, -1)
    P = rlmlib.precondition(X[::-1], sigma=0.1, beta=0.25)
    with pytest.raises(ValueError, match="built for another X"):
        rlmlib.sag(X, y, sigma=0.1, epochs=1, loss="logistic", precondition=P)
    rlmlib.sag(X[::-1], y[::-1], sigma=0.1, epochs=1, loss="logistic", precondition=P)
