"""Plain SGD and the solver contract (issue 3, items 4 and 6)."""
import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.core.rows import check_X_y
from rlmlib.core.runner import run_checkpointed
from rlmlib.core.losses import LOSSES, loss_code, loss_deriv
from rlmlib.solvers.sgd import sgd_steps, t0_heuristic
from solver_table import honest_end


def naive_sgd(X, y, lam, epochs, loss, t0, seed):
    """The textbook update w <- w - eta (lam w + loss'(<w,x>) x), no scaled vector."""
    rng = np.random.default_rng(seed)
    code = loss_code(loss)
    m, n = X.shape
    w = np.zeros(n)
    t = 0
    for _ in range(epochs):
        for i in rng.permutation(m):
            eta = 1.0 / (lam * (t + t0))
            d = loss_deriv(code, X[i] @ w, y[i])
            w = w - eta * (lam * w + d * X[i])
            t += 1
    return w


@pytest.mark.parametrize("loss", ["hinge", "logistic", "squared_hinge"])
@pytest.mark.parametrize("t0", [None, 1.0, 0.3])
def test_scaled_vector_equals_textbook_update(binary, loss, t0):
    # t0 = 1 makes the first shrink factor exactly 0 and t0 = 0.3 negative: the scale is folded
    # into v, exercising the renormalization branch
    X, y = binary
    # t0 = 1 on the squared hinge ends far above F(0): the end check warns (honest_end)
    res = honest_end(lambda: rlmlib.sgd(X, y, sigma=0.05, epochs=3, loss=loss, t0=t0, seed=4))
    w = naive_sgd(X, y, 0.05, 3, loss, res.params["t0"], 4)
    np.testing.assert_allclose(res.w, w, rtol=1e-10, atol=1e-12 * np.max(np.abs(w)))


def test_renormalization_many_steps():
    # small lam and many steps: s = prod(1 - eta lam) = t0 / (t + t0) shrinks below 1e-9
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    res = rlmlib.sgd(X, y, sigma=1e-3, epochs=2000, loss="logistic", t0=1e-4, seed=1)
    w = naive_sgd(X, y, 1e-3, 2000, "logistic", 1e-4, 1)
    np.testing.assert_allclose(res.w, w, rtol=1e-8)


@pytest.mark.parametrize("loss,skloss", [("hinge", "hinge"), ("logistic", "log_loss")])
def test_one_epoch_matches_sklearn_sgdclassifier(breast_cancer_std, loss, skloss):
    """Same order (no shuffle), same t0 heuristic, same update: the same weights."""
    from sklearn.linear_model import SGDClassifier

    X, y = breast_cancer_std
    lam = 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning for max_iter=1
        clf = SGDClassifier(loss=skloss, penalty="l2", alpha=lam, max_iter=1, tol=None,
                            shuffle=False, learning_rate="optimal",
                            fit_intercept=False).fit(X, y)
    rows, yf, _ = check_X_y(X, y)
    v, state = np.zeros(X.shape[1]), np.ones(1)
    sgd_steps(rows.data, rows.indices, rows.indptr, yf, v, state, np.arange(len(y)), 0, len(y),
              0, lam, t0_heuristic(lam, loss), loss_code(loss), False)
    np.testing.assert_allclose(state[0] * v, clf.coef_.ravel(), rtol=1e-11, atol=1e-12)


def test_t0_heuristic_formula():
    for lam in (1e-6, 1e-3, 0.5):
        typw = lam ** -0.25
        # hinge: |l'(-typw)| = 1, so eta0 = typw and t0 = 1 / (typw lam)
        assert t0_heuristic(lam, "hinge") == pytest.approx(1 / (typw * lam), rel=1e-14)
        # squared hinge (1/2 (1-s)^2): |l'(-typw)| = 1 + typw > 1
        assert t0_heuristic(lam, "squared_hinge") == pytest.approx(
            (1 + typw) / (typw * lam), rel=1e-14)


def test_converges_to_lbfgs_optimum(breast_cancer_std):
    X, y = breast_cancer_std
    lam = 1e-2
    ref = rlmlib.lbfgs(X, y, sigma=lam, loss="logistic")
    res = rlmlib.sgd(X, y, sigma=lam, epochs=200, loss="logistic", seed=0, n_checkpoints=20)
    gap = (res.objective - ref.objective) / ref.objective
    assert 0 <= gap < 1e-5
    # and the distance to w* obeys strong convexity: ||w - w*||^2 <= 2 gap / lam
    assert np.sum((res.w - ref.w) ** 2) <= 2 * (res.objective - ref.objective
                                                + ref.info["gap_bound"]) / lam
    # the objective decreases overall from F(0) = log 2
    assert res.trace.objective[0] == pytest.approx(np.log(2), rel=1e-15)
    assert res.trace.objective[-1] < res.trace.objective[1]


@pytest.mark.parametrize("loss", list(LOSSES))
def test_dense_equals_sparse(binary_sparse, loss):
    X, S, y = binary_sparse
    if LOSSES[loss]["task"] == "regression":
        y = X[:, 0] + 0.1 * y
    # the default t0 assumes ||x|| ~ 1 (here ~ 2.5): the smooth losses end above F(0), and
    # the end check says so, for dense and sparse alike
    rd = honest_end(lambda: rlmlib.sgd(X, y, sigma=0.01, epochs=3, loss=loss, seed=3))
    for fmt in ("csr", "csc", "coo"):
        rs = honest_end(lambda: rlmlib.sgd(S.asformat(fmt), y, sigma=0.01, epochs=3,
                                           loss=loss, seed=3))
        np.testing.assert_allclose(rs.w, rd.w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(rs.trace.objective, rd.trace.objective, rtol=1e-12)


def test_reproducible_with_seed(binary):
    X, y = binary
    a = rlmlib.sgd(X, y, sigma=0.01, epochs=2, seed=11)
    b = rlmlib.sgd(X, y, sigma=0.01, epochs=2, seed=11)
    c = rlmlib.sgd(X, y, sigma=0.01, epochs=2, seed=12)
    assert np.array_equal(a.w, b.w)
    assert not np.array_equal(a.w, c.w)


@pytest.mark.parametrize("k", [1, 2, 7, 20, 10**6])
def test_independent_of_n_checkpoints(binary, k):
    X, y = binary
    ref = rlmlib.sgd(X, y, sigma=0.01, epochs=5, seed=2, n_checkpoints=1)
    res = rlmlib.sgd(X, y, sigma=0.01, epochs=5, seed=2, n_checkpoints=k)
    assert np.array_equal(res.w, ref.w)
    assert len(res.trace) == min(k, 5 * len(y)) + 1
    assert res.trace.iteration[-1] == 5 * len(y) and res.trace.epoch[-1] == 5.0


def test_result_contract(binary):
    X, y = binary
    labels = np.where(y > 0, "yes", "no")
    res = rlmlib.sgd(X, labels, sigma=0.05, epochs=4, loss="hinge", X_test=X[:40],
                     y_test=labels[:40], n_checkpoints=8)
    assert res.solver == "sgd" and list(res.classes) == ["no", "yes"]
    assert res.w.dtype == np.float64 and res.w.shape == (X.shape[1],)
    assert set(res.params) >= {"sigma", "epochs", "loss", "t0", "seed"}
    tr = res.trace
    assert len(tr.iteration) == len(tr.epoch) == len(tr.seconds) == len(tr.objective) == 9
    assert np.all(np.diff(tr.seconds) >= 0) and tr.seconds[0] == 0
    assert res.objective == pytest.approx(
        rlmlib.objective(X, labels, res.w, sigma=0.05, loss="hinge"), rel=1e-14)
    assert tr.test_metric_name == "accuracy"
    assert tr.test_metric[-1] == rlmlib.accuracy(X[:40], y[:40], res.w)
    pred = res.predict(X)
    assert np.array_equal(pred == "yes", X @ res.w > 0)
    np.testing.assert_allclose(res.decision_function(X), X @ res.w, rtol=1e-13, atol=1e-13)
    assert "sgd" in repr(res)


def test_regression_trace_metric(regression):
    X, y = regression
    res = rlmlib.sgd(X, y, sigma=0.01, epochs=20, loss="squared", X_test=X, y_test=y)
    assert res.classes is None and res.trace.test_metric_name == "mse"
    assert res.trace.test_metric[-1] == pytest.approx(rlmlib.mse(X, y, res.w), rel=1e-14)
    ref = rlmlib.lbfgs(X, y, sigma=0.01, loss="squared")
    assert res.objective - ref.objective < 1e-2 * ref.objective


def test_checkpoint_evaluation_not_timed(monkeypatch):
    # a clock of our own: each evaluation takes 1 s, each advance 1 ms, whatever the load
    from rlmlib.core import runner

    now = [0.0]

    class Clock:
        @staticmethod
        def perf_counter():
            return now[0]

    monkeypatch.setattr(runner, "time", Clock)

    def evaluate():
        now[0] += 1.0
        return 1.0, None

    def advance(a, b):
        now[0] += 1e-3

    tr = run_checkpointed(advance, 100, 10, evaluate, n_checkpoints=5)
    assert tr.eval_seconds == pytest.approx(6.0)
    # the evaluations are not counted: exactly the five advances
    np.testing.assert_allclose(tr.seconds, 1e-3 * np.arange(6), rtol=1e-12, atol=1e-15)
    assert list(tr.iteration) == [0, 20, 40, 60, 80, 100]
    assert list(tr.epoch) == [0, 2, 4, 6, 8, 10]


def test_progress_bar_writes_to_stdout():
    """Outside a notebook the bar goes to stdout, nothing to stderr.  In a fresh process:
    tqdm.auto picks its notebook widget for good once any test of the same process has
    started an IPython shell (as the explorables' tests do)."""
    import subprocess
    import sys

    code = ("import numpy as np, rlmlib\n"
            "rng = np.random.default_rng(0)\n"
            "X = rng.standard_normal((50, 4)); y = np.where(X[:, 0] > 0, 1.0, -1.0)\n"
            "rlmlib.sgd(X, y, sigma=0.1, epochs=2, progress=True)\n")
    env = {k: v for k, v in os.environ.items() if k != "TQDM_DISABLE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stderr == "" and "sgd" in out.stdout


@pytest.mark.parametrize("kw,exc,msg", [
    (dict(sigma=0), ValueError, "sigma must be a finite number > 0, got 0"),
    (dict(sigma=-1e-3), ValueError, "sigma must be a finite number > 0, got -0.001"),
    (dict(sigma=np.inf), ValueError, "sigma must be a finite number > 0, got inf"),
    (dict(sigma=np.nan), ValueError, "sigma must be a finite number > 0, got nan"),
    (dict(epochs=0), ValueError, "epochs must be an integer >= 1, got 0"),
    (dict(epochs=1.5), TypeError, "epochs must be an integer >= 1, got 1.5"),
    (dict(t0=0.0), ValueError, "t0 must be a finite number > 0, got 0.0"),
    (dict(seed=1.0), TypeError, "seed must be a non-negative integer, got 1.0"),
    (dict(seed=-2), ValueError, "seed must be a non-negative integer, got -2"),
    (dict(loss="log"), ValueError, "loss must be one of"),
    (dict(n_checkpoints=0), ValueError, "n_checkpoints must be an integer >= 1, got 0"),
])
def test_bad_hyperparameters(binary, kw, exc, msg):
    X, y = binary
    args = dict(sigma=0.01, epochs=1) | kw
    with pytest.raises(exc, match=msg.replace("(", r"\(")):
        rlmlib.sgd(X, y, **args)


def test_bad_test_set(binary):
    X, y = binary
    with pytest.raises(ValueError, match="X_test and y_test must be given together"):
        rlmlib.sgd(X, y, sigma=0.1, epochs=1, X_test=X)
    with pytest.raises(ValueError, match="y_test must only hold the training labels"):
        rlmlib.sgd(X, y, sigma=0.1, epochs=1, X_test=X, y_test=y * 2)
    with pytest.raises(ValueError, match="X_test must have the training data's n_features=8"):
        rlmlib.sgd(X, y, sigma=0.1, epochs=1, X_test=X[:, :3], y_test=y)


def test_regression_loss_takes_real_targets(regression):
    X, y = regression
    with pytest.raises(ValueError, match="two classes"):
        rlmlib.sgd(X, y, sigma=0.1, epochs=1, loss="hinge")
    rlmlib.sgd(X, y, sigma=0.1, epochs=1, loss="absolute")


def test_extreme_but_legal_parameters_stay_finite(binary):
    """Lipschitz losses never overflow; the others either stay finite or stop with a clear
    error (divergence of SGD when the first steps exceed 2 / smoothness), never inf/NaN."""
    X, y = binary
    # sigma = 1e-12 on these rows (condition number beta max||x||^2 / sigma up to 2.2e19) is
    # beyond the condition rule (2**52); 1e-8 (2.2e15) is inside it
    with pytest.raises(ValueError, match="^sigma=1e-12 is too small for X in sgd"):
        rlmlib.sgd(X * 1e3, y, sigma=1e-12, epochs=2)
    for loss in LOSSES:
        yy = y if LOSSES[loss]["task"] == "binary" else y * 1e3
        for lam in (1e-8, 1e6):
            try:
                res = honest_end(lambda: rlmlib.sgd(X * 1e3, yy, sigma=lam, epochs=2,
                                                    loss=loss))
            except FloatingPointError as e:
                assert np.isinf(LOSSES[loss]["lipschitz"])
                assert "sgd diverged" in str(e) and "larger t0" in str(e)
                continue
            assert np.all(np.isfinite(res.w)) and not np.isnan(res.trace.objective).any()


def test_divergence_is_reported(binary):
    X, y = binary
    from rlmlib.solvers.sgd import t0_heuristic
    bad = t0_heuristic(1e-8, "squared_hinge")   # Bottou's t0 for rows of norm 1 (the
    # default t0 scales with max ||x|| and stays stable on these rows)
    with pytest.raises(FloatingPointError, match="sgd diverged.*loss='squared_hinge'"):
        rlmlib.sgd(X * 1e3, y, sigma=1e-8, epochs=2, loss="squared_hinge", t0=bad).objective
    with pytest.raises(FloatingPointError, match="sgd diverged"):   # an exact trace: at once
        rlmlib.sgd(X * 1e3, y, sigma=1e-8, epochs=2, loss="squared_hinge", t0=bad,
                   n_checkpoints=2)
    assert np.isfinite(rlmlib.sgd(X * 1e3, y, sigma=1e-8, epochs=2,
                                  loss="squared_hinge").objective)
    # a larger t0 (first step below 2 / (max ||x||^2)) converges
    t0 = np.max(np.sum((X * 1e3) ** 2, 1)) / 1e-8
    res = rlmlib.sgd(X * 1e3, y, sigma=1e-8, epochs=2, loss="squared_hinge", t0=t0)
    assert np.all(np.isfinite(res.w))


def test_float32_and_sparse_float32(binary):
    X, y = binary
    a = rlmlib.sgd(X.astype(np.float32), y, sigma=0.1, epochs=1)
    b = rlmlib.sgd(sp.csr_matrix(X.astype(np.float32)), y, sigma=0.1, epochs=1)
    c = rlmlib.sgd(X.astype(np.float32).astype(np.float64), y, sigma=0.1, epochs=1)
    assert np.array_equal(a.w, c.w)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-12)


def test_trace_as_dict_and_lazy_exports(binary):
    X, y = binary
    res = rlmlib.sgd(X, y, sigma=0.1, epochs=1, n_checkpoints=3, X_test=X, y_test=y)
    d = res.trace.as_dict()
    assert set(d) == {"iteration", "epoch", "seconds", "objective", "accuracy"}
    assert all(len(v) == len(res.trace) == 4 for v in d.values())
    # lazily imported names and submodules
    assert rlmlib.RLMClassifier.__name__ == "RLMClassifier"
    assert rlmlib.book.checkers.check_scaled_step is not None
    with pytest.raises(AttributeError, match="has no attribute 'no_such_thing'"):
        rlmlib.no_such_thing


def test_exponential_loss_default_t0_moves_and_converges():
    """The exponential loss's default offset: Bottou's rule evaluates |loss'(-typw)| =
    e^typw, which gave t0 = 1.2e272 on rows of norm 4.7e3 at sigma = 1e-8 (a run that never
    moved) and F = 0.99 against F* = 0.141 on standardized breast cancer at sigma = 1e-2;
    the hinge's offset, with the first step within 1/L of the curvature at w = 0, reaches
    a relative gap below 1e-2 in 100 epochs there."""
    from sklearn.datasets import load_breast_cancer
    from rlmlib.solvers.sgd import t0_heuristic
    assert t0_heuristic(1e-8, "exponential", 4.7e3) == pytest.approx((4.7e3 ** 2 + 1e-8)
                                                                     / 1e-8)
    assert t0_heuristic(1e-4, "exponential") == pytest.approx(1e4 + 1)
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    r = rlmlib.sgd(X, y, sigma=1e-2, epochs=100, loss="exponential")
    ref = rlmlib.lbfgs(X, y, sigma=1e-2, loss="exponential")
    assert (r.objective - ref.objective) / ref.objective < 1e-2
