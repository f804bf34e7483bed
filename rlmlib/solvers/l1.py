"""Pieces shared by the l1-regularized online methods (fiol, comid, isgd, sgd_l1).

- ``soft`` : soft thresholding S_a(u) = sign(u) max(|u| - a, 0).
- ``settle``: the lazy cumulative l1 shrink for sparse rows. Soft thresholds compose
  additively, S_a(S_b(u)) = S_{a+b}(u) for a, b >= 0, so a coordinate that no row touched
  during steps tau = t0 .. t-1 (each of which shrank it by eta_tau sigma) equals
  S_{U_t - U_t0}(w_j) with U_t = sigma * sum_{tau < t} eta_tau: keep the running sum U and,
  per coordinate, the value of U when it was last settled. This is exact for any schedule
  eta_tau (a single scale factor, as in the l2 trick, would not be: the shrink is additive).
  The subgradient methods (sgd_l1, isgd) use the same settle on sparse rows: it is their
  steps w_j - eta sigma sign(w_j) summed while w_j keeps its sign, clipped at zero where the
  plain subgradient steps would cross zero and oscillate within one step length of it (the
  cumulative-penalty / truncated-gradient reading). On dense rows every coordinate is touched
  at every step and they take the exact subgradient step.
- The loss side of the implicit step: the range of the (sub)derivative (the domain of the
  inverse (l')^-1), its smallest element at a kink, the set-valued inverse itself, and
  ``piece_root``: the exact solution of s in dl(a - c s) for c > 0 (the last piece of the
  fully implicit step, and the whole implicit-SGD step), closed form for squared, absolute,
  hinge and squared hinge, safeguarded Newton for logistic and exponential.
- The convex conjugates l*(s) (for duality-gap checks).

Loss codes are those of ``rlmlib/losses.py``. Classification losses take y = +-1; in terms of
the margin u = y z their derivative with respect to z is s = y t with t = dl/du <= 0.
"""
import math

import numpy as np
from numba import njit

from ..core.losses import (ABSOLUTE, EXP_CUT, EXPONENTIAL, HINGE, LOGISTIC, SQUARED,
                           SQUARED_HINGE, loss_deriv)
from ..core.prefetch import prefetch_ahead

EXP_MAX = math.exp(EXP_CUT)  # the exponential loss's |derivative| is capped here (tangent)


@njit(cache=True)
def soft(u, a):
    """Soft thresholding S_a(u) = sign(u) max(|u| - a, 0), a >= 0, as u minus u clipped to
    [-a, a]: no branch for the processor to mispredict on random signs (three times faster
    in the ℓ1 SAGA kernel), and the same bits as the case-by-case form (u - a, u + a, or
    +0.0). NaN stays NaN, so a diverged run is detected."""
    return u - min(max(u, -a), a)


@njit(cache=True)
def settle(w, indices, start, stop, last, U):
    """Apply the l1 shrinks a coordinate missed: w_j <- S_{U - last_j}(w_j), last_j <- U, for
    the coordinates indices[start:stop] (the lazy cumulative shrink, module docstring)."""
    for p in range(start, stop):
        j = indices[p]
        d = U - last[j]
        if d > 0.0:
            w[j] = soft(w[j], d)
        last[j] = U


@njit(cache=True)
def s_range(code, y):
    """(smin, smax): the range of dl/dz, i.e. the domain of (l')^-1 (closed where attained)."""
    inf = np.inf
    if code == SQUARED:
        return -inf, inf
    if code == ABSOLUTE:
        return -1.0, 1.0
    if code == HINGE or code == LOGISTIC:
        return min(-y, 0.0), max(-y, 0.0)
    if code == SQUARED_HINGE:
        return (-inf, 0.0) if y > 0 else (0.0, inf)
    # exponential: t in [-e^EXP_CUT, 0] (the tangent continuation caps |l'|)
    return (-EXP_MAX, 0.0) if y > 0 else (0.0, EXP_MAX)


@njit(cache=True)
def deriv_min(code, z, y):
    """The smallest element of the subdifferential dl(z) (left derivative)."""
    if code == HINGE:
        if y * z == 1.0:
            return min(-y, 0.0)
        return loss_deriv(code, z, y)
    if code == ABSOLUTE:
        if z == y:
            return -1.0
        return loss_deriv(code, z, y)
    return loss_deriv(code, z, y)


@njit(cache=True)
def deriv_max(code, z, y):
    """The largest element of the subdifferential dl(z) (right derivative)."""
    if code == HINGE:
        if y * z == 1.0:
            return max(-y, 0.0)
        return loss_deriv(code, z, y)
    if code == ABSOLUTE:
        if z == y:
            return 1.0
        return loss_deriv(code, z, y)
    return loss_deriv(code, z, y)


@njit(cache=True)
def inverse(code, s, y):
    """(l')^-1(s) as an interval (zlo, zhi) of predictions z with s in dl(z); (nan, nan)
    outside the range of l'. Single-valued losses give zlo == zhi."""
    nan = np.nan
    inf = np.inf
    if code == SQUARED:
        return s + y, s + y
    if code == ABSOLUTE:
        if s < -1.0 or s > 1.0:
            return nan, nan
        if s == 1.0:
            return y, inf
        if s == -1.0:
            return -inf, y
        return y, y
    t = s * y  # dl/du, u = y z
    if code == HINGE:
        if t < -1.0 or t > 0.0:
            return nan, nan
        if t == 0.0:
            lo, hi = 1.0, inf
        elif t == -1.0:
            lo, hi = -inf, 1.0
        else:
            lo, hi = 1.0, 1.0
    elif code == SQUARED_HINGE:
        if t > 0.0:
            return nan, nan
        if t == 0.0:
            lo, hi = 1.0, inf
        else:
            lo, hi = 1.0 + t, 1.0 + t  # t = -(1 - u)
    elif code == LOGISTIC:
        if t <= -1.0 or t >= 0.0:
            return nan, nan
        # t = -1/(1 + e^u)  =>  u = log(-1/t - 1) = log((1 + t)/(-t))
        lo = math.log1p(t) - math.log(-t)
        hi = lo
    else:  # EXPONENTIAL: t = -e^-u for u >= -EXP_CUT, -e^EXP_CUT below (tangent)
        if t >= 0.0 or t < -EXP_MAX:
            return nan, nan
        if t == -EXP_MAX:
            lo, hi = -inf, -EXP_CUT
        else:
            lo = -math.log(-t)
            hi = lo
    if y > 0:
        return lo, hi
    return -hi, -lo


@njit(cache=True)
def conjugate(code, s, y):
    """The convex conjugate l*(s) = sup_z s z - l(z) (inf outside its domain)."""
    inf = np.inf
    if code == SQUARED:
        return 0.5 * s * s + s * y
    if code == ABSOLUTE:
        return s * y if -1.0 <= s <= 1.0 else inf
    t = s * y
    if code == HINGE:
        return t if -1.0 <= t <= 0.0 else inf
    if code == SQUARED_HINGE:
        return t + 0.5 * t * t if t <= 0.0 else inf
    if code == LOGISTIC:
        if t < -1.0 or t > 0.0:
            return inf
        a = -t
        b = 1.0 + t
        return (a * math.log(a) if a > 0.0 else 0.0) + (b * math.log(b) if b > 0.0 else 0.0)
    # exponential (with the tangent continuation: l* = +inf beyond |t| = e^EXP_CUT)
    if t > 0.0 or t < -EXP_MAX:
        return inf
    if t == 0.0:
        return 0.0
    return t - t * math.log(-t)


@njit(cache=True)
def _softplus(v):
    """log(1 + e^v) without overflow."""
    return v + math.log1p(math.exp(-v)) if v > 0.0 else math.log1p(math.exp(v))


@njit(cache=True)
def _logistic_tau(u, c):
    """tau in (0, 1) with tau = 1/(1 + e^(u + c tau)) (c > 0): safeguarded Newton."""
    # f(tau) = tau - q(tau), q = 1/(1+e^(u+c tau)) decreasing, so f is increasing; root in
    # (0, q(0)] with q(0) = 1/(1+e^u).
    if u > 0.0:
        e = math.exp(-u)
        hi = e / (1.0 + e)
    else:
        hi = 1.0 / (1.0 + math.exp(u))
    lo = 0.0
    L = math.log(c) - u
    if L > 30.0:
        # a root far below q(0) (c large): halving (0, q(0)] would not reach it in 300
        # steps. With v = u + c tau >= u, e^-v / (1 + e^-u) <= q(v) <= e^-v, so tau lies
        # between the roots of tau = e^-(u + c tau) k for k = 1/(1 + e^-u) and k = 1,
        # c tau = W(c e^-u k) (Lambert W, in the log of its argument)
        hi = min(hi, _lambert_w_log(L) / c)
        lo = max(lo, _lambert_w_log(L - _softplus(-u)) / c)
    tau = hi  # f(hi) >= 0
    dx_old = hi - lo
    for _ in range(300):
        v = u + c * tau
        if v > 0.0:
            e = math.exp(-v)
            q = e / (1.0 + e)
        else:
            q = 1.0 / (1.0 + math.exp(v))
        f = tau - q
        if f > 0.0:
            hi = tau
        elif f < 0.0:
            lo = tau
        else:
            return tau
        df = 1.0 + c * q * (1.0 - q)
        new = tau - f / df
        # rtsafe's guard: bisect when Newton leaves the bracket or does not halve the step
        if not (lo < new < hi) or abs(2.0 * f) > abs(dx_old * df):
            new = 0.5 * (lo + hi)
        dx_old = new - tau
        if abs(dx_old) <= 4e-16 * abs(new) or hi - lo <= 4e-16 * hi:
            return new
        tau = new
    return tau


@njit(cache=True)
def _lambert_w_log(L):
    """r > 0 with r + log r = L, i.e. r = W(e^L) (Lambert W), without forming e^L when it
    overflows: safeguarded Newton on r + log r - L (increasing and concave in r)."""
    if L > 1.0:  # W(x) in [log x - log log x, log x] for x >= e
        lo = L - math.log(L)
        hi = L
    else:  # x = e^L <= e: r e^r = x with r <= 1 gives r in [x/e, x]
        x = math.exp(L)
        lo = x / math.e
        hi = x
    r = lo
    dx_old = hi - lo
    for _ in range(300):
        f = r + math.log(r) - L
        if f > 0.0:
            hi = r
        elif f < 0.0:
            lo = r
        else:
            return r
        df = 1.0 + 1.0 / r
        new = r - f / df
        if not (lo < new < hi) or abs(2.0 * f) > abs(dx_old * df):
            new = 0.5 * (lo + hi)
        dx_old = new - r
        if abs(dx_old) <= 4e-16 * abs(new) or hi - lo <= 4e-16 * hi:
            return new
        r = new
    return r


@njit(cache=True)
def piece_root(code, a, c, y):
    """The s with s in dl(a - c s), for c > 0: the root of (l')^-1(s) = a - c s, i.e.
    z = a - c s = prox_{c l}(a). Closed form except logistic and exponential (Newton)."""
    if code == SQUARED:
        return (a - y) / (1.0 + c)  # s + y = a - c s
    if code == ABSOLUTE:
        r = a - y
        if r > c:
            return 1.0
        if r < -c:
            return -1.0
        return r / c  # z = y, the kink
    u = y * a
    if code == HINGE:
        if u >= 1.0:
            return 0.0
        if u <= 1.0 - c:
            return -y
        return y * (u - 1.0) / c  # margin exactly 1, the kink
    if code == SQUARED_HINGE:
        if u >= 1.0:
            return 0.0
        return -y * (1.0 - u) / (1.0 + c)
    if code == LOGISTIC:
        return -y * _logistic_tau(u, c)
    # EXPONENTIAL: tau = -t solves tau = e^-(u + c tau); on the tangent part tau = e^CUT
    if u + c * EXP_MAX < -EXP_CUT:
        return -y * EXP_MAX
    # c tau = W(c e^-u): r + log r = log c - u
    L = math.log(c) - u
    if L < -30.0:  # W(X) = X (1 - X + O(X^2)) for X = e^L < 1e-13: tau = e^-u (1 - X)
        return -y * math.exp(-u) * (1.0 - math.exp(L))
    r = _lambert_w_log(L)
    return -y * (r / c)


# ------------------------------------------------------- pieces of every l1 method's loop
# Each method's loop kernel (fiol_steps, comid_steps, isgd_steps, sgd_l1_steps) is
#     U = state[0]
#     for k in range(start, stop):
#         i, a, b, eta = enter(data, indices, indptr, order, k, stop, w, last, U, t_first + k
#                              - start, eta0, sched, look_ahead)
#         <its step on row i>(w, data, indices, a, b, y[i], eta, sigma, code, ...)
#         U = leave(indices, a, b, last, U, eta * sigma)
#     state[0] = U
# so a step costs the row's non-zeros, never n (the lazy cumulative shrink, above).
@njit(cache=True, inline="always")
def eta_at(sched, eta0, t):
    """eta_t for step t = 0, 1, ...: eta0 (constant, sched 0) or eta0 / sqrt(1 + t / sched)
    (sched > 0 steps: 'invsqrt' is sched 1, eta0 / sqrt(t + 1))."""
    if sched == 0:
        return eta0
    return eta0 / math.sqrt(1.0 + t / sched)


@njit(cache=True, inline="always")
def enter(data, indices, indptr, order, k, stop, w, last, U, t, eta0, sched, look_ahead):
    """Start step t on example order[k]: the look-ahead hint, the row's range, eta_t, and the
    shrinks the row's coordinates missed (``settle``). Returns (i, a, b, eta)."""
    i = order[k]
    if look_ahead:
        prefetch_ahead(data, indices, indptr, order, k, stop, True)
    a = indptr[i]
    b = indptr[i + 1]
    eta = eta_at(sched, eta0, t)
    settle(w, indices, a, b, last, U)
    return i, a, b, eta


@njit(cache=True, inline="always")
def leave(indices, a, b, last, U, shrink):
    """End a step: U grows by this step's shrink eta_t sigma, which the row's coordinates
    have already received. Returns the new U."""
    U += shrink
    for p in range(a, b):
        last[indices[p]] = U
    return U


@njit(cache=True)
def settled(w, last, U):
    """A copy of w with every coordinate's missed shrinks applied."""
    out = np.empty_like(w)
    for j in range(w.shape[0]):
        out[j] = soft(w[j], U - last[j])
    return out


@njit(cache=True)
def xorshift(state):
    """Next value of a xorshift64* generator kept in state[0] (uint64); the pivots of the
    partition algorithm come from it."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


def solver_doc(name, summary, step_note=""):
    """The docstring of the l1 solvers that share :func:`rlmlib.fiol`'s arguments (comid,
    isgd, sgd_l1): ``summary`` first, then the sections, with an example of ``name``."""
    return f"""{summary}

    Accuracy: a constant eta stops in a neighbourhood of the optimum whose size grows with
    eta; the default (eta None: eta = 1/L, L = smoothness · max‖x‖² + σ, half the explicit
    steps' stability limit 2/L, and schedule 'slow_invsqrt', η_t = η/√(1 + t/(10m)): the
    rate of the first ten epochs, then a slow decrease) does not. In 500 epochs it ends
    within a relative gap of 1e-2 of the l1 optimum at σ = 1e-2 (``tests/test_defaults.py``,
    fiol, comid, isgd and sgd_l1: measured at most 7.1e-3 on the book's small problems,
    2.0e-3 on 40 – 60 random 40 – 80-row ones). A constant eta = 0.5/L for 60 epochs ended
    at 0.0013 – 0.057 on the book's problems and up to 0.143 on random ones (the noise
    neighbourhood of squared-loss problems, and the slow start of squared-hinge ones whose
    optimum is far from 0); with eta = 1/L and 30 epochs comid and sgd_l1 ended above F(0)
    on 2 random problems in 60 (squared hinge); schedule='invsqrt' with eta = 1/L: 0.24 –
    0.67 after 100 epochs (its steps shrink too fast).

    Parameters
    ----------
    X, y, sigma, eta, epochs, loss, schedule, seed, order, n_checkpoints, X_test, y_test,
    progress
        As for :func:`rlmlib.fiol`{step_note}.

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        For a bad argument, before any step.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.eye(3); y = np.array([1.0, -2.0, 0.1])
    >>> res = rlmlib.{name}(X, y, sigma=0.1, eta=0.5, epochs=50, loss="squared")
    >>> f0 = rlmlib.l1_objective(X, y, np.zeros(3), sigma=0.1, loss="squared")
    >>> bool(res.objective < f0)
    True
    >>> rlmlib.{name}(X, y, sigma=0.1, epochs=5, loss="squared").params["eta"]  # 1/L
    0.9090909090909091
    """
