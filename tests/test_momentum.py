"""sgd_momentum and catalyst: equality with the literal NumPy transcriptions of their
algorithm boxes (rlmlib.book.momentum), the exact rescaled-step form of heavy ball,
dense = sparse, optima certified by rlmlib.lbfgs, Catalyst with tau = 0 is SAGA, Catalyst's
certified mode against its box and the book's outer theorem, and errors on bad input."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.book.momentum import (averaged_sgd_literal, catalyst_literal,
                                  catalyst_residuals, sgd_momentum_literal)
from rlmlib.book.vr import draws
from rlmlib.solvers.sgd_momentum import momentum_matrix, power_table
from test_saga import close, problem  # sparse random rows; equality to 1e-12


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("nesterov", [False, True])
@pytest.mark.parametrize("order", ["reshuffle", "replacement"])
def test_sgd_momentum_equals_its_box(loss, nesterov, order):
    X, y = problem(loss)
    m, epochs = len(y), 4
    res = rlmlib.sgd_momentum(sp.csr_matrix(X), y, sigma=0.03, epochs=epochs, loss=loss,
                              beta=0.8, nesterov=nesterov, seed=4, order=order)
    ref = sgd_momentum_literal(X, y, 0.03, res.params["step"], 0.8,
                               draws(m, epochs * m, order, seed=4), loss, nesterov)
    close(res.w, ref)


def test_lazy_catch_up_over_long_gaps():
    # a feature read once in 150 steps: A^Δ from the table must equal Δ single steps,
    # in the real-root and the complex-root regime of A (large step * sigma)
    rng = np.random.default_rng(1)
    X = np.zeros((150, 3))
    X[:, 0] = rng.standard_normal(150)
    X[0, 1] = 2.0
    X[::50, 2] = 1.0
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    for sigma, step in ((1e-3, 0.05), (0.5, 0.4)):
        A, _ = momentum_matrix(step, 0.9, sigma, False)
        assert (np.trace(A) ** 2 < 4 * np.linalg.det(A)) == (sigma == 0.5)
        res = rlmlib.sgd_momentum(sp.csr_matrix(X), y, sigma=sigma, epochs=3, step=step,
                                  order="cyclic")
        close(res.w, sgd_momentum_literal(X, y, sigma, step, 0.9, list(range(150)) * 3))


def test_power_table_is_cayley_hamilton():
    for nesterov in (False, True):
        A, _ = momentum_matrix(0.3, 0.7, 0.2, nesterov)
        U = power_table(A, 30)
        delta = np.linalg.det(A)
        for d in (1, 2, 7, 30):
            np.testing.assert_allclose(U[d] * A - delta * U[d - 1] * np.eye(2),
                                       np.linalg.matrix_power(A, d), rtol=1e-12,
                                       atol=1e-15)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_heavy_ball_is_sgd_with_rescaled_step(loss):
    X, y = problem(loss)
    idx = draws(len(y), 5 * len(y), "reshuffle", seed=2)
    for beta in (0.0, 0.5, 0.95):
        res = rlmlib.sgd_momentum(X, y, sigma=0.02, epochs=5, loss=loss, beta=beta, seed=2)
        close(res.w, averaged_sgd_literal(X, y, 0.02, res.params["step"], beta, idx, loss))
        assert res.params["effective_step"] == res.params["step"] / (1 - beta)
    # beta = 0 is plain SGD with step eta
    res = rlmlib.sgd_momentum(X, y, sigma=0.02, epochs=5, loss=loss, beta=0.0, step=0.05,
                              seed=2)
    close(res.w, sgd_momentum_literal(X, y, 0.02, 0.05, 0.0, idx, loss))


def test_nesterov_line_is_sgd_with_rescaled_step():
    """ex-mom-rescaled-nesterov: with Nesterov's line w+ = w - eta (g + beta v+), the point
    u_t = w_t + beta/(1 - beta) (w_t - w_{t-1}) + eta beta/(1 - beta) g_{t-1} moves by
    -eta/(1 - beta) g_t (the sign of the g_{t-1} term matters: with - it does not)."""
    rng = np.random.default_rng(3)
    eta, beta = 0.3, 0.7
    g = rng.standard_normal((20, 4))
    w, v, g_prev = rng.standard_normal(4), np.zeros(4), np.zeros(4)
    w_prev = w.copy()

    def u(sign):
        return w + beta / (1 - beta) * (w - w_prev) + sign * eta * beta / (1 - beta) * g_prev

    for t in range(20):
        before = {s: u(s) for s in (1, -1)}
        v = beta * v + g[t]
        w_next = w - eta * (g[t] + beta * v)
        close(w_next, w - eta * (1 + beta) * g[t] + eta * beta * g_prev
              + beta * (w - w_prev))
        w_prev, w, g_prev = w, w_next, g[t]
        close(u(1) - before[1], -eta / (1 - beta) * g[t])
        if t:
            assert not np.allclose(u(-1) - before[-1], -eta / (1 - beta) * g[t])


@pytest.mark.parametrize("solver", ["sgd_momentum", "catalyst"])
def test_dense_equals_sparse(solver):
    X, y = problem("logistic", m=150)
    f = rlmlib.SOLVERS[solver]
    close(f(X, y, sigma=0.01, epochs=4).w, f(sp.csr_matrix(X), y, sigma=0.01, epochs=4).w)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_catalyst_equals_its_box(loss):
    X, y = problem(loss)
    m = len(y)
    for tau, inner in ((0.3, None), (2.0, 40)):
        res = rlmlib.catalyst(sp.csr_matrix(X), y, sigma=1e-3, epochs=4, loss=loss,
                              tau=tau, seed=3)
        ref = catalyst_literal(X, y, 1e-3, res.params["step"], tau,
                               draws(m, 4 * m, seed=3), loss)
        close(res.w, ref)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("sparse", [False, True])
def test_catalyst_certified_equals_its_box(loss, sparse):
    X, y = problem(loss)
    m = len(y)
    res = rlmlib.catalyst(sp.csr_matrix(X) if sparse else X, y, sigma=1e-3, epochs=30,
                          loss=loss, tau=0.5, certify=True, seed=3)
    idx = draws(m, 30 * m, seed=3)
    ref = catalyst_literal(X, y, 1e-3, res.params["step"], 0.5, idx, loss, certify=True)
    close(res.w, ref)
    r, d, _ = catalyst_residuals(X, y, 1e-3, res.params["step"], 0.5, idx, loss,
                                 certify=True)
    k = res.info["outer_iterations"]
    assert 3 <= k == len(r) < 30 and res.info["certificate_passes"] > k
    np.testing.assert_allclose(res.info["residual_ratios"], r / d, rtol=1e-6)
    assert res.info["residual_ratios"].max() <= 1


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_catalyst_certified_run_meets_the_outer_theorem(loss):
    # thm-mom-catalyst: F(x_k) - F* <= 8 (1 - sqrt q)^{k+1} D,
    # D = |grad F(0)|^2/(2 sigma)
    X, y = problem(loss, m=120)
    sigma, tau = 1e-3, 0.3
    F = ((lambda w: 0.5 * np.mean((X @ w - y) ** 2)) if loss == "squared" else
         (lambda w: np.mean(np.logaddexp(0.0, -y * (X @ w)))))
    ref = rlmlib.lbfgs(X, y, sigma=sigma, loss=loss, tol=1e-13).objective
    step = rlmlib.catalyst(X, y, sigma=sigma, epochs=1, loss=loss,
                           tau=tau).params["step"]
    r, d, xs = catalyst_residuals(X, y, sigma, step, tau, draws(120, 40 * 120, seed=0),
                                  loss, certify=True)
    g0 = (X.T @ (-y if loss == "squared" else -y / 2) / 120)
    D = np.sum(g0**2) / (2 * sigma)
    q = sigma / (sigma + tau)
    gaps = np.array([F(x) + sigma / 2 * x @ x - ref for x in xs])
    bound = 8 * (1 - np.sqrt(q)) ** (np.arange(len(xs)) + 1) * D
    assert len(xs) >= 5 and np.all(r <= d) and np.all(gaps <= bound), (gaps / bound)
    # one pass per subproblem (the default) leaves the tolerance at once on these rows
    r1, d1, _ = catalyst_residuals(X, y, sigma, step, tau, draws(120, 10 * 120, seed=0),
                                   loss)
    assert np.any(r1 > d1)


def test_catalyst_with_tau_zero_is_saga():
    X, y = problem("logistic")
    a = rlmlib.catalyst(X, y, sigma=0.05, epochs=6, tau=0.0, seed=1)
    b = rlmlib.saga(X, y, sigma=0.05, epochs=6, seed=1)
    close(a.w, b.w)
    assert a.params["extrapolation"] == 0.0


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_catalyst_reaches_certified_optimum(loss):
    X, y = problem(loss, m=200)
    ref = rlmlib.lbfgs(X, y, sigma=1e-3, loss=loss, tol=1e-13)
    res = rlmlib.catalyst(sp.csr_matrix(X), y, sigma=1e-3, epochs=200, loss=loss)
    assert res.params["tau"] > 0  # the accelerated regime, kappa > m
    assert -1e-12 <= res.objective / ref.objective - 1 < 1e-8
    np.testing.assert_allclose(res.w, ref.w, atol=1e-3 * np.abs(ref.w).max())


def test_sgd_momentum_noise_floor_scales_with_the_step():
    # constant step: the gap to the certified optimum falls with the effective step
    X, y = problem("logistic", m=200)
    ref = rlmlib.lbfgs(X, y, sigma=0.01, loss="logistic").objective
    gaps = [rlmlib.sgd_momentum(X, y, sigma=0.01, epochs=200, beta=0.9, step=s).objective
            - ref for s in (4e-2, 4e-3)]
    assert 0 < gaps[1] < 0.3 * gaps[0] and gaps[0] < 1e-2 * ref, gaps


def test_bad_input_is_named():
    X, y = problem("logistic")
    with pytest.raises(ValueError, match="beta"):
        rlmlib.sgd_momentum(X, y, sigma=0.1, beta=1.0)
    with pytest.raises(TypeError, match="nesterov"):
        rlmlib.sgd_momentum(X, y, sigma=0.1, nesterov="yes")
    with pytest.raises(ValueError, match="loss"):
        rlmlib.sgd_momentum(X, y, sigma=0.1, loss="hinge")
    with pytest.raises(ValueError, match="tau"):
        rlmlib.catalyst(X, y, sigma=0.1, tau=-1.0)
    with pytest.raises(ValueError, match="inner"):
        rlmlib.catalyst(X, y, sigma=0.1, inner=0)
    with pytest.raises(ValueError, match="step"):
        rlmlib.catalyst(X, y, sigma=0.1, step=0.0)
    with pytest.raises(TypeError, match="certify"):
        rlmlib.catalyst(X, y, sigma=0.1, certify="yes")
