"""katyusha: equality with the literal NumPy transcription of its algorithm box
(rlmlib.book.momentum.katyusha_literal), the lazy O(nnz) steps on sparse input = the dense
steps = the box at every snapshot (and = the lazy transcription, coordinate updates
counted), the optimum certified by rlmlib.lbfgs on dense and sparse input, its parameters
against Allen-Zhu's, errors on bad input, and the numerical
checks of the page's Katyusha proof (each constant off by a factor 2 fails). Catalyst's
proof checks are in tests/test_proof_checks.py."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.book.momentum import (check_katyusha_proof, katyusha_lazy_literal,
                                  katyusha_literal, katyusha_stage)
from rlmlib.book.vr import draws
from test_saga import close, problem  # sparse random rows; equality to 1e-12


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("inner", [None, 50])
def test_katyusha_equals_its_box(loss, inner):
    X, y = problem(loss)
    m = len(y)
    res = rlmlib.katyusha(sp.csr_matrix(X), y, sigma=1e-3, epochs=9, loss=loss,
                          inner=inner, seed=3)
    k = res.params["inner"]
    ref = katyusha_literal(X, y, 1e-3, k, draws(m, res.params["stages"] * k, seed=3),
                           loss)
    close(res.w, ref)


def test_dense_equals_sparse():
    X, y = problem("logistic", m=150)
    dense = rlmlib.katyusha(X, y, sigma=0.01, epochs=9)
    lazy = rlmlib.katyusha(sp.csr_matrix(X), y, sigma=0.01, epochs=9)
    assert (dense.info["steps"], lazy.info["steps"]) == ("dense", "lazy")
    close(lazy.w, dense.w)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("sigma", [1e-4, 1e-2, 3.0])     # 3.0: tau1 = 1/2, c = 0
def test_lazy_steps_equal_the_box_at_every_snapshot(loss, sigma):
    # the snapshot a stage recovers (every coordinate caught up, Y / sum theta^-i) is the
    # box's x~ after 1, 2, 3, 4 stages, on sparse rows (and the dense kernel's)
    X, y = problem(loss, m=80)
    for S in range(1, 5):
        kw = dict(sigma=sigma, epochs=3 * S, loss=loss, seed=5)
        lazy = rlmlib.katyusha(sp.csr_matrix(X), y, **kw)
        assert lazy.params["stages"] == S
        ref = katyusha_literal(X, y, sigma, 160, draws(80, S * 160, seed=5), loss)
        close(lazy.w, ref)
        close(lazy.w, rlmlib.katyusha(X, y, **kw).w)


def test_lazy_steps_count_nnz_not_n():
    # coordinate updates: the drawn rows' non-zeros plus n per stage, exactly the lazy
    # transcription's count, against inner * n a stage for the dense steps
    X, y = problem("logistic", m=60, n=40)
    X[:, 20:] = 0.0                             # half the columns never read
    res = rlmlib.katyusha(sp.csr_matrix(X), y, sigma=1e-3, epochs=9, inner=40, seed=2)
    S = res.params["stages"]
    idx = draws(60, S * 40, seed=2)
    ref, ops = katyusha_lazy_literal(X, y, 1e-3, 40, idx, "logistic")
    close(res.w, ref)
    nnz = int(sum(np.count_nonzero(X[i]) for i in idx))
    assert res.info["coordinate_updates"] == ops == nnz + S * 40
    dense = rlmlib.katyusha(X, y, sigma=1e-3, epochs=9, inner=40, seed=2)
    assert dense.info["coordinate_updates"] == S * 40 * 40


def test_long_stage_catches_up_every_K_steps():
    # inner > 4096 >= n/4: every coordinate is caught up at step 4096 of the stage too
    # (the table holds M^d for d <= 4096 only); the iterate is the box's
    X, y = problem("squared", m=30)
    res = rlmlib.katyusha(sp.csr_matrix(X), y, sigma=1e-2, loss="squared", inner=5000,
                          epochs=160, seed=1)
    S = res.params["stages"]
    assert S == 1
    idx = draws(30, 5000, seed=1)
    close(res.w, katyusha_literal(X, y, 1e-2, 5000, idx, "squared"))
    nnz = int(sum(np.count_nonzero(X[i]) for i in idx))
    assert res.info["coordinate_updates"] == nnz + 2 * X.shape[1]


def test_lazy_tables_are_powers_of_the_pages_map():
    # row d of the kernel's table = M^d and sum_{r<d} M^r (u, v) of katyusha_lazy_maps
    from rlmlib.book.momentum import katyusha_lazy_maps
    from rlmlib.solvers.katyusha import katyusha_lazy_tables

    L, sigma, alpha, tau1 = 0.7, 0.01, 3.0, 0.2
    T = katyusha_lazy_tables(L, sigma, alpha, tau1, 0.5, 30)
    M, u, v = katyusha_lazy_maps(L, sigma, alpha, tau1, 0.5)
    P, S = np.eye(3), np.zeros((3, 3))
    for d in range(31):
        got = T[d]
        np.testing.assert_allclose(
            got, [P[0, 0], P[1, 0], P[1, 1], P[2, 0], P[2, 1], *(S @ u), *(S @ v)[1:]],
            rtol=1e-13, atol=1e-15)
        assert P[2, 2] == pytest.approx(P[0, 0], rel=1e-14) and (S @ v)[0] == 0.0
        S, P = S + P, M @ P


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("sparse", [False, True])
def test_katyusha_reaches_certified_optimum(loss, sparse):
    X, y = problem(loss)
    ref = rlmlib.lbfgs(X, y, sigma=1e-2, loss=loss, tol=1e-13)
    A = sp.csr_matrix(X) if sparse else X
    res = rlmlib.katyusha(A, y, sigma=1e-2, epochs=120, loss=loss)
    assert res.info["steps"] == ("lazy" if sparse else "dense")
    assert res.objective - ref.objective <= 1e-9 * abs(ref.objective)


def test_parameters_are_the_papers():
    X, y = problem("squared")
    res = rlmlib.katyusha(X, y, sigma=1e-3, epochs=3, loss="squared")
    m, L = len(y), float((X * X).sum(axis=1).max())
    p = res.params
    assert p["inner"] == 2 * m and p["tau2"] == 0.5
    assert p["tau1"] == pytest.approx(min(math.sqrt(2 * m * 1e-3 / (3 * L)), 0.5))
    assert p["alpha"] == pytest.approx(1.0 / (3.0 * p["tau1"] * L))


@pytest.mark.parametrize("sparse", [False, True])
def test_bad_input_is_named(sparse):
    X, y = problem("logistic")
    X = sp.csr_matrix(X) if sparse else X
    with pytest.raises(ValueError, match="inner"):
        rlmlib.katyusha(X, y, sigma=0.1, inner=0)
    with pytest.raises(ValueError, match="loss"):
        rlmlib.katyusha(X, y, sigma=0.1, loss="hinge")
    with pytest.raises(ValueError, match="sigma"):
        rlmlib.katyusha(X, y, sigma=-1.0)
    with pytest.raises(TypeError):
        rlmlib.katyusha(X, y, lam=0.1)


def test_katyusha_proof_right_constants_pass():
    r = check_katyusha_proof()
    assert 0.9 < r["var_ratio"] <= 1 and 0 <= r["stage_margin"] < 1e-3
    assert 3 < r["C_max"] <= 4 and 0 < r["phi_ratio"] <= 1 and 0 < r["run_ratio"] <= 1


@pytest.mark.parametrize("wrong", [dict(variance=1.0), dict(variance=4.0),
                                   dict(tau2=0.25), dict(rate=2.0), dict(stage2=3.0),
                                   dict(constant=2.0)])
def test_katyusha_proof_constant_off_by_two_fails(wrong):
    with pytest.raises(AssertionError):
        check_katyusha_proof(**wrong)


@pytest.mark.parametrize("J", [2, 6, 1000])
def test_katyusha_stage_constants(J):
    # the box's parameters: τ₁ = √(s/3) below s = ¾, then ½; θ^J > 3/2 above s = ¾
    k = katyusha_stage(J, 0.3)
    assert k["tau1"] == pytest.approx(math.sqrt(0.1))
    assert k["alpha_sigma"] == pytest.approx(k["tau1"] / J)
    assert k["rho"] == pytest.approx((1 + k["tau1"] / J) ** -J)
    hi = katyusha_stage(J, 0.8)
    assert hi["tau1"] == 0.5 and hi["rho"] == pytest.approx(2 / 3)
    assert hi["theta"] ** J > 1.5


@pytest.mark.parametrize("loss", ["squared", "logistic"])
@pytest.mark.parametrize("sigma", [1e-3, 0.5])
def test_katyusha_lazy_form_equals_the_box(loss, sigma):
    # the page's lazy form: untouched coordinates caught up by powers of one affine map
    X, y = problem(loss, m=60)
    idx = draws(60, 3 * 40, seed=2)
    ref = katyusha_literal(X, y, sigma, 40, idx, loss)
    lazy, ops = katyusha_lazy_literal(X, y, sigma, 40, idx, loss)
    close(lazy, ref)
    nnz = int(sum(np.count_nonzero(X[i]) for i in idx))
    assert ops == nnz + 3 * X.shape[1]         # row reads plus one catch-up per stage
