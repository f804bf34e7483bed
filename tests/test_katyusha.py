"""katyusha: equality with the literal NumPy transcription of its algorithm box
(rlmlib.book.momentum.katyusha_literal), dense = sparse, the optimum certified by
rlmlib.lbfgs, its parameters against Allen-Zhu's, errors on bad input, and the numerical
checks of the page's Katyusha proof (each constant off by a factor 2 fails) and Catalyst
bound (a rate off by a factor 2 fails)."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.book.momentum import (catalyst_bound_ratio, check_katyusha_proof,
                                  katyusha_lazy_literal, katyusha_literal, katyusha_stage)
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
    close(rlmlib.katyusha(X, y, sigma=0.01, epochs=9).w,
          rlmlib.katyusha(sp.csr_matrix(X), y, sigma=0.01, epochs=9).w)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_katyusha_reaches_certified_optimum(loss):
    X, y = problem(loss)
    ref = rlmlib.lbfgs(X, y, sigma=1e-2, loss=loss, tol=1e-13)
    res = rlmlib.katyusha(X, y, sigma=1e-2, epochs=120, loss=loss)
    assert res.objective - ref.objective <= 1e-9 * abs(ref.objective)


def test_parameters_are_the_papers():
    X, y = problem("squared")
    res = rlmlib.katyusha(X, y, sigma=1e-3, epochs=3, loss="squared")
    m, L = len(y), float((X * X).sum(axis=1).max())
    p = res.params
    assert p["inner"] == 2 * m and p["tau2"] == 0.5
    assert p["tau1"] == pytest.approx(min(math.sqrt(2 * m * 1e-3 / (3 * L)), 0.5))
    assert p["alpha"] == pytest.approx(1.0 / (3.0 * p["tau1"] * L))


def test_bad_input_is_named():
    X, y = problem("logistic")
    with pytest.raises(ValueError, match="inner"):
        rlmlib.katyusha(X, y, sigma=0.1, inner=0)
    with pytest.raises(ValueError, match="loss"):
        rlmlib.katyusha(X, y, sigma=0.1, loss="hinge")
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


@pytest.mark.parametrize("tau", [0.05, 1.0])
def test_catalyst_bound_check_catches_a_rate_off_by_two(tau):
    # the page's check of Catalyst's outer bound: passes with (1 - ρ)^{t+1}, fails with
    # (1 - 2ρ)^{t+1}; the slack in the constant 8/(√q - ρ)² is at least 200 here
    assert catalyst_bound_ratio(tau, 0.5) < 1 / 200
    assert catalyst_bound_ratio(tau, 0.5, rate=2.0) > 1.0


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
