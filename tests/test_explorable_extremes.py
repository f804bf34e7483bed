"""The library calls behind the book's explorables (besides kappa and gram_condition,
tests/test_explore.py) at the corners of their sliders' grids: each returns finite values
or raises a named error a compute function can show. The grids are the pages' (the
chapter named in each test); the data are small stand-ins of the pages' sets.

Nothing here needed a fix in the library when it was written: these tests pin what the
readers' sliders reach (a diverged run raises a FloatingPointError naming its step when its
objective is read; a short run that ends above F(0) says so and names the run length).
"""
import itertools
import warnings

import numpy as np
import pytest

import rlmlib
from rlmlib.book import momentum as mom
from rlmlib.book.explore import pgs_constants, rescaled_condition
from rlmlib.book.vr import gap_curves
from rlmlib.datasets import synthetic

#: the errors a compute function may meet and show (with a message naming the cause)
NAMED = (ValueError, FloatingPointError)


def finite(*arrays):
    return all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in arrays)


def corners(grid):
    """The first and last value of each control: every combination."""
    keys = list(grid)
    return [dict(zip(keys, v)) for v in itertools.product(*([g[0], g[-1]]
                                                             for g in grid.values()))]


@pytest.fixture(scope="module")
def sparse():
    return synthetic.rcv1_like(m=300, n=100, nnz_per_row=10, seed=5)


def test_momentum_heavy_ball_corners():
    """chapters/momentum/index.md: beta 0 .. 0.99, sigma 1e-1 .. 1e-3, c 0.5 .. 2 (step
    c / L: c = 2 is gradient descent's stability limit)."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((50, 6)) * np.geomspace(1, 10, 6)
    C = A.T @ A / 50
    Cy = rng.standard_normal(6)
    base = np.linalg.eigvalsh(C)
    for v in corners({"beta": [0.0, 0.99], "sigma": [1e-1, 1e-3], "c": [0.5, 2.0]}):
        eigs = base + v["sigma"]
        L, mu = eigs.max(), eigs.min()
        W = mom.heavy_ball(lambda w: C @ w + v["sigma"] * w - Cy, np.zeros(6),
                           v["c"] / L, v["beta"], 200)
        rho = mom.heavy_ball_radius(v["c"] / L, v["beta"], eigs)
        assert finite(W, rho, mom.polyak_parameters(L, mu)), v
        assert 0 <= rho <= 1 + 1e-12, v     # c <= 2: never outside the stable region


def test_momentum_heavy_ball_stochastic_corners():
    """chapters/momentum/index.md, stochastic mode: beta 0 .. 0.9, sigma 1e-1 .. 1e-3,
    c 0.5 .. 2, mini-batches of 64 rows: the gaps start at 1 and are finite until a run
    diverges (then inf to the end, never NaN, no warning); the predicted floor is finite
    and positive inside the stable range of the additive model and inf outside."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((120, 6)) * np.geomspace(1, 10, 6)
    b = np.sign(rng.standard_normal(120))
    base = np.linalg.eigvalsh(A.T @ A / 120)
    seen_diverged = False
    for v in corners({"beta": [0.0, 0.9], "sigma": [1e-1, 1e-3], "c": [0.5, 2.0]}):
        eigs = base + v["sigma"]
        eta = v["c"] / eigs.max()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            gap = mom.heavy_ball_minibatch(A, b, v["sigma"], eta, v["beta"], 64, 400)
            floor = mom.minibatch_noise_floor(A, b, v["sigma"], eta, v["beta"], 64)
        assert gap[0] == 1.0 and not np.isnan(gap).any(), v
        bad = np.flatnonzero(~np.isfinite(gap))
        assert bad.size == 0 or (bad == np.arange(bad[0], len(gap))).all(), v
        seen_diverged |= bad.size > 0
        limit = 2 * (1 + v["beta"])
        if np.any(np.isclose(eta * eigs, limit, rtol=1e-9)):
            assert floor > 0, v      # c = 2, beta = 0: on the boundary, either answer
        elif np.all(eta * eigs < limit):
            assert 0 < floor < np.inf, v
        else:
            assert floor == np.inf, v
    # a step far beyond every limit: the run stops at 1e12 and says so with inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gap = mom.heavy_ball_minibatch(A, b, 1e-3, 50 / base.max(), 0.9, 64, 400)
    assert np.isinf(gap[-1]) and np.isfinite(gap[:2]).all()


def test_adaptive_adam_corners(sparse):
    """chapters/adaptive/index.md: beta1 0 .. 0.9, beta2 0.1 .. 0.999, step 1e-3 .. 1e-2;
    the readout's kappa(H B) with Adam's diagonal B."""
    ref = rlmlib.lbfgs(sparse.X, sparse.y, sigma=1e-3, loss="logistic")
    for v in corners({"beta1": [0.0, 0.9], "beta2": [0.1, 0.999], "step": [1e-3, 1e-2]}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rlmlib.ConvergenceWarning)
            res = rlmlib.adam(sparse.X, sparse.y, sigma=1e-3, epochs=2, n_checkpoints=2,
                              **v)
        v_hat = res.info["v"] / (1 - v["beta2"] ** (2 * sparse.X.shape[0]))
        k = rescaled_condition(sparse.X, sparse.y, ref.w, sigma=1e-3,
                               B=1 / (np.sqrt(v_hat) + res.params["eps"]), loss="logistic")
        assert finite(res.w, res.trace.objective, k["kappa_H"], k["kappa_HB"]), v


def test_sgdqn_skip_and_t0_corners(sparse):
    """chapters/sgdqn/experiments.md: skip 1 .. 100,000 (beyond the run), t0 1e4 .. 1e6
    (1e4 below the stability limit on purpose); kappa(H B) with SGD-QN's B."""
    for v in corners({"skip": [1, 100_000], "t0": [1e4, 1e6]}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rlmlib.StepLimitWarning)
            warnings.simplefilter("ignore", rlmlib.ConvergenceWarning)
            a = rlmlib.svmsgd2(sparse.X, sparse.y, sigma=1e-4, epochs=2, n_checkpoints=2,
                               **v)
            b = rlmlib.sgdqn(sparse.X, sparse.y, sigma=1e-4, epochs=2, n_checkpoints=2,
                             **v)
        k = rescaled_condition(sparse.X, sparse.y, b.w, sigma=1e-4, B=b.info["B"],
                               loss=b.params["loss"])
        assert finite(a.w, b.w, a.trace.objective, b.trace.objective, k["kappa_HB"]), v


def test_vr_step_corners(sparse):
    """chapters/vr/experiments.md: sigma 1e-2 .. 1e-4, step_x 0.3 .. 3 (saga's step
    step_x / (3 L): 3 is the 1/L limit; svrg's default times step_x)."""
    L = 0.25 * float(sparse.X.multiply(sparse.X).sum(axis=1).max())
    for v in corners({"sigma": [1e-2, 1e-4], "step_x": [0.3, 3.0]}):
        svrg0 = rlmlib.svrg(sparse.X, sparse.y, sigma=v["sigma"], epochs=1,
                            loss="logistic")
        opts = {"saga": {"step": v["step_x"] / (3 * L)},
                "svrg": {"step": v["step_x"] * svrg0.params["step"]}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rlmlib.ConvergenceWarning)
            warnings.simplefilter("ignore", rlmlib.StepLimitWarning)
            try:
                c = gap_curves(sparse.X, sparse.y, v["sigma"], 3,
                               methods=("saga", "svrg", "sdca"), **opts)
            except NAMED as e:
                assert "step" in str(e), (v, e)
                continue
        for m in ("saga", "svrg", "sdca"):
            assert finite(c[m]["gap"], c[m]["epoch"]), (v, m)


def test_fiol_family_eta_corners():
    """chapters/fiol/experiments.md: eta 1e-3 .. 1 with the squared loss (eta = 1 passes
    2/L on purpose): finite, or a FloatingPointError naming eta when the Result's
    objective is read (comid at eta = 1 ends with weights near 1e199, finite but
    meaningless: the error, not the weights, is what a compute function must show)."""
    rng = np.random.default_rng(1)
    for d, rho in itertools.product((50, 200), (0.0, 0.5)):
        Z = rng.standard_normal((100, d))
        X = np.sqrt(1 - rho) * Z + np.sqrt(rho) * Z[:, :1]
        y = X[:, :5] @ np.ones(5) + 0.1 * rng.standard_normal(100)
        for name in ("fiol", "comid", "isgd", "sgd_l1"):
            for eta in (1e-3, 1.0):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", rlmlib.StepLimitWarning)
                        warnings.simplefilter("ignore", rlmlib.ConvergenceWarning)
                        r = rlmlib.SOLVERS[name](X, y, sigma=0.1, eta=eta, epochs=2,
                                                 loss="squared")
                        r.objective   # a diverged run raises here (its weights are junk)
                except FloatingPointError as e:
                    assert "eta" in str(e), (name, d, rho, eta, e)
                    continue
                obj = rlmlib.l1_objective(X, y, r.w, sigma=0.1, loss="squared")
                assert finite(r.w, obj), (name, d, rho, eta)


def test_precond_corners():
    """chapters/precond/experiments.md: m_hat 25 .. exact, sigma 1e-6 .. 1e-4, beta 0.1 ..
    0.5 (squared loss): the preconditioner and its condition numbers are finite."""
    d = synthetic.eigen_decay(400, 60, decay="poly", tau=2.0, seed=2)
    for v in corners({"m_hat": [25, None], "sigma": [1e-6, 1e-4], "beta": [0.1, 0.5]}):
        P = rlmlib.precondition(d.X, sigma=v["sigma"], beta=v["beta"], m=v["m_hat"])
        k = rlmlib.condition_numbers(d.X, sigma=v["sigma"], beta=v["beta"],
                                     loss="squared", precondition=P)
        assert finite(k["kappa"], k["kappa_hat"], P.coherence, P.numerical_rank), v
        assert k["kappa_hat"] >= 1 - 1e-9, v


def test_foundations_sgd_t0_corners():
    """chapters/foundations/sgd.md: sigma 1e-4 .. 1e-1, t0 1 .. 1e5 (a first step
    1/(sigma t0) up to 1e4): finite, or a named error that names t0."""
    bc = rlmlib.load_dataset("breast_cancer", standardize=True)
    Xu = bc.X / np.linalg.norm(bc.X, axis=1, keepdims=True)
    for v in corners({"sigma": [1e-4, 1e-1], "t0": [1.0, 1e5]}):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", rlmlib.ConvergenceWarning)
                warnings.simplefilter("ignore", rlmlib.StepLimitWarning)
                r = rlmlib.sgd(Xu, bc.y, epochs=2, loss="logistic", n_checkpoints=4, **v)
        except NAMED as e:
            assert "t0" in str(e), (v, e)
            continue
        assert finite(r.w, r.trace.objective), v


def test_pegasos_constants_corners(sparse):
    """chapters/pegasos/experiments.md: p 1.8 .. 2, sigma 3e-6 .. 3e-5, k 1 .. 100."""
    for v in corners({"p": [1.8, 2.0], "sigma": [3e-6, 3e-5], "k": [1, 100]}):
        with warnings.catch_warnings(record=True) as caught:   # a short run at sigma =
            warnings.simplefilter("always", rlmlib.ConvergenceWarning)   # 3e-6 ends above
            r = rlmlib.pgs(sparse.X, sparse.y, T=200, n_checkpoints=2, **v)   # F(0)
        assert all("run more steps" in str(c.message) for c in caught), v
        c = pgs_constants(sparse.X, sparse.y, r.w, **v)
        assert finite(r.w, *c.values()), (v, c)
