"""Example order (order=), the lazy default trace and the one name sigma (issue 8)."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.core.order import ExampleStream
from rlmlib.core.losses import loss_code, loss_deriv
from rlmlib.solvers.pegasos import sample_indices


def textbook_sgd(X, y, sigma, epochs, loss, t0, orders):
    """w <- w - eta (sigma w + loss' x) over the given per-epoch orders (no scaled vector)."""
    code = loss_code(loss)
    w = np.zeros(X.shape[1])
    t = 0
    for e in range(epochs):
        for i in orders[e]:
            eta = 1.0 / (sigma * (t + t0))
            w = w - eta * (sigma * w + loss_deriv(code, X[i] @ w, y[i]) * X[i])
            t += 1
    return w


def epoch_orders(m, order, seed, epochs):
    rng = np.random.default_rng(seed)
    if order == "reshuffle":
        return [rng.permutation(m) for _ in range(epochs)]
    if order == "shuffle_once":
        return [rng.permutation(m)] * epochs
    return [np.arange(m)] * epochs


@pytest.mark.parametrize("order", ["reshuffle", "shuffle_once", "cyclic"])
@pytest.mark.parametrize("sparse", [False, True])
def test_sgd_visits_examples_in_the_order_asked(binary, order, sparse):
    X, y = binary
    Xin = sp.csr_matrix(X) if sparse else X
    res = rlmlib.sgd(Xin, y, sigma=0.05, epochs=3, loss="logistic", seed=3, order=order)
    w = textbook_sgd(X, y, 0.05, 3, "logistic", res.params["t0"],
                     epoch_orders(X.shape[0], order, 3, 3))
    np.testing.assert_allclose(res.w, w, rtol=1e-10, atol=1e-13)
    assert res.params["order"] == order


@pytest.mark.parametrize("order", ["reshuffle", "shuffle_once", "cyclic", "replacement"])
def test_same_seed_same_result_whatever_the_checkpoints(binary_sparse, order):
    X, Xs, y = binary_sparse
    runs = [
        rlmlib.pegasos(Xs, y, sigma=0.01, T=700, k=2, seed=9, order=order),
        rlmlib.pegasos(Xs, y, sigma=0.01, T=700, k=2, seed=9, order=order, n_checkpoints=7),
        rlmlib.pegasos(X, y, sigma=0.01, T=700, k=2, seed=9, order=order, n_checkpoints=3),
    ]
    np.testing.assert_array_equal(runs[0].w, runs[1].w)
    np.testing.assert_allclose(runs[0].w, runs[2].w, rtol=1e-12, atol=1e-15)
    p = [rlmlib.pgs(Xs, y, p=1.7, sigma=0.01, T=500, seed=2, order=order, n_checkpoints=c)
         for c in (None, 5)]
    np.testing.assert_array_equal(p[0].w, p[1].w)
    if order != "cyclic":  # another seed, another run
        other = rlmlib.pegasos(Xs, y, sigma=0.01, T=700, k=2, seed=10, order=order)
        assert not np.allclose(other.w, runs[0].w)
    s = [rlmlib.sgd(Xs, y, sigma=0.01, epochs=3, seed=4, order=order, n_checkpoints=c)
         for c in (None, 4, 11)]
    np.testing.assert_array_equal(s[0].w, s[1].w)
    np.testing.assert_array_equal(s[0].w, s[2].w)


def test_stream_blocks():
    m = 37
    for order in ("reshuffle", "shuffle_once", "cyclic"):
        idx = ExampleStream(m, order, 5).take(4 * m).reshape(4, m)
        for row in idx:  # every epoch is a permutation
            np.testing.assert_array_equal(np.sort(row), np.arange(m))
        if order == "cyclic":
            np.testing.assert_array_equal(idx[0], np.arange(m))
        same = [np.array_equal(idx[0], r) for r in idx[1:]]
        assert all(same) == (order != "reshuffle")
    # taking in pieces gives the same sequence as taking at once
    a = ExampleStream(m, "reshuffle", 1)
    pieces = np.concatenate([a.take(c) for c in (5, 40, 1, 70, 3)])
    np.testing.assert_array_equal(pieces, ExampleStream(m, "reshuffle", 1).take(119))
    rep = sample_indices(m, 2, 50, seed=3)
    assert rep.min() >= 0 and rep.max() < m and rep.shape == (50, 2)
    np.testing.assert_array_equal(sample_indices(m, 1, m, seed=0, order="cyclic")[:, 0],
                                  np.arange(m))


def test_pegasos_cyclic_matches_the_indices_it_reports(binary):
    X, y = binary
    a = rlmlib.pegasos(X, y, sigma=0.02, T=300, order="cyclic")
    b = rlmlib.pegasos(X, y, sigma=0.02, T=300, order="shuffle_once", seed=1)
    # cyclic needs no random numbers: any seed gives the same run
    np.testing.assert_array_equal(a.w, rlmlib.pegasos(X, y, sigma=0.02, T=300,
                                                      order="cyclic", seed=77).w)
    assert not np.allclose(a.w, b.w)


def test_bad_order_and_lam_are_named(binary):
    X, y = binary
    with pytest.raises(ValueError, match="order must be one of 'reshuffle', 'shuffle_once', "
                                         "'cyclic', 'replacement'; got 'random'"):
        rlmlib.sgd(X, y, sigma=0.1, epochs=1, order="random")
    with pytest.raises(ValueError, match="order must be one of"):
        rlmlib.pegasos(X, y, sigma=0.1, T=5, order=None)
    for solver, kw in ((rlmlib.sgd, dict(epochs=1)), (rlmlib.pegasos, dict(T=10))):
        with pytest.raises(TypeError, match=r"sigma=, not lam= \(got lam=0.1\)"):
            solver(X, y, lam=0.1, **kw)
    with pytest.raises(TypeError, match="sigma"):
        rlmlib.sgd(X, y, epochs=1)
    with pytest.raises(ValueError, match="n_checkpoints must be"):
        rlmlib.sgd(X, y, sigma=0.1, epochs=1, n_checkpoints=0)


def test_lazy_objective_is_exact_and_computed_once(binary_sparse):
    X, Xs, y = binary_sparse
    for res in (rlmlib.sgd(Xs, y, sigma=0.01, epochs=2, loss="logistic"),
                rlmlib.pegasos(Xs, y, sigma=0.01, T=400),
                rlmlib.pgs(Xs, y, p=1.5, sigma=0.01, T=400, loss="logistic")):
        assert res.trace.lazy and len(res.trace) == 2
        assert res.trace.eval_seconds < 1.0
        p = res.params.get("p", 2.0)
        exact = rlmlib.objective(X, y, res.w, sigma=0.01, loss=res.params["loss"], p=p)
        assert res.objective == pytest.approx(exact, rel=1e-13)
        assert not res.trace.lazy
        # the start is F(0) = mean loss at margin 0
        f0 = rlmlib.objective(X, y, np.zeros(X.shape[1]), sigma=0.01,
                              loss=res.params["loss"], p=p)
        assert res.trace.objective[0] == pytest.approx(f0, rel=1e-15)
        np.testing.assert_array_equal(res.trace.iteration[[0, -1]],
                                      [0, res.trace.iteration[-1]])
    # pickling settles a lazy trace first (no reference to the data travels)
    res = rlmlib.sgd(Xs, y, sigma=0.01, epochs=2, X_test=Xs[:30], y_test=y[:30])
    assert res.trace.lazy
    back = pickle.loads(pickle.dumps(res))
    assert not back.trace.lazy and back.objective == res.objective
    assert 0.0 <= back.trace.test_metric[-1] <= 1.0
    assert back.trace.test_metric[-1] == rlmlib.accuracy(Xs[:30], y[:30], res.w)


def test_exact_trace_on_request(binary):
    X, y = binary
    res = rlmlib.sgd(X, y, sigma=0.01, epochs=4, loss="logistic", n_checkpoints=8)
    assert len(res.trace) == 9 and not res.trace.lazy
    np.testing.assert_array_equal(res.trace.iteration, np.arange(9) * 60)
    for c, obj in zip((3, 6, 8), res.trace.objective[[3, 6, 8]]):
        # the run stopped at checkpoint c: same steps (same seed), same w, same objective
        part = rlmlib.sgd(X, y, sigma=0.01, epochs=4, loss="logistic", n_checkpoints=8)
        w = textbook_sgd(X, y, 0.01, 4, "logistic", part.params["t0"],
                         [o[: max(0, min(120, 60 * c - 120 * e))] for e, o in
                          enumerate(epoch_orders(120, "reshuffle", 0, 4))])
        assert obj == pytest.approx(rlmlib.objective(X, y, w, sigma=0.01, loss="logistic"),
                                    rel=1e-10)


def test_estimator_fit_evaluates_nothing(binary):
    X, y = binary
    clf = rlmlib.RLMClassifier(solver="sgd", sigma=1e-2, epochs=2).fit(X, y)
    assert clf.results_[0].trace.lazy
    assert clf.score(X, y) > 0.7


@pytest.mark.parametrize("sparse", [False, True])
def test_shuffle_once_copy_path_is_the_same_run(binary, sparse):
    """From COPY_FROM_EPOCHS epochs on, shuffle_once copies the rows into the permuted order
    and streams them: the same steps as walking the permutation, to the bit."""
    from rlmlib.core.order import COPY_FROM_EPOCHS, permute_rows

    X, y = binary
    Xin = sp.csr_matrix(X) if sparse else X
    E = COPY_FROM_EPOCHS
    res = rlmlib.sgd(Xin, y, sigma=0.05, epochs=E, loss="logistic", seed=3,
                     order="shuffle_once", n_checkpoints=5)
    w = textbook_sgd(X, y, 0.05, E, "logistic", res.params["t0"],
                     epoch_orders(X.shape[0], "shuffle_once", 3, E))
    np.testing.assert_allclose(res.w, w, rtol=1e-10, atol=1e-13)
    # and bit for bit equal to a cyclic run over the permuted copy
    perm = ExampleStream(X.shape[0], "shuffle_once", 3).take(X.shape[0])
    cyc = rlmlib.sgd(Xin[perm.astype(np.int64)], y[perm.astype(np.int64)], sigma=0.05,
                     epochs=E, loss="logistic", order="cyclic")
    np.testing.assert_array_equal(res.w, cyc.w)
    rows = rlmlib.as_rows(Xs := sp.csr_matrix(X))
    prow, py = permute_rows(rows, y, perm)
    back = sp.csr_matrix((prow.data, prow.indices, prow.indptr), shape=X.shape)
    np.testing.assert_array_equal(back.toarray(), X[perm.astype(np.int64)])
    np.testing.assert_array_equal(py, y[perm.astype(np.int64)])
    assert Xs.nnz == prow.data.shape[0]


def test_sgd_with_replacement_draws_what_sample_indices_reports(binary):
    X, y = binary
    m = X.shape[0]
    res = rlmlib.sgd(X, y, sigma=0.05, epochs=2, loss="logistic", seed=6, order="replacement")
    idx = sample_indices(m, 1, 2 * m, seed=6)[:, 0]
    w = textbook_sgd(X, y, 0.05, 2, "logistic", res.params["t0"], [idx[:m], idx[m:]])
    np.testing.assert_allclose(res.w, w, rtol=1e-10, atol=1e-13)
    assert len(np.unique(idx[:m])) < m     # with replacement: some examples repeat


def test_result_says_when_its_objective_is_not_representable(binary):
    from rlmlib.core.result import Result, Trace

    X, y = binary
    res = rlmlib.sgd(X, y, sigma=0.1, epochs=1)
    assert res.objective_representable and "beyond" not in repr(res)
    tr = Trace(iteration=np.array([0, 1]), epoch=np.array([0.0, 1.0]),
               seconds=np.array([0.0, 0.1]), objective=np.array([1.0, np.inf]))
    big = Result(w=np.zeros(3), solver="x", params={}, trace=tr)
    assert not big.objective_representable
    assert "objective=inf (beyond the largest double)" in repr(big)
