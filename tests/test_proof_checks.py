"""The proof checks of the theory, variance-reduction, momentum and distributed pages
pass with the proofs' constants and fail with a constant off by a factor 2
(rlmlib.book.proof_checks)."""

import math

import numpy as np
import pytest

from rlmlib.book.proof_checks import (check_catalyst_count, check_catalyst_proof,
                                      check_last_iterate, check_lsvrg_proof,
                                      check_reshuffling_proof, check_saga_proof,
                                      check_suffix_average, check_svrg_last_proof,
                                      check_svrg_guard_proof, check_svrg_proof,
                                      check_weighted_average, quadratic_moments)

PAGE_WEIGHTED = dict(mu=0.5, nu2=1.0, a1=4.0, T=2000, tau2=1.0)     # theory/index.md
PAGE_SUFFIX = dict(mu=0.5, nu2=1.0, a1=4.0, T=2000, tau2=1.0)
PAGE_LAST = dict(mu=0.5, nu2=1.0, a1=4.0, T=300, tau2=1.0)


def test_quadratic_moments_closed_form():
    # one step of 1/mu from any a_1 lands at the noise: a_2 = nu^2 / mu^2
    a, g2 = quadratic_moments(2.0, 3.0, 5.0, [0.5, 0.25])
    assert a[1] == pytest.approx(3.0 / 4.0)
    assert g2[0] == pytest.approx(4.0 * 5.0 + 3.0)


def test_weighted_average_right_constants_pass():
    r = check_weighted_average(**PAGE_WEIGHTED)
    assert r["weighted"] <= r["bound"]


@pytest.mark.parametrize("wrong", [dict(telescope=0.5), dict(telescope=0.125),
                                   dict(noise=2.0), dict(noise=0.5), dict(bound=1.0)])
def test_weighted_average_constant_off_by_two_fails(wrong):
    with pytest.raises(AssertionError):
        check_weighted_average(**PAGE_WEIGHTED, **wrong)


@pytest.mark.parametrize("theta", [0.1, 0.5, 0.9])
def test_suffix_average_right_constants_pass(theta):
    r = check_suffix_average(**PAGE_SUFFIX, theta=theta)
    assert r["suffix"] <= r["bound"] and r["lemma_ratio"] <= 2


@pytest.mark.parametrize("theta", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("wrong", [dict(telescope=1.0), dict(telescope=0.25),
                                   dict(noise=1.0), dict(noise=0.25), dict(lemma=1.0),
                                   dict(constant=1.0)])
def test_suffix_average_constant_off_by_two_fails(wrong, theta):
    with pytest.raises(AssertionError):
        check_suffix_average(**PAGE_SUFFIX, theta=theta, **wrong)


def test_saga_proof_right_constants_pass():
    r = check_saga_proof()
    assert 0.9 < r["coco_ratio"] <= 1 and 0.9 < r["var_ratio"] <= 1


@pytest.mark.parametrize("wrong", [dict(coco=1.0), dict(var=1.0), dict(a=2.5),
                                   dict(b=6.0), dict(b=1.5), dict(rate_w=2.5),
                                   dict(rate_h=1.5)])
def test_saga_proof_constant_off_by_two_fails(wrong):
    with pytest.raises(AssertionError):
        check_saga_proof(**wrong)


@pytest.mark.parametrize("p", [1 / 8, 0.25, 1.0])
def test_lsvrg_proof_right_constants_pass(p):
    r = check_lsvrg_proof(p=p)
    assert 0.9 < r["coco_ratio"] <= 1 and 0.9 < r["var_ratio"] <= 1
    assert r["fcoef"] <= 1e-15 and r["hcoef"] > 0     # 0 at eta = 1/(5 L_max), to rounding


@pytest.mark.parametrize("p", [1 / 8, 0.25, 1.0])
@pytest.mark.parametrize("wrong", [dict(coco=1.0), dict(var=1.0), dict(a=2.5),
                                   dict(b=6.0), dict(b=1.5), dict(rate_w=2.5),
                                   dict(rate_h=1.5)])
def test_lsvrg_proof_constant_off_by_two_fails(wrong, p):
    with pytest.raises(AssertionError):
        check_lsvrg_proof(p=p, **wrong)


def test_svrg_proof_right_constants_pass():
    r = check_svrg_proof()
    assert 0.9 < r["var_ratio"] <= 1 and 0.98 < r["convex_ratio"] <= 1
    assert abs(r["sc_ratio"] - 1) < 1e-9 and r["stage_ratio"] <= 1 and r["factor"] < 1


@pytest.mark.parametrize("wrong", [dict(var=2.0), dict(convex=2.0), dict(sc=1.0),
                                   dict(a=0.5), dict(b=1.0), dict(c=1.0),
                                   dict(step_c=2.0)])
def test_svrg_proof_constant_off_by_two_fails(wrong):
    with pytest.raises(AssertionError):
        check_svrg_proof(**wrong)


def test_svrg_last_proof_right_constants_pass():
    r = check_svrg_last_proof()
    assert 0.9 < r["var_ratio"] <= 1 and abs(r["smooth_ratio"] - 1) < 1e-9
    assert r["stage_ratio"] <= 1 and r["factor"] < 1


@pytest.mark.parametrize("wrong", [dict(var=2.0), dict(smooth=0.25), dict(step_c=1.0)])
def test_svrg_last_proof_constant_off_by_two_fails(wrong):
    with pytest.raises(AssertionError):
        check_svrg_last_proof(**wrong)


def test_svrg_guard_proof_right_constants_pass():
    r = check_svrg_guard_proof()
    assert abs(r["descent_ratio"] - 1) < 1e-9 and abs(r["pl_ratio"] - 1) < 1e-9
    assert r["ridge_ratio"] < 1 and abs(r["factor"] - 1) < 1e-12


@pytest.mark.parametrize("wrong", [dict(descent=1.0), dict(descent=4.0), dict(pl=1.0),
                                   dict(pl=4.0)])
def test_svrg_guard_proof_constant_off_by_two_fails(wrong):
    # the safeguard's 2 in |g|^2/(2 L_max) halved or doubled, and the PL constant
    with pytest.raises(AssertionError):
        check_svrg_guard_proof(**wrong)


def test_lsvrg_proof_rejects_a_bad_probability():
    with pytest.raises(ValueError, match="p must be in"):
        check_lsvrg_proof(p=0.0)


def test_reshuffling_proof_right_constants_pass():
    r = check_reshuffling_proof()
    assert all(abs(v - 1) < 1e-9 for v in r["spread"])
    assert 0.99 < r["tight"] < 1 + 1e-9 and r["epoch"] <= r["epoch_bound"]


@pytest.mark.parametrize("wrong", [dict(shuffle_var=2.0), dict(shuffle_var=0.5),
                                   dict(contraction=2.0), dict(bregman=1.0)])
def test_reshuffling_proof_constant_off_by_two_fails(wrong):
    with pytest.raises(AssertionError):
        check_reshuffling_proof(**wrong)


def test_suffix_average_rejects_a_bad_fraction():
    with pytest.raises(ValueError, match="theta"):
        check_suffix_average(**PAGE_SUFFIX, theta=0.0)


def test_last_iterate_right_constants_pass():
    r = check_last_iterate(**PAGE_LAST)
    assert r["worst_identity"] < 1e-9 and r["last"] <= r["bound"]


@pytest.mark.parametrize("wrong", [dict(telescope=1.0), dict(telescope=0.25),
                                   dict(noise=1.0), dict(noise=0.25)])
def test_last_iterate_constant_off_by_two_fails(wrong):
    with pytest.raises(AssertionError):
        check_last_iterate(**PAGE_LAST, **wrong)


@pytest.mark.parametrize("T", [2, 300, 5000])
def test_last_iterate_theorem_constant_halved_fails(T):
    # the measured gap sits far below the bound, so a halved 3/2 must be caught by the
    # composition of the proof's bounds, at every horizon
    check_last_iterate(**{**PAGE_LAST, "T": T})
    with pytest.raises(AssertionError):
        check_last_iterate(**{**PAGE_LAST, "T": T}, constant=0.75)


@pytest.fixture(scope="module")
def sparse_run():
    import rlmlib
    from rlmlib.book.proof_checks import sparse_instance

    X, y, sigma = sparse_instance(m=600, n=300, d=3, seed=1)
    w_star = rlmlib.lbfgs(X, y, sigma=sigma, loss="logistic", tol=1e-12).w
    return X, y, sigma, w_star


def test_hogwild_proof_right_constants_pass(sparse_run):
    from rlmlib.book.proof_checks import check_hogwild_proof, delayed_sgd

    X, y, sigma, w_star = sparse_run
    for tau in (0, 1, 4):
        r = check_hogwild_proof(X, y, sigma, 600.0, tau, w_star, steps=250, seed=tau)
        assert r["identity"] < 1e-9 and r["window"] <= 2
        # the numba kernel runs the model the check verifies step by step
        w, G2 = delayed_sgd(X, y, sigma, 600.0, tau, 250, tau)
        assert np.allclose(w, r["w"], rtol=1e-12, atol=1e-14) and G2 > 0


@pytest.mark.parametrize("wrong", [dict(cross=1.0), dict(keep=1.5), dict(penalty=1.5),
                                   dict(window=1.0), dict(split=2.0), dict(split=0.5),
                                   dict(rho_scale=2.0), dict(rho_scale=0.5),
                                   dict(contraction=0.75), dict(vfac=1.0)])
def test_hogwild_proof_constant_off_by_two_fails(sparse_run, wrong):
    from rlmlib.book.proof_checks import check_hogwild_proof

    X, y, sigma, w_star = sparse_run
    with pytest.raises(AssertionError):
        check_hogwild_proof(X, y, sigma, 600.0, 4, w_star, steps=100, **wrong)


def test_hogwild_constant_at_the_theorem_conditions():
    from rlmlib.book.proof_checks import hogwild_constant

    # 8 tau rho = 1 and t0 = 60 tau: C = 3 G^2 exactly (1 + 1 + 60 tau / t0)
    assert hogwild_constant(4, 1 / 32, 240.0) == pytest.approx(3.0)
    assert hogwild_constant(0, 0.9, 10.0) == 1.0
@pytest.mark.parametrize("tau", [0.05, 1.0, 20.0])
def test_catalyst_proof_right_constants_pass(tau):
    r = check_catalyst_proof(tau=tau)
    assert 0.99 < r["smooth_ratio"] <= 1 and r["step_ratio"] <= 1
    assert r["final_ratio"] <= 1 and 0.9 < r["root_ratio"] <= 1


@pytest.mark.parametrize("tau", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("wrong", [dict(smooth=0.5), dict(strong=2.0), dict(strong=0.5),
                                   dict(gap=1.0), dict(gap=0.25), dict(rate=2.0),
                                   dict(phi0=1.0), dict(dist=1.0), dict(root=0.5),
                                   dict(schedule=12 / math.pi**2),
                                   dict(schedule=3 / math.pi**2),
                                   dict(constant=4.0), dict(constant=16.0)])
def test_catalyst_proof_constant_off_by_two_fails(wrong, tau):
    with pytest.raises(AssertionError):
        check_catalyst_proof(tau=tau, **wrong)


def test_catalyst_count_right_constants_pass():
    r = check_catalyst_count()
    assert 0 <= r["passes_gap"] < 2 and r["ratio_max"] <= 79 and r["outer_ratio"] <= 1


@pytest.mark.parametrize("wrong", [dict(per_step=5.0), dict(per_step=20.0),
                                   dict(passes=(5.0, 12.0)), dict(passes=(20.0, 12.0)),
                                   dict(passes=(10.0, 6.0)), dict(passes=(10.0, 24.0)),
                                   dict(ratio=39.5), dict(ratio=158.0),
                                   dict(outer=16.0), dict(outer=4.0)])
def test_catalyst_count_constant_off_by_two_fails(wrong):
    with pytest.raises(AssertionError):
        check_catalyst_count(**wrong)
