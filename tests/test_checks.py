"""Every input check has its own test (issue 3, item 7)."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.core.rows import as_rows, check_X_y
from rlmlib.core.checks import (check_choice, check_int, check_interval, check_positive,
                                check_seed)


def test_dense_rows_are_a_view(binary):
    X, y = binary
    X = np.ascontiguousarray(X)
    rows, yf, classes = check_X_y(X, y)
    assert np.shares_memory(rows.data, X)
    assert rows.indices.dtype == np.int32 and rows.indptr.dtype == np.int64
    m, n = X.shape
    assert np.array_equal(rows.indices, np.tile(np.arange(n), m))
    assert np.array_equal(rows.indptr, np.arange(0, m * n + 1, n))
    assert not rows.sparse and rows.n_features == n


def test_nan_rejected(binary):
    X, y = binary
    X = X.copy()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="X must not contain NaN or inf, found nan"):
        check_X_y(X, y)


def test_inf_rejected(binary):
    X, y = binary
    X = X.copy()
    X[0, 0] = -np.inf
    with pytest.raises(ValueError, match="NaN or inf, found -inf"):
        check_X_y(X, y)


def test_inf_rejected_sparse(binary):
    X, y = binary
    S = sp.csr_matrix(X)
    S.data[5] = np.inf
    with pytest.raises(ValueError, match="NaN or inf, found inf"):
        check_X_y(S, y)


def test_nan_label_rejected(binary):
    X, y = binary
    y = y.copy()
    y[0] = np.nan
    with pytest.raises(ValueError, match="y must not contain NaN"):
        check_X_y(X, y)


def test_length_mismatch(binary):
    X, y = binary
    with pytest.raises(ValueError, match="X with 120 rows and y with 119 entries"):
        check_X_y(X, y[:-1])


def test_empty_rejected():
    with pytest.raises(ValueError, match=r"X must be non-empty, got shape \(0, 3\)"):
        check_X_y(np.zeros((0, 3)), np.zeros(0))
    with pytest.raises(ValueError, match="non-empty"):
        check_X_y(sp.csr_matrix((0, 3)), np.zeros(0))


def test_single_class():
    with pytest.raises(ValueError, match="got a single class 'a'"):
        check_X_y(np.eye(3), np.array(["a", "a", "a"]))


def test_more_than_two_labels():
    with pytest.raises(ValueError, match="got 3 distinct labels"):
        check_X_y(np.eye(3), np.array([0, 1, 2]))


def test_not_2d():
    with pytest.raises(ValueError, match=r"X must be 2-D .* shape \(5,\)"):
        check_X_y(np.arange(5.0), np.array([0, 1, 0, 1, 0]))
    with pytest.raises(ValueError, match=r"shape \(2, 2, 2\)"):
        as_rows(np.zeros((2, 2, 2)))


def test_y_not_1d(binary):
    X, y = binary
    with pytest.raises(ValueError, match=r"y must be 1-D, got an array of shape \(120, 1\)"):
        check_X_y(X, y.reshape(-1, 1))


def test_non_numeric():
    with pytest.raises(TypeError, match="X must hold real numbers"):
        check_X_y(np.array([["a", "b"], ["c", "d"]]), np.array([0, 1]))
    with pytest.raises(TypeError, match="X must hold real numbers"):
        check_X_y(np.array([[1 + 1j, 0], [0, 1]]), np.array([0, 1]))
    with pytest.raises(TypeError, match="X must be a 2-D array"):
        as_rows("not an array")


def test_non_numeric_regression_target():
    with pytest.raises(TypeError, match="y must hold real numbers"):
        check_X_y(np.eye(2), np.array(["a", "b"]), task="regression")


@pytest.mark.parametrize("bad", [0, -1.0, np.nan, np.inf, -np.inf, "1", None, True])
def test_positive(bad):
    with pytest.raises(ValueError, match=f"lam must be a finite number > 0, got {bad!r}"):
        check_positive("lam", bad)


def test_positive_ok():
    assert check_positive("sigma", np.float32(0.5)) == 0.5


@pytest.mark.parametrize("bad", [0, -3])
def test_int_below(bad):
    with pytest.raises(ValueError, match=f"epochs must be an integer >= 1, got {bad}"):
        check_int("epochs", bad)


@pytest.mark.parametrize("bad", [1.0, 2.5, "3", None, True])
def test_int_type(bad):
    with pytest.raises(TypeError, match="T must be an integer >= 1"):
        check_int("T", bad)


def test_int_range_k():
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 10\], got 11"):
        check_int("k", 11, lo=1, hi=10)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 10\], got 0"):
        check_int("k", 0, lo=1, hi=10)
    assert check_int("k", np.int64(10), lo=1, hi=10) == 10


@pytest.mark.parametrize("bad", [1.0, 2.5, 0.5, np.nan, "2"])
def test_interval(bad):
    with pytest.raises(ValueError, match=r"p must be (a finite number )?in \(1.0, 2.0\]"):
        check_interval("p", bad, 1.0, 2.0, lo_closed=False, hi_closed=True)
    assert check_interval("p", 2, 1.0, 2.0, lo_closed=False) == 2.0


def test_choice():
    with pytest.raises(ValueError, match="loss must be one of 'hinge', 'log'; got 'hing'"):
        check_choice("loss", "hing", ("hinge", "log"))
    with pytest.raises(ValueError, match="loss must be one of"):
        check_choice("loss", ["hinge"], ("hinge", "log"))


@pytest.mark.parametrize("bad", [1.5, "0", None, np.float64(3.0), True])
def test_seed_type(bad):
    with pytest.raises(TypeError, match="seed must be a non-negative integer"):
        check_seed(bad)


def test_seed_negative():
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        check_seed(-1)
    assert check_seed(np.int32(7)) == 7


@pytest.mark.parametrize("fmt", ["csc", "coo", "lil", "dok", "bsr"])
def test_sparse_formats_converted(binary, fmt):
    X, y = binary
    X = X * (np.abs(X) > 1)
    S = sp.csr_matrix(X).asformat(fmt)
    rows, _, _ = check_X_y(S, y)
    assert rows.sparse
    back = sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=X.shape).toarray()
    assert np.array_equal(back, X)
    assert rows.data.dtype == np.float64 and rows.indices.dtype == np.int32
    assert rows.indptr.dtype == np.int64


def test_sparse_array_accepted(binary):
    X, y = binary
    rows, _, _ = check_X_y(sp.csr_array(X), y)
    assert rows.sparse


def test_float32_upcast(binary):
    X, y = binary
    X32 = X.astype(np.float32)
    rows, _, _ = check_X_y(X32, y)
    assert rows.data.dtype == np.float64
    assert np.array_equal(rows.data, X32.astype(np.float64).ravel())
    rows, _, _ = check_X_y(sp.csr_matrix(X32), y)
    assert rows.data.dtype == np.float64


def test_fortran_and_int_input(binary):
    X, y = binary
    rows, _, _ = check_X_y(np.asfortranarray(X), y)
    assert np.array_equal(rows.data, X.ravel())
    rows, _, _ = check_X_y((X > 0).astype(int), y)
    assert rows.data.dtype == np.float64


def test_labels_mapping_kept():
    X = np.eye(4)
    rows, yf, classes = check_X_y(X, np.array(["spam", "ham", "spam", "ham"]))
    assert list(classes) == ["ham", "spam"]
    assert list(yf) == [1.0, -1.0, 1.0, -1.0]
    _, yf, classes = check_X_y(X, np.array([0, 1, 1, 0]))
    assert list(classes) == [0, 1] and list(yf) == [-1, 1, 1, -1]


def test_labels_roundtrip_through_solver_result(binary):
    X, y = binary
    labels = np.where(y > 0, "pos", "neg")
    res = rlmlib.Result(w=np.ones(X.shape[1]), solver="x", params={},
                        trace=None, classes=np.array(["neg", "pos"]))
    pred = res.predict(X)
    assert set(pred) <= {"neg", "pos"}
    assert np.array_equal(pred == "pos", X @ np.ones(X.shape[1]) > 0)
    assert labels.shape == pred.shape


def test_compact_dense_rows(binary):
    from rlmlib.core.rows import is_compact
    from rlmlib.core.losses import loss_code
    from rlmlib.core.objective import decision_function_rows, objective_rows

    X, y = binary
    full = as_rows(X)
    compact = as_rows(X, compact_dense=True)
    assert not is_compact(full) and is_compact(compact)
    assert np.array_equal(compact.indices, np.arange(X.shape[1]))
    assert np.shares_memory(compact.data, full.data) or np.array_equal(compact.data, full.data)
    w = np.linspace(-1, 1, X.shape[1])
    np.testing.assert_allclose(decision_function_rows(compact, w),
                               decision_function_rows(full, w), rtol=1e-14, atol=1e-14)
    f1 = objective_rows(compact, y, w, 0.1, loss_code("logistic"))
    f2 = objective_rows(full, y, w, 0.1, loss_code("logistic"))
    assert f1 == pytest.approx(f2, rel=1e-14)
    # one row: both forms coincide, and the row is not taken for compact
    one = as_rows(X[:1], compact_dense=True)
    assert not is_compact(one) and one.indices.shape[0] == X.shape[1]
    # sparse input is never compact
    assert not is_compact(as_rows(sp.csr_matrix(X), compact_dense=True))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", [0, 17, 999])
def test_all_finite_kernel(bad, where):
    from rlmlib.core.rows import all_finite

    a = np.random.default_rng(0).standard_normal(1000) * 1e300
    assert all_finite(a)
    a[where] = bad
    assert not all_finite(a)
    # a huge but finite sum does not fool it (np.sum would overflow to inf here)
    assert all_finite(np.full(10, 1.7e308))


# ------------------------------------------------- the one validation pass (issue 18, item 3)
def _norms(A):
    return np.sqrt((np.asarray(A, dtype=float) ** 2).sum(axis=1))


@pytest.mark.parametrize("scale", [1.0, 1e-160, 1e160, 1e-303, 1e-308, 1e300])
@pytest.mark.parametrize("fmt", ["dense", "csr", "csc", "coo"])
def test_validation_pass_measures_the_row_norms_once(fmt, scale):
    from rlmlib.core.rows import row_scale

    rng = np.random.default_rng(1)
    A = rng.standard_normal((30, 7)) * (rng.random((30, 7)) < 0.5)
    X = A * scale if fmt == "dense" else sp.csr_matrix(A * scale).asformat(fmt)
    rows = as_rows(X)
    M = np.abs(A).max()
    want = float((M * _norms(A / M)).max()) * scale  # exact scaling, no overflow
    assert rows.stats.max_norm == pytest.approx(want, rel=1e-13)
    assert row_scale(rows) is rows.stats  # check_scale reads the pass's result, not X
    a = np.abs(np.asarray(A * scale))
    sub = a[(a != 0) & (a < 2.0 ** -1022)]
    assert rows.stats.tiny == (sub.min() if sub.size else np.inf)


def test_row_norm_beyond_the_double_range_is_inf_and_subnormals_are_found():
    rows = as_rows(np.array([[1.5e308, 1.5e308], [1.0, 0.0]]))  # sqrt 2 * 1.5e308 > max
    assert rows.stats.max_norm == np.inf
    rows = as_rows(np.array([[1.0, 3e-310], [0.0, 0.0]]))
    assert rows.stats.tiny == 3e-310 and rows.stats.max_norm == 1.0


def test_rows_built_otherwise_compute_their_stats():
    from rlmlib.core.rows import Rows, row_scale

    rows = as_rows(sp.csr_matrix(np.array([[3.0, 4.0], [1.0, 0.0]])))
    bare = Rows(*rows)
    assert bare.stats is None and row_scale(bare) == rows.stats
    data, indices, indptr, n, sparse = rows  # still a 5-tuple
    assert n == 2 and sparse


def test_duplicate_entries_are_summed_once_on_input():
    # scipy's meaning of a duplicate is the sum; every kernel then sees canonical rows
    data = np.array([1.0, 2.0, 5.0, 3.0, 4.0])
    indices = np.array([2, 0, 2, 1, 1])
    indptr = np.array([0, 3, 5])
    X = sp.csr_matrix((data, indices, indptr), shape=(2, 3))
    assert not X.has_canonical_format
    rows = as_rows(X)
    assert rows.indices.tolist() == [0, 2, 1] and rows.data.tolist() == [2.0, 6.0, 7.0]
    assert rows.indptr.tolist() == [0, 2, 3]
    assert rows.stats.max_norm == 7.0  # rows (2, 6) and (7)
    assert X.data.tolist() == data.tolist()  # the caller's matrix is not touched
    # CSC with duplicates, converted to CSR, too
    C = sp.csc_matrix((np.array([1.0, 1.0]), np.array([0, 0]), np.array([0, 2, 2])),
                      shape=(1, 2))
    assert as_rows(C).data.tolist() == [2.0]


def test_duplicates_whose_sum_overflows_are_rejected():
    X = sp.csr_matrix((np.array([1e308, 1e308]), np.array([0, 0]), np.array([0, 2])),
                      shape=(1, 2))
    with pytest.raises(ValueError, match="X must not contain NaN or inf, found inf"):
        as_rows(X)


@pytest.mark.parametrize("make", [lambda A: A.astype(complex),
                                  lambda A: sp.csr_matrix(A.astype(complex))])
def test_complex_data_is_refused_naming_the_argument(make):
    A = np.eye(3)
    with pytest.raises(TypeError, match="X must hold real numbers.*complex"):
        as_rows(make(A))
    with pytest.raises(TypeError, match="X_test must hold real numbers"):
        as_rows(make(A), name="X_test")


@pytest.mark.parametrize("task", ["binary", "regression"])
def test_complex_labels_are_refused(task):
    with pytest.raises(TypeError, match="y must hold real"):
        check_X_y(np.eye(2), np.array([1.0, -1.0], dtype=complex), task=task)


@pytest.mark.parametrize("y", [np.array([3, 5, 3]), np.array([0.5, -2.0, 0.5], np.float32),
                               np.array([1.0, 1.0, np.nan]), np.array([1, 2, 3])])
def test_numeric_labels_fast_path_agrees_with_numpy(y):
    X = np.eye(3)
    if np.unique(y[~np.isnan(y.astype(float))]).size != 2 or np.isnan(y.astype(float)).any():
        with pytest.raises(ValueError, match="y must"):
            check_X_y(X, y)
        return
    _, yf, classes = check_X_y(X, y)
    assert classes.dtype == y.dtype and classes.tolist() == np.unique(y).tolist()
    assert yf.tolist() == np.where(y == classes[1], 1.0, -1.0).tolist()


# ----------------------- every returned number finite, or the call says why (issue 19, item 3)
@pytest.mark.parametrize("scale_w, scale_x", [(1e200, 1e200), (1.0, 1e155), (1.0, 1e200)])
def test_fiol_step_refuses_entries_beyond_its_range_instead_of_nan(scale_w, scale_x):
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal(5) * scale_w, rng.standard_normal(5) * scale_x
    for method in ("sort", "partition"):
        with pytest.raises(ValueError, match="x is too large for the implicit step with eta"):
            rlmlib.fiol_step(w, x, 1.0, eta=1.0, sigma=0.1, loss="squared", method=method)
    # inside the range (eta x_j^2 about 1e-1): finite
    u = rlmlib.fiol_step(w / scale_w, x / scale_x * 1e100, 1.0, eta=1e-201, sigma=0.1,
                         loss="squared")
    assert np.isfinite(u).all()


def test_numerical_rank_without_overflow_and_only_for_1d():
    from rlmlib.precond.preconditioner import numerical_rank

    # c / (c + ratio) with c + ratio = 2e308 (overflow): the quotient 1/2 is representable
    assert numerical_rank([1e308, 0.0], 1e308) == pytest.approx(0.5, rel=1e-15)
    assert numerical_rank([1e308], 1.0) == 1.0
    with pytest.raises(ValueError, match=r"eigenvalues must be a 1-D array, got shape \(1, 2\)"):
        numerical_rank([[1.0, 2.0]], 1.0)


def test_predict_proba_is_finite_at_very_negative_margins():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((90, 3))
    y = np.repeat([0, 1, 2], 30)
    clf = rlmlib.RLMClassifier(solver="lbfgs", sigma=1e-2, loss="logistic").fit(X, y)
    P = clf.predict_proba(-1e6 * np.abs(X[:5]) - 1e6)  # every one-vs-rest margin very negative
    assert np.isfinite(P).all() and np.allclose(P.sum(axis=1), 1.0)
    # at ordinary margins the normalization is the plain one
    z = clf.decision_function(X[:5])
    p = 1.0 / (1.0 + np.exp(-z))
    np.testing.assert_allclose(clf.predict_proba(X[:5]), p / p.sum(axis=1, keepdims=True),
                               rtol=1e-12)


def test_lbfgs_on_rows_scaled_by_1e160_moves_and_explains():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    y = np.where(X[:, 0] + 0.1 > 0, 1.0, -1.0)
    f0 = np.log(2.0)
    # at sigma = 1e-2 these rows are beyond the one condition rule (beta max||x||^2 / sigma
    # <= 2**52) that every solver applies; lbfgs used to run them to "not converged"
    for scale in (1e150, 1e160):
        with pytest.raises(ValueError, match=r"^(sigma=0.01 is too small for X in lbfgs|X is "
                                             r"too large for lbfgs with sigma=0.01): the "
                                             r"condition number"):
            rlmlib.lbfgs(X * scale, y, sigma=1e-2, loss="logistic")
    # inside the rule (sigma = 1e286, condition number 4e15) the change of variables runs
    res = rlmlib.lbfgs(X * 1e150, y, sigma=1e286, loss="logistic")
    assert np.isfinite(res.w).all() and np.any(res.w != 0.0)
    assert res.info["converged"] and res.objective < f0
    # rows of usual size: the same run as before (no change of variables)
    res = rlmlib.lbfgs(X, y, sigma=1e-2, loss="logistic")
    assert res.info["converged"] and "condition number" not in res.info["message"]


def test_eigen_decay_refuses_a_decay_that_would_make_x_zero():
    from rlmlib.datasets.synthetic import eigen_decay

    with pytest.raises(ValueError, match="tau must be at most 700 for decay='exp'"):
        eigen_decay(20, 4, decay="exp", tau=800.0)
    ds = eigen_decay(20, 4, decay="exp", tau=700.0)
    assert np.abs(ds.X).max() > 0 and np.isfinite(ds.X).all()
    assert np.abs(eigen_decay(20, 4, decay="poly", tau=1e6).X).max() > 0


def test_precondition_sees_duplicates_as_their_sum():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((40, 6)) * (rng.random((40, 6)) < 0.6)
    A[:, 0] += 1.0
    C = sp.csr_matrix(A)
    P = rlmlib.precondition(C, sigma=0.1, beta=0.5)
    Q = rlmlib.precondition(_interleave(A), sigma=0.1, beta=0.5)
    np.testing.assert_allclose(Q.norms2, P.norms2, rtol=1e-12)
    assert Q.coherence == pytest.approx(P.coherence, rel=1e-12)
    assert Q.numerical_rank == pytest.approx(P.numerical_rank, rel=1e-12)


def _interleave(A):
    """CSR equal to A as scipy reads it, every value stored as two halves, unsorted."""
    data, indices, indptr = [], [], [0]
    for row in A:
        cols = np.flatnonzero(row)
        for c in list(cols[::-1]) + list(cols):
            data.append(row[c] / 2)
            indices.append(c)
        indptr.append(len(data))
    return sp.csr_matrix((np.array(data), np.array(indices), np.array(indptr)), shape=A.shape)


def test_fiol_step_resolves_a_huge_eta_without_cancellation():
    # at eta = 1e300 the step subtracts numbers near eta sigma = 1e299 whose difference is
    # O(1): computed as it stands it came out 0 (then a refusal); now the far-eta path
    # (s = -sigma/M + tau/eta, nothing near eta sigma subtracted) gives the exact step,
    # here the limit argmin l(<u, x>) + sigma ||u||_1 itself: u = e_j / x_j, margin 1
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal(5), rng.standard_normal(5)
    j = int(np.argmax(np.abs(x)))
    for method in ("sort", "partition"):
        for eta, rel in ((1e300, 1e-15), (1e8, 1e-6)):
            u = rlmlib.fiol_step(w, x, 1.0, eta=eta, sigma=0.1, loss="hinge", method=method)
            assert u[j] == pytest.approx(1.0 / x[j], rel=rel)
            assert np.count_nonzero(u) == 1 and float(u @ x) == pytest.approx(1.0, rel=rel)


def test_comid_whose_objective_overflows_says_so():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 5))
    y = np.where(X[:, 0] + 0.1 > 0, 1.0, -1.0)
    from rlmlib.solvers.limits import StepLimitWarning

    with pytest.raises(FloatingPointError, match="comid diverged.*eta"):
        with pytest.warns((StepLimitWarning, rlmlib.ConvergenceWarning)):
            rlmlib.comid(X, y, sigma=0.01, eta=1e3, epochs=2, loss="exponential").objective


@pytest.mark.parametrize("sparse", [False, True])
def test_rows_of_subnormal_entries_have_their_norm_not_inf(sparse):
    # a row whose largest entry is subnormal is rescaled by it: x / M, never x * (1 / M)
    # (1 / 3e-310 overflows); stored zeros are not subnormal
    A = np.array([[3e-310, 0.0], [1e-309, 2e-309], [0.0, 0.0]])
    X = sp.csr_matrix(A) if sparse else A
    if sparse:
        X = sp.csr_matrix((np.array([3e-310, 0.0, 1e-309, 2e-309]), np.array([0, 1, 0, 1]),
                           np.array([0, 2, 4, 4])), shape=(3, 2))
    stats = as_rows(X).stats
    assert stats.max_norm == pytest.approx(np.sqrt(5.0) * 1e-309, rel=1e-15)
    assert stats.tiny == 3e-310


@pytest.mark.parametrize("loss", sorted(rlmlib.LOSSES))
def test_mean_loss_at_zero_is_the_pass_bit_for_bit(loss):
    """F(0) without a pass (a margin loss's value at 0 when the mean of m copies is exact)
    is the very float the O(m) pass gives, for labels and for regression targets."""
    from rlmlib.core.losses import loss_code, loss_values
    from rlmlib.core.objective import _mean, mean_loss_at_zero

    code = loss_code(loss)
    rng = np.random.default_rng(1)
    for m in (1, 2, 3, 7, 1000, 200_001):
        y = (np.where(rng.random(m) < 0.3, 1.0, -1.0)
             if rlmlib.LOSSES[loss]["task"] == "binary" else rng.standard_normal(m) * 5)
        z = np.zeros(m)
        want = _mean(loss_values(code, z, y, np.empty(m)))
        got = mean_loss_at_zero(code, y)
        assert got == want and type(got) is float, (loss, m, got, want)


def test_labels_already_plus_minus_one_are_used_as_given():
    """float64 labels that are already -1/+1 need no mapped copy; any other labels are
    mapped (a new array), and the two give the same values."""
    from rlmlib.core.rows import check_y

    y = np.array([1.0, -1.0, -1.0, 1.0])
    yf, classes = check_y(y)
    assert yf is y and classes.tolist() == [-1.0, 1.0]
    for other in (y.astype(np.int64), np.array([1.0, 0.0, 0.0, 1.0]), y[::-1][::-1].copy()):
        yo, _ = check_y(other)
        assert np.array_equal(yo, y)
    frozen = y.copy()
    frozen.flags.writeable = False  # a read-only y is mapped (kernels get writeable arrays)
    yo, _ = check_y(frozen)
    assert yo is not frozen and np.array_equal(yo, y)
    single = np.array([1.0, 1.0])  # one class, or a third value: refused as before
    with pytest.raises(ValueError, match="single class"):
        check_y(single)
    with pytest.raises(ValueError, match="exactly two classes"):
        check_y(np.array([1.0, -1.0, 0.5]))


def test_storage_order_is_one_kept_arange():
    from rlmlib.core.order import ExampleStream, storage_order

    a = storage_order(10)
    assert a.dtype == np.uint64 and a.tolist() == list(range(10))
    b = storage_order(1000)
    assert b.tolist() == list(range(1000)) and storage_order(10).tolist() == list(range(10))
    assert np.shares_memory(storage_order(5), storage_order(7))
    s = ExampleStream(6, "cyclic", 0)
    assert s.take(4).tolist() == [0, 1, 2, 3] and s.take(4).tolist() == [4, 5, 0, 1]


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge", "logistic"])
def test_svmsgd2_loop_copies_agree(loss):
    """The loop compiled per (dense, look_ahead) pair: compact dense rows and their CSR
    form, with and without the look-ahead, take the same steps to the bit."""
    from rlmlib.core.losses import loss_code
    from rlmlib.solvers.svmsgd2 import svmsgd2_steps

    rng = np.random.default_rng(2)
    X = rng.standard_normal((60, 7))
    y = np.where(rng.random(60) < 0.5, 1.0, -1.0)
    order = rng.permutation(60).astype(np.uint64)
    out = []
    for rows in (as_rows(X, compact_dense=True), as_rows(X)):
        for look in (True, False):
            w = np.zeros(7)
            state = np.array([3.0])
            svmsgd2_steps(rows.data, rows.indices.view(np.uint32),
                          rows.indptr.view(np.uint64), y, w, state, order, 0, 60, 0, 0.1,
                          10.0, 3, loss_code(loss), rows.indices.shape[0] == 7, look)
            out.append(w)
    assert all(np.array_equal(out[0], w) for w in out[1:]) and np.abs(out[0]).max() > 0


def _shuffled_rows(X, seed, how="random"):
    """X (CSR, canonical) with the entries of every row in another storage order: "random"
    (a permutation per row) or "reversed" (what scipy's product ``diags(d) @ X`` leaves),
    the same matrix as scipy reads it; neither sorted nor holding a duplicate."""
    rng = np.random.default_rng(seed)
    data, indices = X.data.copy(), X.indices.copy()
    for i in range(X.shape[0]):
        a, b = X.indptr[i], X.indptr[i + 1]
        p = rng.permutation(b - a) if how == "random" else np.arange(b - a)[::-1]
        data[a:b], indices[a:b] = data[a:b][p], indices[a:b][p]
    return sp.csr_matrix((data, indices, X.indptr.copy()), shape=X.shape)


@pytest.mark.parametrize("how", ["random", "reversed", "product"])
def test_unsorted_rows_are_taken_as_given_without_a_copy(how):
    """A CSR matrix whose rows are unsorted but free of duplicates reaches the kernels as
    given: the caller's own arrays (no copy, no sort), the same pass results where they do
    not depend on the order of a row's entries (faults, zeros, subnormals to the bit; R to
    the rounding of a sum of squares in another order)."""
    from rlmlib.core.rows import _scan_csr

    X = _random_csr(5)
    if how == "product":  # the way users meet it: a scipy product (a row scaling)
        X.eliminate_zeros()  # which the product drops
        U = sp.diags(np.ones(X.shape[0])) @ X
    else:
        U = _shuffled_rows(X, 3, how)
    assert not U.has_sorted_indices and U.nnz == X.nnz
    ref, rows = as_rows(X), as_rows(U)
    assert np.shares_memory(rows.indices, U.indices) and np.shares_memory(rows.data, U.data)
    assert rows.indices.tolist() == U.indices.tolist()  # not sorted
    assert rows.stats.tiny == ref.stats.tiny and rows.stats.zeros == ref.stats.zeros
    assert rows.stats.max_norm == pytest.approx(ref.stats.max_norm, rel=1e-15)
    out = _scan_csr(*_scan_args(U))
    assert out[0] == 0 and out[5] is False and out[6] == 0  # unsorted, no duplicate
    assert _scan_csr(*_scan_args(X))[5:] == (True, 0)


def test_canonical_rows_are_the_callers_arrays():
    """Canonical CSR (float64 data, int32 indices) is passed to the kernels without a copy:
    exactly the arrays it held, so every result on it is what it was before the pass
    learned to accept unsorted rows."""
    X = _random_csr(2)
    X.indptr = X.indptr.astype(np.int64)
    rows = as_rows(X)
    assert rows.data is X.data and rows.indices is X.indices and rows.indptr is X.indptr


@pytest.mark.parametrize("seed", range(3))
def test_duplicates_are_found_in_any_order_and_summed(seed):
    """A duplicate column is found in a row whatever the order of its entries (adjacent,
    apart, in a row that is otherwise reversed), without sorting, by the serial and the
    parallel pass alike; the matrix is then summed and sorted on a copy, equal to scipy's
    canonical form to the bit."""
    from rlmlib.core.rows import _scan_csr, _scan_csr_par

    rng = np.random.default_rng(seed)
    X = _shuffled_rows(_random_csr(seed), seed)
    rows_with = [i for i in range(X.shape[0]) if X.indptr[i + 1] - X.indptr[i] >= 3]
    planted = rng.choice(rows_with, 5, replace=False)
    for i in planted:  # column of one entry copied onto another entry of the row
        a, b = X.indptr[i], X.indptr[i + 1]
        j, k = rng.choice(np.arange(a, b), 2, replace=False)
        X.indices[k] = X.indices[j]
    args = _scan_args(X)
    ref = _scan_csr(*args)
    assert ref[0] == 0 and ref[6] == len(planted)
    for blocks in (2, 3, 8, 1000):
        assert _scan_csr_par(*args, 2, blocks) == ref
    rows = as_rows(X)
    C = X.copy()
    C.sum_duplicates()
    assert rows.indices.tolist() == C.indices.tolist()
    assert rows.data.tolist() == C.data.tolist() and rows.indptr.tolist() == C.indptr.tolist()
    # a reversed row with a duplicate is not taken for a strictly decreasing one
    R = sp.csr_matrix((np.ones(4), np.array([7, 5, 5, 2]), np.array([0, 4])), shape=(1, 9))
    assert _scan_csr(*_scan_args(R))[6] == 1 and as_rows(R).data.tolist() == [1, 2, 1]


@pytest.mark.parametrize("order", ["non-decreasing", "non-increasing", "mixed"])
def test_duplicates_in_ordered_rows_are_counted_and_summed_as_scipy_does(order):
    """Rows whose columns never decrease (each entry stored as runs of equal columns, as
    ``np.repeat`` of a canonical matrix builds them) or never increase: their duplicates
    are counted without the marker (the serial and the parallel pass alike), the same
    count as the marker's. Non-decreasing rows are summed without scipy's copies and sort,
    other orders by scipy's sort; either way the result is scipy's canonical form to the
    bit (sums that are zero, -0.0 and huge values included), and the caller's arrays are
    left as they were."""
    from rlmlib.core.rows import _row_duplicates, _scan_csr, _scan_csr_par

    rng = np.random.default_rng(4)
    X = _random_csr(4)
    X.sum_duplicates()
    reps = rng.integers(1, 4, X.nnz)               # each entry split into 1-3 parts
    data = np.repeat(X.data / reps, reps)
    data[rng.random(data.size) < 0.03] *= -1.0     # parts that cancel or change the sum
    data[rng.random(data.size) < 0.02] = -0.0
    data[rng.random(data.size) < 0.01] = 1e308
    indices = np.repeat(X.indices, reps)
    indptr = np.concatenate([[0], np.cumsum(reps)])[X.indptr].astype(np.int64)
    if order != "non-decreasing":
        for i in range(X.shape[0]):
            a, b = indptr[i], indptr[i + 1]
            indices[a:b] = indices[a:b][::-1]
            data[a:b] = data[a:b][::-1]
    if order == "mixed":                            # one row neither
        i = int(np.argmax(np.diff(indptr)))
        a, b = indptr[i], indptr[i + 1]
        indices[a:b] = np.roll(indices[a:b], 1)
    D = sp.csr_matrix((data, indices, indptr), shape=X.shape)
    args = _scan_args(D)
    ref = _scan_csr(*args)
    marker = np.full(X.shape[1], -1)
    expected = sum(_row_duplicates(indices, indptr[i], indptr[i + 1], marker, i)
                   for i in range(X.shape[0]))
    assert ref[0] == 0 and ref[6] == expected > 0
    for blocks in (2, 3, 8, 1000):
        assert _scan_csr_par(*args, 2, blocks) == ref
    kept = (D.data.copy(), D.indices.copy(), D.indptr.copy())
    with np.errstate(over="ignore"):
        rows = as_rows(D)
        C = D.copy()
        C.sum_duplicates()
    assert all(np.array_equal(a, b) for a, b in zip(kept, (D.data, D.indices, D.indptr)))
    assert rows.indices.tolist() == C.indices.tolist()
    assert rows.indptr.tolist() == C.indptr.tolist()
    assert np.array_equal(rows.data.view(np.int64), C.data.view(np.int64))


@pytest.mark.parametrize("bad", [[5, 2, 99], [5, -1, 2], [3, 3, 12]])
def test_unsorted_rows_with_a_column_out_of_range_are_refused(bad):
    """The duplicate search never indexes its marker with a column outside [0, n): the
    column fault is reported as for sorted rows."""
    X = sp.csr_matrix((10, 10))
    X.data, X.indices = np.ones(3), np.array(bad, dtype=np.int32)
    X.indptr = np.array([0] * 10 + [3])
    with pytest.raises(ValueError, match="column index .* is outside"):
        as_rows(X)


@pytest.mark.parametrize("name", sorted(rlmlib.SOLVERS))
def test_unsorted_rows_give_the_sorted_result_to_rounding(name):
    """Every registered solver on rows in another storage order: the weights of the sorted
    input to the rounding of sums taken in another order, the same classes and steps."""
    import warnings

    from solver_table import call

    rng = np.random.default_rng(0)
    X = sp.random(120, 15, density=0.3, format="csr", random_state=rng)
    X.data += 0.5
    y = np.where(rng.standard_normal(120) + X @ np.linspace(-1, 1, 15) > 0.3, 1.0, -1.0)
    U = _shuffled_rows(X, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = call(name, X, y), call(name, U, y)
    assert a.trace.iteration.tolist() == b.trace.iteration.tolist()
    np.testing.assert_allclose(b.w, a.w, rtol=1e-8, atol=1e-10 * np.abs(a.w).max())


def _random_csr(seed, m=403, n=57, density=0.08):
    """Random CSR whose rows exercise every branch of the validation pass: empty rows,
    stored zeros, subnormal entries, rows whose squares overflow or underflow (read again,
    scaled), unsorted and duplicate columns."""
    rng = np.random.default_rng(seed)
    X = sp.random(m, n, density=density, format="csr", random_state=rng,
                  data_rvs=rng.standard_normal)
    X.data[rng.random(X.nnz) < 0.05] = 0.0
    X.data[rng.random(X.nnz) < 0.01] = 5e-320
    for i, s in zip(rng.choice(m, 6, replace=False), [1e200, 1e-200, 1e-160, 1e160, 1e-310,
                                                      1e300]):
        X.data[X.indptr[i]:X.indptr[i + 1]] *= s
    return X


def _scan_args(X, data=None, indices=None, indptr=None):
    from rlmlib.core.rows import np as _np  # the module's own numpy, as its callers do

    data = X.data.astype(np.float64) if data is None else data
    indices = X.indices if indices is None else indices
    indptr = (X.indptr if indptr is None else indptr).astype(np.int64)
    return (data, indices, indptr.view(_np.uint64), np.uint64(X.shape[0]),
            np.uint64(X.shape[1]))


@pytest.mark.parametrize("seed", range(4))
def test_parallel_validation_pass_is_the_serial_one_bit_for_bit(seed):
    """Row blocks scanned on numba threads give the serial pass's result exactly: R to the
    last bit (each row summed by the same loop, blocks combined by max), the counts, the
    canonical flag, whatever the number of blocks (more blocks than rows too)."""
    from rlmlib.core.rows import _scan_csr, _scan_csr_par

    X = _random_csr(seed)
    args = _scan_args(X)
    ref = _scan_csr(*args)
    assert ref[0] == 0 and 0 < ref[2] < np.inf and ref[3] > 0 and ref[4] > 0
    R = max(np.linalg.norm(X[i].toarray() / 1e150) * 1e150 for i in range(X.shape[0]))
    assert ref[2] == pytest.approx(R, rel=1e-13)  # the pass measures what it says
    for threads, blocks in [(2, 2), (2, 3), (3, 4), (2, 7), (4, 16), (2, 1000)]:
        assert _scan_csr_par(*args, threads, blocks) == ref
    Y = X.copy()
    Y.indices[Y.indptr[200]:Y.indptr[201]] = Y.indices[Y.indptr[200]:Y.indptr[201]][::-1]
    ref = _scan_csr(*_scan_args(Y))
    assert ref[5] is False and ref[6] == 0  # reversed: unsorted, no duplicate
    for blocks in (2, 3, 8):
        assert _scan_csr_par(*_scan_args(Y), 2, blocks) == ref


def _plant(data, indices, indptr, shape, kind, row, rng):
    """(data, indices, indptr) of a CSR matrix with one more fault, planted in row ``row``
    (whose indptr entries are still sound)."""
    data, indices, indptr = data.copy(), indices.copy(), indptr.copy()
    a, b = indptr[row], indptr[row + 1]
    j = a + rng.integers(b - a)
    if kind == "nan":
        data[j] = np.nan
    elif kind == "inf":
        data[j] = -np.inf
    elif kind == "column":
        indices[j] = shape[1] + 3
    elif kind == "negative":
        indices[j] = -1
    elif kind == "indptr_down":
        indptr[row + 1] = a - 1
    elif kind == "indptr_beyond":
        indptr[row + 1] = data.shape[0] + 5
    return data, indices, indptr


@pytest.mark.parametrize("kinds", [("nan",), ("inf",), ("column",), ("negative",),
                                   ("indptr_down",), ("indptr_beyond",), ("nan", "nan"),
                                   ("nan", "column"), ("column", "nan"),
                                   ("nan", "indptr_down"), ("indptr_beyond", "nan"),
                                   ("column", "column"), ("indptr_down", "indptr_beyond")])
def test_parallel_validation_pass_reports_the_first_fault_as_the_serial_one(kinds):
    """Faults planted at rows in different blocks (and both in one block): the parallel pass
    returns the serial pass's fault code and position (structure faults first, then the
    lowest position), so check_X_y raises the same message on either path."""
    from rlmlib.core import rows as rows_mod

    rng = np.random.default_rng(len(kinds) * 7 + sum(map(len, kinds)))
    X = _random_csr(3, m=800, density=0.1)
    X = sp.csr_matrix(X.toarray())  # no empty rows: every row can hold a fault
    y = np.where(np.arange(800) % 2, 1.0, -1.0)
    for rows_at in [(5, 650), (650, 5), (399, 401), (10, 12), (0, 799), (799, 798)]:
        data, indices, indptr = X.data.copy(), X.indices.copy(), X.indptr.astype(np.int64)
        for kind, r in zip(kinds, rows_at):
            data, indices, indptr = _plant(data, indices, indptr, X.shape, kind, r, rng)
        args = _scan_args(X, data, indices, indptr)
        ref = rows_mod._scan_csr(*args)
        assert ref[0] != 0
        for blocks in (2, 3, 4, 8):
            assert rows_mod._scan_csr_par(*args, 2, blocks) == ref
        msgs = []
        for limit in (0, 10**18):  # parallel from 0 non-zeros, and never
            rows_mod.PARALLEL_NNZ, old = limit, rows_mod.PARALLEL_NNZ
            try:
                Z = sp.csr_matrix(X.shape)
                Z.data, Z.indices, Z.indptr = data, indices, indptr
                with pytest.raises(ValueError) as e:
                    check_X_y(Z, y)
                msgs.append(str(e.value))
            finally:
                rows_mod.PARALLEL_NNZ = old
        assert msgs[0] == msgs[1], kinds


def test_validation_pass_takes_the_parallel_path_only_when_it_pays(monkeypatch):
    """Serial below PARALLEL_NNZ stored values and with one thread, else on
    pass_threads() threads; RowStats equal on every path, sparse and dense."""
    from rlmlib.core import rows as rows_mod

    X = _random_csr(0, m=3000, n=200, density=0.05)
    D = X.toarray()
    calls = []
    for name in ("_scan_csr_par", "_scan_dense_par"):
        real = getattr(rows_mod, name)

        def spy(*a, real=real, name=name):
            calls.append((name, a[-2]))
            return real(*a)

        monkeypatch.setattr(rows_mod, name, spy)
    monkeypatch.setattr(rows_mod, "PARALLEL_NNZ", D.size + 1)
    serial, dense = as_rows(X).stats, as_rows(D).stats
    assert calls == [] and serial.max_norm == dense.max_norm
    monkeypatch.setattr(rows_mod, "PARALLEL_NNZ", X.nnz)
    for threads in (1, 2, 3):
        monkeypatch.setattr(rows_mod, "pass_threads", lambda t=threads: t)
        calls.clear()
        assert as_rows(X).stats == serial and as_rows(D).stats == dense
        assert calls == ([] if threads == 1 else
                         [("_scan_csr_par", threads), ("_scan_dense_par", threads)])
    assert serial.max_norm > 0 and serial.zeros > 0


@pytest.mark.parametrize("seed", range(3))
def test_parallel_dense_pass_is_the_serial_one_bit_for_bit(seed):
    """Dense rows in blocks on threads: the same R to the last bit, the same counts, and the
    first NaN/inf position in storage order wherever the faults are."""
    from rlmlib.core.rows import _scan_dense, _scan_dense_par

    D = _random_csr(seed, m=301, n=40, density=0.5).toarray()
    m, n = (np.uint64(k) for k in D.shape)
    ref = _scan_dense(D.ravel(), m, n)
    assert ref[0] == -1 and 0 < ref[1] < np.inf and ref[2] > 0 and ref[3] > 0
    for threads, blocks in [(2, 2), (2, 3), (3, 4), (2, 7), (4, 400)]:
        assert _scan_dense_par(D.ravel(), m, n, threads, blocks) == ref
    for at in [(5, 250), (250, 5), (150, 151), (300, 0)]:
        E = D.copy()
        E[at[0], 3], E[at[1], 7] = np.nan, -np.inf
        ref = _scan_dense(E.ravel(), m, n)
        assert ref[0] == min(at[0] * 40 + 3, at[1] * 40 + 7)
        for blocks in (2, 3, 8):
            assert _scan_dense_par(E.ravel(), m, n, 2, blocks) == ref


@pytest.mark.parametrize("seed", range(3))
def test_fortran_pass_is_the_c_ordered_copy_and_its_pass(seed):
    """A Fortran-ordered float64 array is copied to C order and scanned in one pass
    (tiles of rows): the same values and the same RowStats to the bit as the C-ordered
    array's pass, serial and on threads, with tile-sized, smaller and ragged row counts,
    and the same error naming the first NaN/inf in C order."""
    from rlmlib.core.rows import F_TILE_ROWS, _scan_dense, scan_fortran

    for m in (7, F_TILE_ROWS - 1, F_TILE_ROWS, 3 * F_TILE_ROWS + 5):
        D = _random_csr(seed, m=m, n=40, density=0.5).toarray()
        C = as_rows(D)
        F = as_rows(np.asfortranarray(D))
        assert F.data.flags.c_contiguous and np.array_equal(F.data.view(np.int64),
                                                            D.ravel().view(np.int64))
        assert F.stats == C.stats and np.array_equal(F.indices, C.indices)
        for threads, blocks in [(1, 1), (2, 2), (2, 7), (3, 4)]:
            out, res = scan_fortran(np.asfortranarray(D), threads, blocks)
            assert np.array_equal(out, D) and out.flags.c_contiguous
            assert res == _scan_dense(D.ravel(), np.uint64(m), np.uint64(40))
            assert res[0] == -1 and res[1] == C.stats.max_norm and res[3] == C.stats.zeros
    D = _random_csr(seed, m=301, n=40, density=0.5).toarray()
    E = D.copy()
    E[150, 3], E[7, 39] = np.nan, -np.inf
    with pytest.raises(ValueError, match="found -inf"):
        as_rows(np.asfortranarray(E))
    for threads, blocks in [(1, 1), (2, 3), (2, 8)]:
        assert scan_fortran(np.asfortranarray(E), threads, blocks)[1][0] == 7 * 40 + 39


def test_dense_pass_counts_zeros_and_subnormals():
    """The dense pass's counts (one compare per entry, zeros told from subnormals only in
    rows that hold either) equal numpy's, and its R the largest row norm."""
    rng = np.random.default_rng(4)
    D = rng.standard_normal((500, 37))
    D[rng.random(D.shape) < 0.2] = 0.0
    D[rng.random(D.shape) < 0.01] = -5e-320
    D[rng.random(D.shape) < 0.01] = -0.0
    D[:100] = rng.standard_normal((100, 37))  # rows without either
    st = as_rows(D).stats
    a = np.abs(D)
    assert st.zeros == int((a == 0).sum()) > 0
    assert st.tiny == a[(a > 0) & (a < 2.2250738585072014e-308)].min() == 5e-320
    assert st.max_norm == pytest.approx(np.linalg.norm(D, axis=1).max(), rel=1e-15)


def test_pass_threads_follow_numba_num_threads_without_starting_numba_threads():
    """pass_threads() reads NUMBA_NUM_THREADS (1 turns the threads off) and the cores the
    process may use, and a parallel pass leaves numba's threading layer unstarted (GNU
    OpenMP, once started, breaks fork)."""
    import os
    import subprocess
    import sys

    code = ("import numpy as np, scipy.sparse as sp, numba.np.ufunc.parallel as par\n"
            "from rlmlib.core import rows\n"
            "rows.PARALLEL_NNZ = 0\n"
            "X = sp.random(500, 50, density=0.2, format='csr', random_state=0)\n"
            "rows.as_rows(X); rows.as_rows(X.toarray())\n"
            "print(rows.pass_threads(), par._is_initialized)\n")
    from rlmlib.core.cpus import usable_cores

    cores = usable_cores()
    for env, want in [("1", 1), ("2", min(2, cores)), (None, min(cores, 4))]:
        e = dict(os.environ)
        e.pop("NUMBA_NUM_THREADS", None)
        if env:
            e["NUMBA_NUM_THREADS"] = env
        out = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True,
                             text=True, check=True).stdout.split()
        assert out == [str(want), "False"], (env, out)


def test_validation_pass_from_several_threads_at_once():
    """Python threads checking data at once (a threaded Dask worker, a web server), each
    pass on threads of its own, get the serial pass's stats each."""
    from concurrent.futures import ThreadPoolExecutor

    from rlmlib.core import rows as rows_mod

    X = _random_csr(1, m=4000, n=300, density=0.1)
    old, rows_mod.PARALLEL_NNZ = rows_mod.PARALLEL_NNZ, 0
    try:
        with ThreadPoolExecutor(4) as ex:
            got = list(ex.map(lambda _: as_rows(X).stats, range(24)))
    finally:
        rows_mod.PARALLEL_NNZ = old
    ref = rows_mod._stats(X.data, *rows_mod._scan_csr(*_scan_args(X))[2:5])
    assert all(g == ref for g in got)


def test_an_error_in_a_block_reaches_the_caller():
    """A block that raises (in the calling thread or a helper) raises in the caller, not as
    a warning of a dying thread with the result left half-filled."""
    from rlmlib.core.rows import _run_blocks

    def scan(r0, r1):
        if r0 >= 5:
            raise ZeroDivisionError(f"block at {r0}")
        return r1 - r0

    for threads in (1, 2, 3):
        with pytest.raises(ZeroDivisionError, match="block at"):
            _run_blocks(scan, (), 20, threads, 4)
    assert _run_blocks(scan, (), 4, 2, 2) == [2, 2]


def test_a_forked_child_checks_data_after_a_parallel_pass():
    """After a pass on threads (the pass's pool of Python threads, which do not exist in
    a forked child), a forked child (as multiprocessing's default start method on Linux
    makes) runs the pass again, on threads of its own pool, and gets the parent's
    stats."""
    import multiprocessing as mp

    from rlmlib.core import rows as rows_mod

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    X = _random_csr(2, m=2000, n=100, density=0.1)
    old, rows_mod.PARALLEL_NNZ = rows_mod.PARALLEL_NNZ, 0
    try:
        parent = as_rows(X).stats
        with mp.get_context("fork").Pool(1) as pool:
            child = pool.apply_async(_stats_of, (X,)).get(timeout=60)
    finally:
        rows_mod.PARALLEL_NNZ = old
    assert child == parent and parent.max_norm > 0


def _stats_of(X):
    """as_rows(X).stats, in a child process, on threads from 0 stored values."""
    from rlmlib.core import rows as rows_mod

    rows_mod.PARALLEL_NNZ = 0
    return as_rows(X).stats


def test_fixed_pass_threads_sets_the_threads_in_a_block_and_restores_them(monkeypatch):
    """fixed_pass_threads(k): the pass on k threads inside the block (nested blocks too),
    the automatic choice again after it, even after an error; a bad k is refused; the
    timing harness's differences run the pass serially (their set-up must cancel)."""
    from rlmlib.book.bench import timing
    from rlmlib.core import rows as rows_mod

    auto = rows_mod.pass_threads()
    with rows_mod.fixed_pass_threads(3):
        assert rows_mod.pass_threads() == 3
        with rows_mod.fixed_pass_threads(1):
            assert rows_mod._parallel_threads(10**9, 10**6) == 1
        assert rows_mod.pass_threads() == 3
    with pytest.raises(ZeroDivisionError), rows_mod.fixed_pass_threads(2):
        1 / 0
    assert rows_mod.pass_threads() == auto
    with pytest.raises(ValueError, match="threads must be an integer"):
        with rows_mod.fixed_pass_threads(0):
            pass
    X = _random_csr(0, m=3000, n=200, density=0.05)
    monkeypatch.setattr(rows_mod, "PARALLEL_NNZ", 0)
    seen = []
    real = rows_mod._parallel_threads
    monkeypatch.setattr(rows_mod, "_parallel_threads", lambda *a: seen.append(real(*a))
                        or seen[-1])
    timing.cpu_difference(lambda k: [as_rows(X) for _ in range(k)])
    assert seen == [1, 1, 1]


def _coo_cases(seed):
    """COO matrices of one random CSR matrix, stored as users build them: row by row with
    increasing columns (tocoo of a canonical CSR, float64 or float32, int64 rows, empty
    rows first and last), and the forms that take scipy's conversion: columns shuffled
    within rows, entries in any order, a duplicate entry."""
    rng = np.random.default_rng(seed)
    A = _random_csr(seed, m=300, density=0.05)
    A = sp.vstack([sp.csr_matrix((2, A.shape[1])), A, sp.csr_matrix((3, A.shape[1]))])
    C = A.tocsr().tocoo()
    r, c, d = C.row, C.col, C.data
    within = np.lexsort((rng.random(d.size), r))
    anywhere = rng.permutation(d.size)
    k = d.size // 2
    dup = (np.insert(r, k, r[k]), np.insert(c, k, c[k]), np.insert(d, k, 0.25))
    shape = C.shape
    return {"in order": (C, True),
            "in order, float32": (sp.coo_matrix((np.float32(1) + rng.random(d.size, np.float32),
                                                 (r, c)), shape), True),
            "in order, int64 rows": (sp.coo_matrix((d, (r.astype(np.int64), c)), shape), True),
            "in order, coo_array": (sp.coo_array(C), True),
            "shuffled within rows": (sp.coo_matrix((d[within], (r[within], c[within])), shape),
                                     False),
            "any order": (sp.coo_matrix((d[anywhere], (r[anywhere], c[anywhere])), shape),
                          False),
            "a duplicate": (sp.coo_matrix((dup[2], (dup[0], dup[1])), shape), False)}


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("keep_float32", [False, True])
def test_coo_in_row_order_is_read_as_stored_and_equals_scipys_conversion(seed, keep_float32):
    """A COO matrix stored row by row with increasing columns is read without scipy's
    conversion (its column array is the kernels' indices: no copy), and every COO form
    gives exactly the rows of ``as_rows(X.tocsr())``: the same arrays to the bit, the same
    statistics."""
    for what, (X, direct) in _coo_cases(seed).items():
        rows = as_rows(X, keep_float32=keep_float32)
        ref = as_rows(X.tocsr(), keep_float32=keep_float32)
        for k in ("data", "indices", "indptr"):
            a, b = getattr(rows, k), getattr(ref, k)
            assert a.dtype == b.dtype and np.array_equal(a, b), (what, k)
        assert rows.stats == ref.stats and rows.sparse, what
        col = X.coords[1] if hasattr(X, "coords") else X.col
        assert np.shares_memory(rows.indices, col) == direct, what


@pytest.mark.parametrize("fault", ["column", "negative column", "row", "nan"])
@pytest.mark.parametrize("ordered", [True, False])
def test_coo_faults_get_the_coo_messages_in_either_order(fault, ordered):
    """A fault in a COO matrix is reported as before the row-order path existed (it falls
    back to the check of the COO structure), whether the entries are in row order or
    not."""
    X = sp.coo_matrix(([1.0, 2.0, 3.0], ([0, 1, 1], [0, 1, 2])), shape=(2, 3))
    if not ordered:
        X = sp.coo_matrix((X.data[::-1].copy(), (X.row[::-1].copy(), X.col[::-1].copy())),
                          shape=(2, 3))
    k = 1
    if fault == "column":
        X.col[k], pattern = 7, "malformed COO matrix: column index 7 is outside"
    elif fault == "negative column":
        X.col[k], pattern = -1, "malformed COO matrix: column index -1 is outside"
    elif fault == "row":
        X.row[-1], pattern = 2, "malformed COO matrix: row index 2 is outside"
    else:
        X.data[k], pattern = np.nan, "X must not contain NaN or inf, found nan"
    with pytest.raises(ValueError, match=pattern):
        as_rows(X)


@pytest.mark.parametrize("n", [1, 7, 300, 20_000])
def test_dense_pass_counts_zeros_and_subnormals_across_blocks(n):
    """The dense pass counts zeros and subnormal entries a block of rows at a time: the
    counts, the smallest subnormal and the first NaN's position are exact whatever the
    row length (rows shorter and longer than a block) and wherever the entries sit, on
    one thread and on several."""
    from rlmlib.core.rows import _scan_dense, _scan_dense_par

    rng = np.random.default_rng(n)
    m = max(2, 60_000 // n)
    X = rng.standard_normal((m, n))
    flat = X.reshape(-1)
    zeros = rng.choice(flat.size, flat.size // 5, replace=False)
    flat[zeros] = 0.0
    subs = rng.choice(np.setdiff1d(np.arange(flat.size), zeros), 3, replace=False)
    flat[subs] = [5e-324, -3e-310, 2.2e-308]
    out = _scan_dense(flat, np.uint64(m), np.uint64(n))
    assert out[0] == -1 and out[2] == 3 and out[3] == zeros.size
    R = max(np.linalg.norm(row) for row in X)
    assert out[1] == pytest.approx(R, rel=1e-13)
    for threads, blocks in [(2, 2), (2, 7), (3, 5)]:
        par = _scan_dense_par(flat, m, np.uint64(n), threads, blocks)
        assert par[0] == -1 and par[2:] == out[2:] and par[1] == pytest.approx(R, rel=1e-13)
    rows = as_rows(X)
    assert rows.stats.tiny == 5e-324 and rows.stats.zeros == zeros.size
    where = int(rng.integers(flat.size))
    flat[where] = np.nan
    assert _scan_dense(flat, np.uint64(m), np.uint64(n))[0] == where



def test_threaded_pass_reuses_its_helper_threads():
    """The parallel pass keeps its helper threads between calls: the same pool object,
    the same result as the serial pass every time, whatever the threads and blocks (a
    forked child starts its own pool: the test above)."""
    from rlmlib.core import rows as rows_mod
    from rlmlib.core.rows import _scan_csr, _scan_csr_par

    X = _random_csr(1)
    ref = _scan_csr(*_scan_args(X))
    assert _scan_csr_par(*_scan_args(X), 2, 4) == ref
    pool = rows_mod._pass_pool()
    assert _scan_csr_par(*_scan_args(X), 3, 7) == ref and rows_mod._pass_pool() is pool
