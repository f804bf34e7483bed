"""The reference L-BFGS solver (issue 3, item 5)."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.core.objective import regularizer_grad
from rlmlib.solvers.reference import lbfgs


def logistic_grad(X, y, w, sigma):
    z = y * (X @ w)
    return X.T @ (-y / (1 + np.exp(z))) / len(y) + sigma * w


@pytest.mark.parametrize("sigma", [1e-1, 1e-3, 1e-5])
def test_logistic_optimality_condition(breast_cancer_std, sigma):
    X, y = breast_cancer_std
    res = lbfgs(X, y, sigma=sigma, loss="logistic")
    ypm = np.where(y == res.classes[1], 1.0, -1.0)
    g = logistic_grad(X, ypm, res.w, sigma)  # gradient computed independently, with numpy
    # certified relative accuracy 1e-10 on F*: ||g||^2 / (2 sigma) <= 1e-10 F
    assert g @ g / (2 * sigma) <= 1e-10 * res.objective
    assert res.info["converged"]
    assert res.objective == pytest.approx(rlmlib.objective(X, y, res.w, sigma=sigma,
                                                           loss="logistic"), rel=1e-15)


@pytest.mark.parametrize("sigma", [1e-2, 1e-4])
def test_agrees_with_sklearn_logistic_regression(breast_cancer_std, sigma):
    from sklearn.linear_model import LogisticRegression

    X, y = breast_cancer_std
    m = len(y)
    res = lbfgs(X, y, sigma=sigma, loss="logistic")
    clf = LogisticRegression(C=1 / (sigma * m), fit_intercept=False, tol=1e-12,
                             max_iter=100000).fit(X, y)
    f_sk = rlmlib.objective(X, y, clf.coef_.ravel(), sigma=sigma, loss="logistic")
    # both minimize the same F; ours is certified to 1e-10, so sklearn cannot be lower
    assert res.objective <= f_sk * (1 + 1e-10)
    assert f_sk <= res.objective * (1 + 1e-8)
    # and the minimizers agree (F is sigma-strongly convex: ||w - w*||^2 <= 2 gap / sigma)
    gap = 2 * (f_sk - res.objective + res.info["gap_bound"]) / sigma
    assert np.sum((clf.coef_.ravel() - res.w) ** 2) <= gap + 1e-20


def test_squared_loss_closed_form(regression):
    X, y = regression
    sigma = 0.01
    res = lbfgs(X, y, sigma=sigma, loss="squared")
    m, n = X.shape
    w_star = np.linalg.solve(X.T @ X / m + sigma * np.eye(n), X.T @ y / m)
    np.testing.assert_allclose(res.w, w_star, rtol=1e-6, atol=1e-8)
    f_star = rlmlib.objective(X, y, w_star, sigma=sigma, loss="squared")
    assert abs(res.objective - f_star) <= 1e-10 * f_star
    assert res.classes is None


@pytest.mark.parametrize("p", [1.5, 1.8])
def test_p_norm_optimality(binary, p):
    X, y = binary
    sigma = 0.05
    res = lbfgs(X, y, sigma=sigma, loss="logistic", p=p)
    g = logistic_grad(X, y, res.w, 0.0) + sigma * regularizer_grad(res.w, p)
    q = p / (p - 1)
    assert np.sum(np.abs(g) ** q) ** (2 / q) / (2 * sigma) <= 1e-10 * res.objective
    # p < 2 moves the solution away from the p = 2 one
    res2 = lbfgs(X, y, sigma=sigma, loss="logistic")
    assert np.max(np.abs(res.w - res2.w)) > 1e-3


@pytest.mark.parametrize("loss", ["squared_hinge", "exponential"])
def test_other_smooth_losses_dense_equals_sparse(binary_sparse, loss):
    X, S, y = binary_sparse
    rd = lbfgs(X, y, sigma=1e-2, loss=loss)
    rs = lbfgs(S, y, sigma=1e-2, loss=loss)
    assert rd.info["converged"] and rs.info["converged"]
    assert abs(rd.objective - rs.objective) <= 1e-10 * rd.objective
    # the gap bound of the dense run also holds for the sparse one's objective value
    np.testing.assert_allclose(rd.w, rs.w, rtol=1e-4, atol=1e-6)


def test_trace_decreasing_and_timed(binary):
    X, y = binary
    res = lbfgs(X, y, sigma=1e-3, loss="logistic", X_test=X, y_test=y)
    tr = res.trace
    assert tr.iteration[0] == 0 and tr.seconds[0] == 0.0
    assert np.all(np.diff(tr.objective) <= 1e-15 * abs(tr.objective[0]))
    assert np.all(np.diff(tr.seconds) >= 0) and np.all(np.diff(tr.epoch) >= 0)
    assert tr.test_metric_name == "accuracy" and tr.test_metric[-1] == rlmlib.accuracy(X, y,
                                                                                        res.w)


def test_rejects_nonsmooth_and_bad_input(binary):
    X, y = binary
    with pytest.raises(ValueError, match="differentiable loss for L-BFGS.*got 'hinge'"):
        lbfgs(X, y, sigma=1.0, loss="hinge")
    with pytest.raises(ValueError, match="loss must be one of"):
        lbfgs(X, y, sigma=1.0, loss="nope")
    with pytest.raises(ValueError, match="sigma must be a finite number > 0, got nan"):
        lbfgs(X, y, sigma=np.nan, loss="logistic")
    with pytest.raises(ValueError, match=r"p must be in \(1.0, 2.0\], got 3"):
        lbfgs(X, y, sigma=1.0, loss="logistic", p=3)
    with pytest.raises(ValueError, match="w0 must be a finite 1-D array of length"):
        lbfgs(X, y, sigma=1.0, loss="logistic", w0=np.ones(3))


def _problem(X, y, sigma, loss, p=2.0):
    from rlmlib.core.problem import Problem
    from rlmlib.solvers.reference import objective_and_gradient

    pr = Problem("lbfgs", X, y, sigma=sigma, loss=loss, p=p, compact_dense=True)
    return pr, objective_and_gradient(pr.rows, pr.y, pr.code, sigma, p)[0]


@pytest.mark.parametrize("loss,p", [("logistic", 2.0), ("squared_hinge", 2.0),
                                    ("logistic", 1.5), ("exponential", 2.0)])
@pytest.mark.parametrize("form", ["dense", "csr"])
def test_objective_and_gradient_match_the_objective_and_finite_differences(binary_sparse,
                                                                          loss, p, form):
    """The callable lbfgs hands to scipy: its value is rlmlib.objective, and its gradient
    matches central differences of that value (step 1e-6 on each coordinate) to the
    differences' own error (O(h^2) curvature plus rounding of F / h)."""
    X, Xs, y = binary_sparse
    sigma = 1e-2
    A = X if form == "dense" else Xs
    pr, fg = _problem(A, y, sigma, loss, p)
    w = np.random.default_rng(3).standard_normal(X.shape[1]) * 0.3
    f, g = fg(w)
    assert f == pytest.approx(rlmlib.objective(X, y, w, sigma=sigma, loss=loss, p=p),
                              rel=1e-13)
    h = 1e-6
    fd = np.empty_like(w)
    for j in range(len(w)):
        e = np.zeros_like(w)
        e[j] = h
        fd[j] = (rlmlib.objective(X, y, w + e, sigma=sigma, loss=loss, p=p)
                 - rlmlib.objective(X, y, w - e, sigma=sigma, loss=loss, p=p)) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=0, atol=1e-7 * max(1.0, abs(f)))
    # a second call at another point does not keep anything of the first
    f2, g2 = fg(-w)
    assert f2 != f and not np.array_equal(g2, g)
    assert fg(w)[0] == f and np.array_equal(fg(w)[1], g)


@pytest.mark.parametrize("form", ["dense", "csr"])
def test_objective_and_gradient_equal_scikit_learns_loss(binary_sparse, form):
    """The same value and gradient as the callable scikit-learn's LogisticRegression hands
    to scipy (LinearModelLoss.loss_gradient, mean loss + l2_reg_strength/2 ||w||^2 with
    l2_reg_strength = 1 / (C m) = sigma), to rounding."""
    from sklearn._loss.loss import HalfBinomialLoss
    from sklearn.linear_model._linear_loss import LinearModelLoss

    X, Xs, y = binary_sparse
    sigma = 1e-3
    A = X if form == "dense" else Xs
    _, fg = _problem(A, y, sigma, "logistic")
    theirs = LinearModelLoss(base_loss=HalfBinomialLoss(), fit_intercept=False)
    y01 = (y == np.unique(y)[1]).astype(np.float64)
    for seed in range(3):
        w = np.random.default_rng(seed).standard_normal(X.shape[1])
        f, g = fg(w)
        f_sk, g_sk = theirs.loss_gradient(w, A, y01, None, sigma, 1)
        assert f == pytest.approx(f_sk, rel=1e-12)
        np.testing.assert_allclose(g, g_sk, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("loss", ["logistic", "squared_hinge", "squared", "exponential"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_pass_gradient_is_the_two_products_to_the_bit(loss, dtype):
    """lbfgs's one-pass gradient on sparse rows (mean_loss_grad_blocks, 64 rows at a
    time) does the operations of z = X @ w, mean_loss_derivs and X.T @ d (scipy's CSR and
    CSC products) in their order: the same loss and gradient bits, on rows in any column
    order, with empty rows, a last block shorter than the others and float32 data (widened
    exactly); and it reports the first row whose margin is not finite."""
    from rlmlib.core.losses import loss_code
    from rlmlib.core.objective import mean_loss_derivs, mean_loss_grad_blocks

    rng = np.random.default_rng(5)
    m, n = 203, 41
    X = sp.random(m, n, density=0.2, random_state=6, format="csr")
    X.data = rng.standard_normal(X.nnz)
    scale = rng.uniform(0.5, 2.0, m)
    scale[::17] = 0.0                                # some empty rows
    X = sp.diags(scale) @ X                          # columns of each row unsorted
    X.eliminate_zeros()
    assert not X.has_sorted_indices and np.diff(X.indptr).min() == 0
    X = X.astype(dtype)
    y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
    code = loss_code(loss)
    w = rng.standard_normal(n)
    z = X.astype(np.float64) @ w
    d = np.empty(m)
    f_two = mean_loss_derivs(code, z, y, d)
    g_two = X.astype(np.float64).T @ d
    ui, uptr = X.indices.view(np.uint32), X.indptr.astype(np.int64).view(np.uint64)
    for block in (1, 64, m, 2 * m):
        g = np.full(n, np.nan)
        row, f = mean_loss_grad_blocks(X.data, ui, uptr, w, y, code, g, np.empty(block))
        assert row == -1 and f == f_two
        assert np.array_equal(g.view(np.int64), g_two.view(np.int64))
    w_big = w.copy()
    w_big[X.indices[X.indptr[70]]] = np.inf      # the first margin that is not finite
    first = int(np.flatnonzero(~np.isfinite(X.astype(np.float64) @ w_big))[0])
    row, _ = mean_loss_grad_blocks(X.data, ui, uptr, w_big, y, code, np.empty(n),
                                   np.empty(64))
    assert row == first


@pytest.mark.parametrize("scale", [1.0, 1e12, 1e-12])
def test_float32_sparse_rows_are_kept_and_give_the_float64_result_to_the_bit(scale):
    """lbfgs keeps a float32 CSR matrix's values (no float64 copy: its kernels widen each
    entry exactly) and ends where it ends on the float64 copy, to the bit: the same w,
    objective, trace and certificate, also at row scales far from 1 (L-BFGS-B then runs on
    scaled variables); the validation pass measures the same row norms. Duplicates are summed in float64."""
    from rlmlib.core.rows import as_rows

    rng = np.random.default_rng(8)
    X = sp.random(300, 40, density=0.15, random_state=9, format="csr", dtype=np.float32)
    X.data = (rng.standard_normal(X.nnz) * scale).astype(np.float32)
    X.data[::13] = 0.0                                        # stored zeros
    y = np.where(rng.random(300) < 0.4, 1, -1)
    X64 = X.astype(np.float64)
    r32, r64 = as_rows(X, keep_float32=True), as_rows(X64)
    assert r32.data.dtype == np.float32 and r32.data is X.data
    assert r32.stats == r64.stats
    sigma = 1e-3 * float(scale) ** 2                   # the same conditioning
    a = lbfgs(X, y, sigma=sigma, loss="logistic")
    b = lbfgs(X64, y, sigma=sigma, loss="logistic")
    assert np.array_equal(a.w, b.w) and a.objective == b.objective
    assert np.array_equal(a.trace.objective, b.trace.objective)
    assert a.info["gap_bound"] == b.info["gap_bound"]
    assert as_rows(X).data.dtype == np.float64             # other callers: float64
    D = sp.csr_matrix((np.repeat(X.data / 2, 2), np.repeat(X.indices, 2), X.indptr * 2),
                      shape=X.shape)
    assert as_rows(D, keep_float32=True).data.dtype == np.float64


def test_gradient_stop_is_scikit_learns_and_certified_stop_is_kept(breast_cancer_std):
    """stop='gradient' is L-BFGS-B's own test with scikit-learn's LogisticRegression
    settings: on the same objective both take the same iterations and end at the same w
    (to the rounding that the two loss implementations differ by), with max|grad F| <= tol
    computed independently; stop='certified' still certifies its tol."""
    from sklearn.linear_model import LogisticRegression

    X, y = breast_cancer_std
    m, sigma = len(y), 1e-3
    est = lbfgs(X, y, sigma=sigma, loss="logistic", stop="gradient", tol=1e-4, max_iter=100)
    ypm = np.where(y == est.classes[1], 1.0, -1.0)
    assert est.info["converged"] and est.params["stop"] == "gradient"
    assert np.abs(logistic_grad(X, ypm, est.w, sigma)).max() <= 1e-4
    sk = LogisticRegression(C=1 / (sigma * m), fit_intercept=False).fit(X, y)
    assert abs(est.info["n_iter"] - int(sk.n_iter_[0])) <= 1
    np.testing.assert_allclose(est.w, sk.coef_.ravel(), rtol=1e-4,
                               atol=1e-4 * np.abs(est.w).max())
    ref = lbfgs(X, y, sigma=sigma, loss="logistic")
    assert ref.params["stop"] == "certified" and ref.info["converged"]
    assert ref.info["n_iter"] > est.info["n_iter"]
    F = lambda w: rlmlib.objective(X, y, w, sigma=sigma, loss="logistic")
    assert 0 <= F(est.w) - F(ref.w) <= est.info["gap_bound"]
    with pytest.raises(ValueError, match=r"stop must be one of 'certified', 'gradient'; "
                                         r"got 'fast'"):
        lbfgs(X, y, sigma=sigma, loss="logistic", stop="fast")


def test_one_pass_per_evaluation_and_none_wasted(binary):
    """scipy's first evaluation at w0 reuses the starting checkpoint's: the run makes as
    many passes as scipy's own count of evaluations (the starting one, which the trace
    does not count as solver work, plus n_evaluations), not one more."""
    from scipy.optimize import minimize

    X, y = binary
    res = lbfgs(X, y, sigma=1e-2, loss="logistic", tol=1e-8)
    pr, fg = _problem(X, y, 1e-2, "logistic")
    calls = []

    def counted(w):
        calls.append(1)
        return fg(w)

    minimize(counted, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
             options={"maxiter": res.info["n_iter"], "ftol": 0.0, "gtol": 0.0})
    assert res.info["n_evaluations"] + 1 == len(calls)
    assert res.trace.epoch[-1] == res.info["n_evaluations"]
