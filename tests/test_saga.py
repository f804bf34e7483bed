"""SAGA (and SAG, SVRG): equality with the literal NumPy transcriptions of the algorithm
boxes (rlmlib.book.vr), dense = sparse, the optimum certified by rlmlib.lbfgs (l2) or by the
optimality conditions (l1), and errors on bad input."""
import math
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.book.vr import draws, lsvrg_literal, saga_literal, sag_literal, svrg_literal


def problem(loss, m=120, n=9, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n)) / np.arange(1, n + 1)
    X *= rng.random((m, n)) < 0.4  # sparse rows: the just-in-time updates are exercised
    z = X @ rng.standard_normal(n)
    y = z + 0.1 * rng.standard_normal(m) if loss == "squared" else np.where(z > 0, 1.0, -1.0)
    return X, y


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * np.abs(b).max())


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("penalty", ["l2", "l1"])
@pytest.mark.parametrize("sparse", [False, True])
def test_saga_equals_its_box(loss, penalty, sparse):
    X, y = problem(loss)
    sigma, epochs = 0.02, 4
    A = sp.csr_matrix(X) if sparse else X
    res = rlmlib.saga(A, y, sigma=sigma, epochs=epochs, loss=loss, penalty=penalty, seed=3)
    ref = saga_literal(X, y, sigma, res.params["step"], draws(len(y), epochs * len(y),
                       seed=3), loss=loss, penalty=penalty)
    close(res.w, ref)


def test_saga_l1_catch_up_with_large_table():
    # ḡ_k beyond σ drives a rarely read coordinate through zero: the closed-form catch-up
    # (which walks the sign change) must equal the step-by-step box
    rng = np.random.default_rng(5)
    X = np.zeros((60, 4))
    X[:, 0] = rng.standard_normal(60) * 3
    X[::7, 1] = 1.0
    X[::11, 2] = -2.0
    X[:, 3] = rng.standard_normal(60)
    y = np.where(X[:, 0] + X[:, 2] > 0, 1.0, -1.0)
    for sigma in (1e-4, 0.05, 0.3):
        res = rlmlib.saga(sp.csr_matrix(X), y, sigma=sigma, epochs=5, penalty="l1",
                          step=0.05, seed=1)
        ref = saga_literal(X, y, sigma, 0.05, draws(60, 300, seed=1), penalty="l1")
        close(res.w, ref)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_sag_svrg_equal_their_boxes(loss):
    X, y = problem(loss)
    m, sigma = len(y), 0.02
    res = rlmlib.sag(sp.csr_matrix(X), y, sigma=sigma, epochs=3, loss=loss, seed=2)
    close(res.w, sag_literal(X, y, sigma, res.params["step"], draws(m, 3 * m, seed=2), loss))
    res = rlmlib.svrg(X, y, sigma=sigma, epochs=6, loss=loss, inner=m // 2, seed=2)
    stages = res.params["stages"]
    ref = svrg_literal(X, y, sigma, res.params["step"], m // 2, stages,
                       draws(m, stages * (m // 2), seed=2), loss)
    close(res.w, ref)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_svrg_random_snapshot_equals_option_two(loss):
    # snapshot='random': the iterate before the drawn inner step t becomes the snapshot
    X, y = problem(loss)
    m, sigma = len(y), 0.02
    res = rlmlib.svrg(sp.csr_matrix(X), y, sigma=sigma, epochs=6, loss=loss,
                      inner=m // 2, seed=2, snapshot="random")
    stages, picks = res.params["stages"], res.info["snapshot_steps"]
    assert len(picks) == stages and all(0 <= t < m // 2 for t in picks)
    assert len(set(picks)) > 1                        # drawn, not a constant
    ref = svrg_literal(X, y, sigma, res.params["step"], m // 2, stages,
                       draws(m, stages * (m // 2), seed=2), loss, snap_steps=picks)
    close(res.w, ref)
    last = svrg_literal(X, y, sigma, res.params["step"], m // 2, stages,
                        draws(m, stages * (m // 2), seed=2), loss)
    assert np.abs(res.w - last).max() > 1e-6 * np.abs(last).max()   # not option I


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("sparse", [False, True])
def test_svrg_loopless_equals_its_box(loss, sparse):
    # snapshot='loopless': a coin before each step k; where it comes up, w_k (where step
    # k read its example) is the snapshot of steps k + 1, ...; step k uses the old one
    X, y = problem(loss)
    m, sigma, inner = len(y), 0.02, 15
    A = sp.csr_matrix(X) if sparse else X
    res = rlmlib.svrg(A, y, sigma=sigma, epochs=6, loss=loss, inner=inner, seed=2,
                      snapshot="loopless")
    steps, coins = res.params["stages"] * inner, res.info["snapshot_steps"]
    assert coins == sorted(set(coins)) and 0 <= coins[0] and coins[-1] < steps
    # p = 1/15 over `steps` independent coins: the count within 5 standard deviations
    assert abs(len(coins) - steps / inner) < 5 * (steps / inner) ** 0.5
    assert res.info["snapshots"] == len(coins) + 1
    ref = lsvrg_literal(X, y, sigma, res.params["step"], draws(m, steps, seed=2), coins,
                        loss)
    close(res.w, ref)
    other = lsvrg_literal(X, y, sigma, res.params["step"], draws(m, steps, seed=2),
                          [k + 1 for k in coins], loss)      # snapshot one step later
    assert np.abs(res.w - other).max() > 1e-9 * np.abs(other).max()


def test_svrg_loopless_converges_to_the_certified_optimum():
    X, y = problem("logistic", m=200)
    ref = rlmlib.lbfgs(X, y, sigma=0.1, loss="logistic", tol=1e-12)
    res = rlmlib.svrg(X, y, sigma=0.1, epochs=40, loss="logistic", snapshot="loopless")
    assert res.objective - ref.objective < 1e-8 * ref.objective
    grad = X.T @ (-y / (1 + np.exp(y * (X @ res.w)))) / len(y) + 0.1 * res.w
    assert np.linalg.norm(grad) < 1e-6                       # optimality condition
    # the budget buys the expected cost; the actual one is reported
    assert abs(res.info["passes"] - res.trace.epoch[-1]) < 0.5 * res.trace.epoch[-1]


def test_svrg_random_snapshot_converges_and_checks_its_argument():
    X, y = problem("logistic", m=200)
    ref = rlmlib.lbfgs(X, y, sigma=0.1, loss="logistic", tol=1e-12).objective
    res = rlmlib.svrg(X, y, sigma=0.1, epochs=40, loss="logistic", snapshot="random")
    assert res.objective - ref < 1e-8 * ref
    with pytest.raises(ValueError, match="snapshot must be one of 'last', 'random', "
                                         "'loopless'; got 'mid'"):
        rlmlib.svrg(X, y, sigma=0.1, epochs=1, loss="logistic", snapshot="mid")


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("penalty", ["l2", "l1"])
def test_dense_equals_sparse(loss, penalty):
    X, y = problem(loss, m=200)
    a = rlmlib.saga(X, y, sigma=0.01, epochs=5, loss=loss, penalty=penalty)
    b = rlmlib.saga(sp.csr_matrix(X), y, sigma=0.01, epochs=5, loss=loss, penalty=penalty)
    close(a.w, b.w)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("sparse", [False, True])
def test_l2_reaches_certified_optimum(loss, sparse):
    X, y = problem(loss, m=300)
    A = sp.csr_matrix(X) if sparse else X
    ref = rlmlib.lbfgs(A, y, sigma=0.01, loss=loss, tol=1e-12)
    assert ref.info["converged"]
    res = rlmlib.saga(A, y, sigma=0.01, epochs=150, loss=loss)
    assert res.objective == pytest.approx(
        rlmlib.objective(A, y, res.w, sigma=0.01, loss=loss), rel=1e-12)
    assert res.objective - ref.objective < 1e-10 * ref.objective
    np.testing.assert_allclose(res.w, ref.w, atol=1e-5 * np.abs(ref.w).max())


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_l1_optimality_conditions(loss):
    # w minimizes σ‖w‖₁ + f iff ∇f(w)_k = -σ sign(w_k) where w_k ≠ 0, |∇f(w)_k| <= σ else
    X, y = problem(loss, m=300)
    sigma = 0.01
    res = rlmlib.saga(sp.csr_matrix(X), y, sigma=sigma, epochs=300, loss=loss, penalty="l1")
    z = X @ res.w
    d = z - y if loss == "squared" else -y / (1 + np.exp(y * z))
    grad = X.T @ d / len(y)
    nz = res.w != 0
    assert 0 < nz.sum() < len(res.w)  # the test has both kinds of coordinates
    np.testing.assert_allclose(grad[nz], -sigma * np.sign(res.w[nz]), atol=1e-9)
    assert np.all(np.abs(grad[~nz]) <= sigma + 1e-9)
    # and the objective reported is the l1 one
    F = np.mean(0.5 * (z - y) ** 2 if loss == "squared" else np.log1p(np.exp(-y * z)))
    assert res.objective == pytest.approx(F + sigma * np.abs(res.w).sum(), rel=1e-12)


def test_trace_independent_of_checkpoints():
    X, y = problem("logistic")
    a = rlmlib.saga(sp.csr_matrix(X), y, sigma=0.01, epochs=4)
    b = rlmlib.saga(sp.csr_matrix(X), y, sigma=0.01, epochs=4, n_checkpoints=7)
    close(a.w, b.w)
    assert np.all(np.diff(b.trace.objective[1:]) < 0.05)


def test_bad_inputs():
    X, y = problem("logistic")
    with pytest.raises(ValueError, match="penalty"):
        rlmlib.saga(X, y, sigma=0.1, penalty="l3")
    with pytest.raises(ValueError, match="loss must be one of 'squared', 'logistic'"):
        rlmlib.saga(X, y, sigma=0.1, loss="hinge")
    with pytest.raises(ValueError, match="step"):
        rlmlib.saga(X, y, sigma=0.1, step=-1.0)
    with pytest.raises(ValueError, match="sigma"):
        rlmlib.saga(X, y, sigma=0.0)
    with pytest.raises(ValueError, match="epochs"):
        rlmlib.saga(X, y, sigma=0.1, epochs=0)
    with pytest.raises(TypeError, match="sigma"):
        rlmlib.saga(X, y, lam=0.1)
    with pytest.raises(ValueError):
        rlmlib.saga(X, y[:-1], sigma=0.1)


@pytest.mark.parametrize("name", ["saga", "sag", "svrg"])
def test_a_step_beyond_2_over_Lmax_warns_alike_before_the_run(name):
    # saga took step=1e21 in silence where sag and svrg warn (issue 18: one behaviour)
    from rlmlib.solvers.limits import StepLimitWarning

    X, y = problem("logistic")
    Lmax = 0.25 * float((X ** 2).sum(1).max()) + (0.0 if name == "saga" else 0.1)
    f = rlmlib.SOLVERS[name]
    import re
    import warnings

    with warnings.catch_warnings(record=True) as rec:   # (a ConvergenceWarning may follow)
        warnings.simplefilter("always")
        f(X, y, sigma=0.1, epochs=1, loss="logistic", step=3.0 / Lmax).objective
    limit = [r for r in rec if issubclass(r.category, StepLimitWarning)]
    assert len(limit) == 1, [str(r.message) for r in rec]
    assert re.match(rf"{name}: step=.* exceeds the stability limit 2/L_max = {2 / Lmax:.3g} "
                    rf"\(L_max = max_i smoothness \* \|\|x_i\|\|\^2.* = {Lmax:.3g}\): the "
                    rf"iterates may grow", str(limit[0].message)), str(limit[0].message)
    assert limit[0].filename == __file__   # it points at the caller's line
    f(X, y, sigma=0.1, epochs=1, loss="logistic", step=1.9 / Lmax)   # no warning: errors


def test_soft_thresholding_is_the_case_by_case_form_to_the_bit():
    from rlmlib.solvers.l1 import soft

    def cases(u, a):
        if u > a:
            return u - a
        if u < -a:
            return u + a
        return u if u != u else 0.0

    rng = np.random.default_rng(3)
    a_s = np.concatenate([[0.0, 1e-300, 0.5], rng.exponential(size=200)])
    u_s = np.concatenate([[0.0, -0.0, 0.5, -0.5, np.inf, -np.inf, 1e-310],
                          rng.standard_normal(200) * 2])
    for a in a_s:
        for u in u_s:
            got, want = soft(u, a), cases(u, a)
            assert got == want and np.signbit(got) == np.signbit(want), (u, a, got, want)
    assert math.isnan(soft(math.nan, 0.5))


def test_l1_catch_up_with_small_average_gradient_is_the_step_loop():
    # |c| <= sigma: the k steps are one soft thresholding of u - k eta c at k eta sigma
    from rlmlib.solvers.saga import l1_catch_up

    rng = np.random.default_rng(4)
    for _ in range(2000):
        sigma, eta = rng.exponential(), rng.exponential()
        c = rng.uniform(-sigma, sigma)
        u, k = rng.standard_normal() * 3, int(rng.integers(0, 60))
        v = u
        for _ in range(k):
            z = v - eta * c
            v = math.copysign(max(abs(z) - eta * sigma, 0.0), z)
        assert abs(l1_catch_up(u, c, eta, eta * sigma, float(k)) - v) <= 1e-12 * (
            1 + abs(u) + k * eta * (abs(c) + sigma))
