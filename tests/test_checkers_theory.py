"""Checkers of the Convergence part: each accepts the reference solution and rejects the
typical mistakes (sign, factor, off-by-one, order of updates, in-place, dense updates,
precision at extreme inputs)."""
import math

import numpy as np
import pytest

from rlmlib.book.checkers import (check_lazy_average_step, check_minibatch_variance,
                                  check_two_point_kl)


# ---------------------------------------------------------------- lazy average
def lazy_ok(u, v, alpha, beta, s, idx, val, c, mu):
    v[idx] += c * val
    u[idx] -= (beta * c / alpha) * val
    return (1 - mu) * alpha, (1 - mu) * beta + mu * s


def lazy_sign(u, v, alpha, beta, s, idx, val, c, mu):
    v[idx] += c * val
    u[idx] += (beta * c / alpha) * val                 # sign
    return (1 - mu) * alpha, (1 - mu) * beta + mu * s


def lazy_new_beta(u, v, alpha, beta, s, idx, val, c, mu):
    v[idx] += c * val
    alpha2, beta2 = (1 - mu) * alpha, (1 - mu) * beta + mu * s
    u[idx] -= (beta2 * c / alpha2) * val               # uses the new alpha, beta
    return alpha2, beta2


def lazy_no_alpha(u, v, alpha, beta, s, idx, val, c, mu):
    v[idx] += c * val
    u[idx] -= (beta * c) * val                         # factor: forgets / alpha
    return (1 - mu) * alpha, (1 - mu) * beta + mu * s


def lazy_beta_factor(u, v, alpha, beta, s, idx, val, c, mu):
    v[idx] += c * val
    u[idx] -= (beta * c / alpha) * val
    return (1 - mu) * alpha, beta + mu * s             # forgets (1 - mu) on beta


def lazy_dense(u, v, alpha, beta, s, idx, val, c, mu):
    x = np.zeros_like(v)
    x[idx] = val
    abar = (1 - mu) * (alpha * u + beta * v) + mu * s * (v + c * x)
    v += c * x
    u[:] = abar                                        # dense: O(n), correct average
    return 1.0, 0.0


def lazy_modifies_val(u, v, alpha, beta, s, idx, val, c, mu):
    val *= c                                           # in place on the data
    v[idx] += val
    u[idx] -= (beta / alpha) * val
    return (1 - mu) * alpha, (1 - mu) * beta + mu * s


def lazy_mu_off(u, v, alpha, beta, s, idx, val, c, mu):
    v[idx] += c * val
    u[idx] -= (beta * c / alpha) * val
    return (1 - mu) * alpha, (1 - mu) * beta + mu      # off: mu instead of mu s


def test_lazy_accepts_reference():
    assert "passed" in check_lazy_average_step(lazy_ok)


@pytest.mark.parametrize("wrong, match", [
    (lazy_sign, "sign"), (lazy_new_beta, "old alpha"), (lazy_no_alpha, "factor"),
    (lazy_beta_factor, "expected"), (lazy_dense, "not in idx"),
    (lazy_modifies_val, "modified in place"), (lazy_mu_off, "expected")])
def test_lazy_rejects_mistakes(wrong, match):
    with pytest.raises(AssertionError, match=match):
        check_lazy_average_step(wrong)


def test_lazy_reports_exceptions_and_bad_returns():
    with pytest.raises(AssertionError, match="raised ZeroDivisionError"):
        check_lazy_average_step(lambda *a: 1 / 0)
    with pytest.raises(AssertionError, match="pair"):
        check_lazy_average_step(lambda u, v, al, be, s, i, x, c, mu: al)
    with pytest.raises(TypeError, match="lazy_average_step must be a function"):
        check_lazy_average_step(3)


# ---------------------------------------------------------------- mini-batch variance
def var_ok(G, k, replace):
    m = G.shape[0]
    V = np.mean(np.sum((G - G.mean(axis=0)) ** 2, axis=1))
    if replace:
        return V / k
    return 0.0 if m == 1 else V / k * (m - k) / (m - 1)


def var_k2(G, k, replace):                         # factor: 1/k^2
    return var_ok(G, k, replace) / k


def var_no_fpc(G, k, replace):                     # no finite-population factor
    return var_ok(G, k, True)


def var_m_not_m1(G, k, replace):                   # off by one: (m - k)/m
    m = G.shape[0]
    return var_ok(G, k, True) * ((m - k) / m if not replace else 1.0)


def var_ddof(G, k, replace):                       # V with 1/(m - 1)
    m = G.shape[0]
    return var_ok(G, k, replace) * m / max(m - 1, 1)


def var_one_pass(G, k, replace):                   # E|g|^2 - |mean|^2: cancels
    V = np.mean(np.sum(G ** 2, axis=1)) - np.sum(G.mean(axis=0) ** 2)
    m = G.shape[0]
    return V / k if replace else (0.0 if m == 1 else V / k * (m - k) / (m - 1))


def var_in_place(G, k, replace):
    G -= G.mean(axis=0)                            # modifies the caller's array
    return var_ok(G, k, replace)


def test_variance_accepts_reference():
    assert "passed" in check_minibatch_variance(var_ok)


@pytest.mark.parametrize("wrong, match", [
    (var_k2, "relative error"), (var_no_fpc, "without replacement"),
    (var_m_not_m1, "without replacement"), (var_ddof, "relative error"),
    (var_one_pass, "1e8"), (var_in_place, "modified in place")])
def test_variance_rejects_mistakes(wrong, match):
    with pytest.raises(AssertionError, match=match):
        check_minibatch_variance(wrong)


# ---------------------------------------------------------------- two-point KL
def kl_ok(delta, T):
    return T * delta * (math.log1p(delta) - math.log1p(-delta))


def kl_naive(delta, T):                            # loses digits at tiny delta
    return T * delta * math.log((1 + delta) / (1 - delta))


def kl_half(delta, T):                             # factor 1/2
    return 0.5 * kl_ok(delta, T)


def kl_no_T(delta, T):                             # forgets the product over T draws
    return kl_ok(delta, 1)


def kl_approx(delta, T):                           # the small-delta approximation
    return 2 * T * delta ** 2


def test_kl_accepts_reference():
    assert "passed" in check_two_point_kl(kl_ok)
    assert "passed" in check_two_point_kl(lambda d, T: 2 * T * d * math.atanh(d))


@pytest.mark.parametrize("wrong, match", [
    (kl_naive, "tiny delta"), (kl_half, "delta = 1/2"), (kl_no_T, "T = 100"),
    (kl_approx, "delta = 1/2")])
def test_kl_rejects_mistakes(wrong, match):
    with pytest.raises(AssertionError, match=match):
        check_two_point_kl(wrong)


def test_kl_zero_delta_and_exceptions():
    with pytest.raises(AssertionError, match="expected 0"):
        check_two_point_kl(lambda d, T: kl_ok(d, T) + 1e-300)
    with pytest.raises(AssertionError, match="raised"):
        check_two_point_kl(lambda d, T: math.log(1 - d) / 0)
