"""SDCA: equality with the literal transcription of its box, dense = sparse, the optimum
certified by rlmlib.lbfgs, and the duality gap bounding the true gap."""
import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.book.vr import draws, sdca_literal

LOSSES = ["hinge", "squared_hinge", "logistic", "squared"]


def problem(loss, m=150, n=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n)) / np.arange(1, n + 1)
    X *= rng.random((m, n)) < 0.5
    z = X @ rng.standard_normal(n)
    if loss == "squared":
        return X, z + 0.1 * rng.standard_normal(m)
    return X, np.where(z + 0.3 * rng.standard_normal(m) > 0, 1.0, -1.0)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("order", ["reshuffle", "replacement"])
def test_equals_its_box(loss, order):
    X, y = problem(loss)
    res = rlmlib.sdca(sp.csr_matrix(X), y, sigma=0.02, epochs=4, loss=loss, order=order,
                      seed=4, shrinking=False)
    w, alpha = sdca_literal(X, y, 0.02, draws(len(y), 4 * len(y), order, 4), loss)
    np.testing.assert_allclose(res.w, w, rtol=1e-12, atol=1e-12 * np.abs(w).max())
    np.testing.assert_allclose(res.info["alpha"], alpha, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("loss", LOSSES)
def test_dense_equals_sparse(loss):
    X, y = problem(loss)
    a = rlmlib.sdca(X, y, sigma=0.01, epochs=6, loss=loss)
    b = rlmlib.sdca(sp.csr_matrix(X), y, sigma=0.01, epochs=6, loss=loss)
    np.testing.assert_allclose(a.w, b.w, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("loss", ["squared_hinge", "logistic", "squared"])
def test_reaches_certified_optimum(loss):
    X, y = problem(loss, m=300)
    ref = rlmlib.lbfgs(X, y, sigma=0.01, loss=loss, tol=1e-12)
    assert ref.info["converged"]
    res = rlmlib.sdca(X, y, sigma=0.01, epochs=100, loss=loss)
    assert res.info["gap"] < 1e-10
    assert abs(res.objective - ref.objective) < 1e-10
    np.testing.assert_allclose(res.w, ref.w, atol=1e-5 * np.abs(ref.w).max())


@pytest.mark.parametrize("shrinking", [True, False])
def test_hinge_optimum_by_kkt(shrinking):
    # hinge has no smooth reference: check the KKT conditions of the dual at the end
    X, y = problem("hinge", m=300)
    res = rlmlib.sdca(X, y, sigma=0.01, epochs=300, loss="hinge", shrinking=shrinking)
    assert res.params["shrinking"] is shrinking
    b, s = res.info["alpha"] * y, y * (X @ res.w)
    assert res.info["gap"] < 1e-9
    assert np.all(s[b < 1e-9] >= 1 - 1e-6) and np.all(s[b > 1 - 1e-9] <= 1 + 1e-6)
    mid = (b > 1e-6) & (b < 1 - 1e-6)
    np.testing.assert_allclose(s[mid], 1.0, atol=1e-5)


@pytest.mark.parametrize("loss", LOSSES)
def test_gap_bounds_true_gap(loss):
    X, y = problem(loss, m=300)
    best = rlmlib.sdca(X, y, sigma=0.01, epochs=400, loss=loss).objective
    res = rlmlib.sdca(X, y, sigma=0.01, epochs=8, loss=loss, n_checkpoints=8)
    gaps, P = res.info["gaps"], res.trace.objective
    assert len(gaps) == len(P) and np.all(gaps >= -1e-14)
    assert np.all(P - best <= gaps + 1e-13)
    # and the certificate is not vacuous: it falls by 1e3 over the run
    assert gaps[-1] < 1e-3 * gaps[1]
    # D(α) recomputed from α alone
    w = X.T @ res.info["alpha"] / (0.01 * len(y))
    np.testing.assert_allclose(w, res.w, atol=1e-12)


def test_shrinking_skips_but_reaches_the_same_optimum():
    X, y = problem("hinge", m=400)
    a = rlmlib.sdca(X, y, sigma=0.01, epochs=200, shrinking=True)
    b = rlmlib.sdca(X, y, sigma=0.01, epochs=200, shrinking=False)
    assert a.info["active"] < 400 and b.info["active"] == 400   # it did skip examples
    assert a.info["gap"] < 1e-9 and b.info["gap"] < 1e-9
    np.testing.assert_allclose(a.w, b.w, atol=1e-4 * np.abs(b.w).max())


def test_bad_inputs():
    X, y = problem("hinge")
    with pytest.raises(TypeError, match="shrinking"):
        rlmlib.sdca(X, y, sigma=0.1, shrinking="yes")
    with pytest.raises(ValueError, match="loss must be one of 'hinge'"):
        rlmlib.sdca(X, y, sigma=0.1, loss="absolute")
    with pytest.raises(ValueError, match="sigma"):
        rlmlib.sdca(X, y, sigma=-1.0)
    with pytest.raises(ValueError, match="order"):
        rlmlib.sdca(X, y, sigma=0.1, order="random")
    with pytest.raises(TypeError, match="sigma"):
        rlmlib.sdca(X, y, lam=0.1)
    with pytest.raises(ValueError):
        rlmlib.sdca(X, np.zeros(len(y)), sigma=0.1)  # one class


SEGMENT_CODE = """
import numpy as np, scipy.sparse as sp, rlmlib
rng = np.random.default_rng(0)
X = rng.standard_normal((200, 10)); y = np.sign(X[:, 0] + 0.3 * rng.standard_normal(200))
for A in (X, sp.csr_matrix(X)):
    for n_checkpoints in (None, 1, 2):
        r = rlmlib.sdca(A, y, sigma=1e-2, epochs=5, order="replacement",
                        n_checkpoints=n_checkpoints)
        print(repr(r.objective), repr(r.info["gap"]), r.info["active"])
clf = rlmlib.RLMClassifier(solver="sdca", sigma=1e-2, epochs=5, order="replacement")
print(clf.fit(X, y).score(X, y))
"""


def test_replacement_with_shrinking_stays_inside_its_arrays():
    """order='replacement' hands out blocks of uniform draws longer than a pass; the driver
    cuts them at each pass's end. Before, one SDCA segment spanned several passes and its
    m-long scratch of active examples was written past its end (SIGSEGV, or an
    IndexError under NUMBA_BOUNDSCHECK). In a subprocess: a crash fails this test only."""
    import os
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", SEGMENT_CODE], capture_output=True,
                         text=True, env=dict(os.environ), timeout=600)
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    lines = out.stdout.split("\n")
    for line in lines[:6]:
        obj, gap, active = line.split()
        assert 0.0 <= float(gap) < float(obj) and 0 < int(active) <= 200, line
    # same draws whatever the checkpoints: the same weights to the bit
    assert len({line.split()[0] for line in lines[:3]}) == 1, lines
    assert 0.8 < float(lines[6]) <= 1.0, lines


def test_segments_never_cross_an_epoch():
    """The driver's epoch mode: every piece a kernel is given lies within one epoch, for
    every order and every way of cutting the run into checkpoints."""
    X = np.random.default_rng(1).standard_normal((7, 3))
    y = np.array([1, -1, 1, 1, -1, -1, 1])
    for order in ("replacement", "reshuffle", "shuffle_once", "cyclic"):
        for n_checkpoints in (1, 2, 3, 20):
            P = rlmlib.core.problem.Problem("sdca", X, y, sigma=0.1, loss="hinge", epochs=5,
                                            seed=0, order=order, n_checkpoints=n_checkpoints,
                                            orders=rlmlib.core.order.ORDERS)
            pieces = []
            advance = P.walker(lambda *a: pieces.append((a[5], a[6], a[7])), copy_rows=False)
            advance(0, 5 * 7)
            assert sum(b - a for a, b, _ in pieces) == 35
            for a, b, t in pieces:
                assert t // 7 == (t + b - a - 1) // 7, (order, n_checkpoints, pieces)


def test_logistic_ascends_at_a_tiny_sigma():
    """sigma = 1e-8 on rows of norm ~20: coordinate curvatures ~1e9. The logistic
    coordinate step once bisected a bracket of width 2e9 a dozen times and landed far from
    its root: the dual decreased and F ended at 1e7 against F(0) = 0.69. Exact ascent:
    the dual never decreases, F ends below F(0), the gap is non-negative, no warning."""
    import warnings

    rng = np.random.default_rng(0)
    X = 10 * rng.standard_normal((300, 5))
    y = np.sign(X[:, 0] + 0.5 * X[:, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = rlmlib.sdca(X, y, sigma=1e-8, loss="logistic", epochs=10, n_checkpoints=10)
    duals = r.trace.objective - r.info["gaps"]
    assert np.all(np.diff(duals) >= -1e-12), duals
    assert r.objective < np.log(2) and r.info["gap"] >= 0.0


def test_a_contradicting_certificate_warns_naming_its_cause():
    from rlmlib.solvers.sdca import _check_certificate

    primal = np.array([1.0, 0.5, 0.4])
    with pytest.warns(rlmlib.ConvergenceWarning, match="dual decreased from 0.3 to 0.1"):
        _check_certificate(np.array([0.0, 0.3, 0.1]), primal - [0.0, 0.3, 0.1], primal, "h")
    with pytest.warns(rlmlib.ConvergenceWarning, match="gap is negative at checkpoint 2"):
        _check_certificate(np.array([0.0, 0.3, 0.5]), primal - [0.0, 0.3, 0.5], primal, "h")
