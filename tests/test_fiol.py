"""The fully implicit step is the exact minimizer of its subproblem; the solvers' lazy sparse
path equals the dense path; bad input gets clear errors."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit

import rlmlib
from rlmlib.solvers.l1 import (conjugate, deriv_max, deriv_min, inverse, piece_root, settle,
                               soft)
from rlmlib.solvers.fiol import _far, breakpoints, fiol_step, g_function
from rlmlib.solvers.isgd import isgd_row
from rlmlib.core.losses import LOSSES, loss_code, loss_value

LOSS_NAMES = list(LOSSES)


@njit
def _g(w, x, eta, sigma, s):
    z = 0.0
    thr = eta * sigma
    for j in range(w.shape[0]):
        u = w[j] - eta * s * x[j]
        if u > thr:
            z += x[j] * (u - thr)
        elif u < -thr:
            z += x[j] * (u + thr)
    return z


@njit
def reference_s(w, x, y, eta, sigma, code):
    """Independent reference: bisection to machine precision on the derivative of the 1-D
    concave dual D(s) = -l*(s) + sum_j min_u [s x_j u + sigma |u| + (u - w_j)^2/(2 eta)],
    whose superdifferential contains 0 iff s in dl(g(s)); no breakpoints, no sorting."""
    lo, hi = -1.0, 1.0
    while not deriv_min(code, _g(w, x, eta, sigma, hi), y) <= hi:
        hi *= 2.0
    while deriv_min(code, _g(w, x, eta, sigma, lo), y) <= lo:
        lo *= 2.0
    for _ in range(5000):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if deriv_min(code, _g(w, x, eta, sigma, mid), y) <= mid:
            hi = mid
        else:
            lo = mid
    return hi


def _shrink(u, a):
    return np.sign(u) * np.maximum(np.abs(u) - a, 0.0)


def _instances(loss, count, seed):
    """Random subproblems incl. x = 0, ties among breakpoints, sigma = 0, tiny and huge eta,
    huge margins."""
    rng = np.random.default_rng(seed)
    regression = LOSSES[loss]["task"] == "regression"
    for it in range(count):
        n = int(rng.integers(1, 14))
        w = rng.standard_normal(n) * 10.0 ** rng.uniform(-2, 2)
        x = rng.standard_normal(n) * (rng.random(n) < 0.7)
        kind = it % 10
        if kind == 0:
            x[:] = 0.0
        elif kind == 1:  # ties: integer data give coinciding breakpoints
            x = np.round(2 * x)
            w = np.round(w)
        elif kind == 2:
            w[:] = 0.0
        eta = 10.0 ** rng.uniform(-6, 6) if kind in (3, 4) else 10.0 ** rng.uniform(-2, 2)
        sigma = 0.0 if kind in (5, 6) else 10.0 ** rng.uniform(-3, 1)
        if kind == 7:  # huge margins
            w = w * 1e3
        y = rng.standard_normal() * 3 if regression else float(rng.choice([-1.0, 1.0]))
        yield w, x, y, eta, sigma


def _scale(w, x, eta, s, new):
    return max(1.0, np.abs(w).max(), np.abs(new).max(), eta * abs(s) * np.abs(x).max())


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_step_is_the_exact_minimizer(loss):
    code = loss_code(loss)
    for k, (w, x, y, eta, sigma) in enumerate(_instances(loss, 2500, 7 + code)):
        new, s = fiol_step(w, x, y, eta=eta, sigma=sigma, loss=loss, method="sort",
                           return_s=True)
        part = fiol_step(w, x, y, eta=eta, sigma=sigma, loss=loss, method="partition",
                         seed=k)
        sc = _scale(w, x, eta, s, new)
        case = f"{loss} instance {k}: w={w}, x={x}, y={y}, eta={eta}, sigma={sigma}"
        # 1. Algorithm 1 == Algorithm 2 to 1e-14
        assert np.abs(new - part).max() <= 1e-14 * sc, case
        # 2. the reference (dual bisection) gives the same point
        sr = reference_s(w, x, y, eta, sigma, code)
        ref = _shrink(w - eta * sr * x, eta * sigma)
        assert np.abs(new - ref).max() <= 1e-11 * sc, case
        # 3. optimality: w+ = S(w - eta s x) and s in dl(<w+, x>) (Fenchel-Young gap 0);
        # exactly as computed, except where fiol_step avoids that formula's subtractions
        # near eta sigma (fiol._far_step): there to its rounding, a few eps eta sigma
        shrunk = _shrink(w - eta * s * x, eta * sigma)
        if _far(eta, sigma, np.abs(w).max(), np.abs(x).max(), y):
            assert np.abs(new - shrunk).max() <= 8e-16 * sc, case
        else:
            assert np.array_equal(new, shrunk), case
        z = float(new @ x)
        tol = 1e-9 * max(1.0, abs(s * z), abs(loss_value(code, z, y)))
        gap = loss_value(code, z, y) + conjugate(code, s, y) - s * z
        assert -tol <= gap <= tol, case + f" gap={gap}"
        # 4. not beaten by nearby points
        P = lambda u: (loss_value(code, float(u @ x), y) + sigma * np.abs(u).sum()  # noqa
                       + ((u - w) ** 2).sum() / (2 * eta))
        p0 = P(new)
        if k % 25 == 0:
            for d in np.random.default_rng(k).standard_normal((5, w.size)):
                for h in (1e-3, 1e-6):
                    assert p0 <= P(new + h * sc * d) + 1e-12 * max(1.0, abs(p0)), case


def _mp_step(w, x, y, eta, sigma, loss, prec=None):
    """The exact step in high precision (mpmath), from the definition: u = S_thr(w - eta s x)
    with s the root of the monotone predicate 'min dl(g(s)) <= s', g(s) = <x, u(s)>. The
    piece of g holding the root is found by bisection over the sorted breakpoints (g
    evaluated from its definition), then s on that piece, where g = A - C s with A, C
    summed over the u_j active on it, by bisection (Illinois steps for the smooth losses),
    until eta s x_j is known to 2^-200 of max|w_j| (or to adjacent numbers). Precision:
    256 bits plus log2(eta sigma / max|w_j|): then w_j, eta s x_j (at most |w_j| + |u_j| +
    eta sigma) and eta sigma are exact to ~200 bits below the scale of w and u."""
    import mpmath as mp

    M = max(abs(float(v)) for v in x)
    sc = max(abs(float(v)) for v in w) or 2.0 ** -60 / M  # w = 0: u is O(1/M) or 0
    if prec is None:
        prec = 256 + max(0, math.ceil(math.log2(eta) + math.log2(sigma or 1e-300)
                                      - math.log2(sc)))
    with mp.workprec(prec):
        W = [mp.mpf(float(v)) for v in w]
        X = [mp.mpf(float(v)) for v in x]
        E, Y = mp.mpf(eta), mp.mpf(y)
        thr = E * mp.mpf(sigma)

        def S(u):
            return mp.sign(u) * max(abs(u) - thr, 0)

        def dmin(z):  # the left derivative of the loss at z
            if loss == "squared":
                return z - Y
            if loss == "absolute":
                return mp.mpf(-1 if z <= Y else 1)
            if loss == "hinge":
                return -Y if Y * z <= 1 else mp.mpf(0)
            if loss == "squared_hinge":
                return -Y * (1 - Y * z) if Y * z < 1 else mp.mpf(0)
            if loss == "logistic":
                return -Y / (1 + mp.exp(Y * z))
            # exponential, with its tangent continuation below the margin -600
            return -Y * mp.exp(-Y * z) if Y * z >= -600 else -Y * mp.exp(600)

        def g(s):
            return sum(xj * S(wj - E * s * xj) for wj, xj in zip(W, X))

        def holds(s):
            return dmin(g(s)) <= s

        bps = sorted(b for wj, xj in zip(W, X) if xj != 0
                     for b in ((wj - thr * mp.sign(xj)) / (E * xj),
                               (wj + thr * mp.sign(xj)) / (E * xj)))
        i, j = 0, len(bps)  # the first breakpoint where the predicate holds
        while i < j:
            mid = (i + j) // 2
            i, j = (i, mid) if holds(bps[mid]) else (mid + 1, j)
        lo = bps[i - 1] if i > 0 else None
        hi = bps[i] if i < len(bps) else None
        step = mp.mpf(1)
        if lo is None:  # a half-line: expand until the predicate fails
            lo = (hi if hi is not None else mp.mpf(0)) - step
            while holds(lo):
                step *= 2
                lo -= step
        step = mp.mpf(1)
        if hi is None:
            hi = lo + step
            while not holds(hi):
                step *= 2
                hi += step
        mid = (lo + hi) / 2  # g = A - C s on [lo, hi]: the sums over the active u_j there
        act = [(wj, xj, mp.sign(wj - E * mid * xj)) for wj, xj in zip(W, X)
               if abs(wj - E * mid * xj) > thr]
        A = sum(xj * (wj - thr * e) for wj, xj, e in act)
        C = E * sum(xj * xj for _, xj, _ in act)
        tol = mp.ldexp(sc, -200) / (E * M)  # eta (hi - lo) x_j below 2^-200 max|w_j|
        smooth = loss in ("logistic", "exponential")  # f continuous: Illinois steps
        flo, fhi, side = dmin(A - C * lo) - lo, dmin(A - C * hi) - hi, 0
        while hi - lo > tol:
            mid = (lo * fhi - hi * flo) / (fhi - flo) if smooth else (lo + hi) / 2
            if not lo < mid < hi:
                mid = (lo + hi) / 2
                if not lo < mid < hi:
                    break
            fm = dmin(A - C * mid) - mid
            if fm <= 0:  # the predicate holds: the root is left of mid
                hi, fhi = mid, fm
                flo, side = (flo / 2 if side == -1 else flo), -1
            else:
                lo, flo = mid, fm
                fhi, side = (fhi / 2 if side == 1 else fhi), 1
        return np.array([float(S(wj - E * hi * xj)) for wj, xj in zip(W, X)])


@pytest.mark.parametrize("loss", ["squared", "absolute", "hinge", "squared_hinge",
                                  "logistic"])
def test_step_at_a_huge_eta_is_exact(loss):
    # beyond eta sigma = 16 max(|w_j|, 1/max|x_j|, |y|/max|x_j|) the step is computed in
    # the variable tau = eta (s - e sigma/M) (fiol._far_step); compared with the step
    # computed in high precision (_mp_step), eta up to 1e300, ties of |x_j| included
    rng = np.random.default_rng(11 + loss_code(loss))
    regression = LOSSES[loss]["task"] == "regression"
    for k in range(8):
        n = int(rng.integers(1, 5))
        w = rng.standard_normal(n) * 10.0 ** rng.uniform(-1, 1)
        x = rng.standard_normal(n)
        if k % 3 == 0:
            x = np.round(2 * x) / 2  # equal |x_j|: several coordinates at the edge
            x[0] = x[0] or 1.0
        y = rng.standard_normal() * 3 if regression else float(rng.choice([-1.0, 1.0]))
        eta, sigma = 10.0 ** rng.uniform(20, 300), 10.0 ** rng.uniform(-3, 0)
        ref = _mp_step(w, x, y, eta, sigma, loss)
        for method in ("sort", "partition"):
            u = fiol_step(w, x, y, eta=eta, sigma=sigma, loss=loss, method=method)
            assert np.all(np.isfinite(u))
            scale = max(1.0, np.abs(ref).max())
            assert np.abs(u - ref).max() <= 1e-14 * scale, (loss, k, w, x, y, eta, sigma,
                                                            u, ref)


def _sweep_instances(loss, seed):
    """(w, x, y, sigma) for the eta sweep: two of moderate size (one with ties among |x_j|),
    one with w (and a regression target) near 1e200, one with x near 1e200 (w near 1e-200),
    one with x near 1e-200."""
    rng = np.random.default_rng(seed)
    regression = LOSSES[loss]["task"] == "regression"
    for k, (sw, sx) in enumerate([(1.0, 1.0), (1.0, 1.0), (1e200, 1.0), (1e-200, 1e200),
                                  (1.0, 1e-200)]):
        n = int(rng.integers(2, 6))
        w = rng.standard_normal(n) * 10.0 ** rng.uniform(-1, 1) * sw
        x = rng.standard_normal(n)
        if k == 1:
            x = np.round(2 * x) / 2  # equal |x_j|: several coordinates at the edge
            x[0] = x[0] or 1.0
        x = x * sx
        y = rng.standard_normal() * 3 * sw * sx if regression else float(rng.choice([-1, 1]))
        yield w, x, y, 10.0 ** rng.uniform(-3, 0)


@pytest.mark.parametrize("loss", LOSS_NAMES)
def test_step_is_exact_over_an_eta_sweep(loss):
    # the step against the mpmath reference over eta from 1e-6 to 1e300 (every 12 decades)
    # and over eta sigma / scale = 2^k (scale = max(|w_j|, 1/M, |y|/M), M = max|x_j|) with
    # k from -4 to 48, every half octave from 8 to 42 (where S_thr(w_j - eta s x_j)
    # subtracts numbers near thr = eta sigma), then every 40 octaves up to eta = 1e300 or
    # the step's range. Both methods agree with it to 1e-13 max(|w_j|, |u_j|). Before, the
    # ordinary path lost log2(thr / scale) bits below the switch to fiol._far_step at
    # 2^30 scale (2e-7 near k = 30; the switch is now at 2^4), and with x near 1e200 the
    # products eta s x_j underflowed (the step off by orders of magnitude; x is now
    # rescaled by a power of two), and logistic's piece root stopped short at c ~ 1e200
    compared = 0
    for w, x, y, sigma in _sweep_instances(loss, 31 + loss_code(loss)):
        M = np.abs(x).max()
        scale = max(np.abs(w).max(), 1.0 / M, abs(y) / M)
        limit = 2.0 ** min(1020 - 2 * math.log2(M) - math.log2(x.size), 1023)  # step's range
        k = np.r_[np.arange(-4, 8, 1.5), np.arange(8, 42, 0.5), np.arange(42, 48, 1.5),
                  np.arange(48, 2100, 40)] + math.log2(scale / sigma)  # log2 eta
        etas = np.r_[10.0 ** np.arange(-6, 301, 12), 2.0 ** k[k < 1000]]
        for eta in etas[(etas <= min(limit, 1e300)) & (etas >= 1e-300)]:
            ref = _mp_step(w, x, y, eta, sigma, loss)
            size = max(np.abs(w).max(), np.abs(ref).max())
            for method in ("sort", "partition"):
                u = fiol_step(w, x, y, eta=eta, sigma=sigma, loss=loss, method=method)
                assert np.all(np.isfinite(u))
                err = np.abs(u - ref).max() / size
                assert err <= 1e-13, (loss, method, w, x, y, eta, sigma,
                                      math.log2(eta * sigma / scale), err)
                compared += 1
    assert compared >= 800  # some 90 values of eta per instance, none skipped


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_solver_at_a_huge_eta_takes_the_exact_steps(loss):
    # fiol at eta = 1e300 returned w = 0 (every step rounded to 0); now each row in the far
    # regime takes fiol_step's far-eta step: the run equals the loop of fiol_step calls, on
    # dense and sparse rows, and moves away from 0
    rng = np.random.default_rng(4)
    X = rng.standard_normal((30, 5)) * (rng.random((30, 5)) < 0.6)
    y = np.sign(X[:, 0] + 0.1)
    w = np.zeros(5)
    for i in range(30):
        w = fiol_step(w, X[i], y[i], eta=1e300, sigma=0.1, loss=loss)
    assert np.any(w != 0.0)
    for XX in (X, sp.csr_matrix(X)):
        res = rlmlib.fiol(XX, y, sigma=0.1, eta=1e300, epochs=1, loss=loss, order="cyclic")
        assert np.array_equal(res.w, w), (res.w, w)
    with pytest.raises(ValueError, match="X is too large for fiol"):  # unbounded loss
        rlmlib.fiol(X, y, sigma=0.1, eta=1e300, epochs=1, loss="squared")


def test_sigma_zero_is_implicit_sgd_and_squared_closed_form():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = 6
        w, x = rng.standard_normal(n), rng.standard_normal(n)
        y, eta = rng.standard_normal(), 10 ** rng.uniform(-3, 3)
        new = fiol_step(w, x, y, eta=eta, sigma=0.0, loss="squared")
        closed = w - eta * (w @ x - y) / (1 + eta * (x @ x)) * x  # Kulis-Bartlett
        assert np.allclose(new, closed, rtol=1e-12, atol=1e-12 * np.abs(w).max())
        for loss in ("logistic", "hinge", "exponential"):
            yy = float(np.sign(y))
            a = fiol_step(w, x, yy, eta=eta, sigma=0.0, loss=loss)
            b = w.copy()
            isgd_row(b, x, np.arange(n), 0, n, yy, eta, 0.0, loss_code(loss))
            assert np.allclose(a, b, rtol=1e-12, atol=1e-12)


def test_g_is_piecewise_linear_nonincreasing_with_the_breakpoints():
    rng = np.random.default_rng(1)
    w, x = rng.standard_normal(8), rng.standard_normal(8)
    x[2] = 0.0
    lo, hi, om = breakpoints(w, x, eta=0.7, sigma=0.3)
    assert lo.size == 7 and np.all(lo < hi)
    bps = np.sort(np.r_[lo, hi])
    s = np.linspace(bps[0] - 1, bps[-1] + 1, 20001)
    g = g_function(s, w, x, eta=0.7, sigma=0.3)
    assert np.all(np.diff(g) <= 1e-12)
    # slope changes only at breakpoints: second differences vanish away from them
    d2 = np.abs(np.diff(g, 2))
    near = np.min(np.abs(s[1:-1, None] - bps[None, :]), axis=1) < 2 * (s[1] - s[0])
    assert d2[~near].max() < 1e-12 and d2[near].max() > 1e-6


def test_piece_root_solves_its_equation_and_inverse_is_the_inverse():
    rng = np.random.default_rng(5)
    for loss in LOSS_NAMES:
        code = loss_code(loss)
        for _ in range(500):
            y = rng.standard_normal() if LOSSES[loss]["task"] == "regression" else \
                float(rng.choice([-1.0, 1.0]))
            a = rng.standard_normal() * 10 ** rng.uniform(-2, 3)
            c = 10 ** rng.uniform(-8, 8)
            s = piece_root(code, a, c, y)
            z = a - c * s
            tol = 1e-12 * max(1.0, abs(s))
            dz = 1e-12 * max(1.0, abs(a), abs(z))  # z = a - c s carries rounding
            assert deriv_min(code, z - dz, y) - tol <= s <= deriv_max(code, z + dz, y) + tol
            zl, zh = inverse(code, s, y)
            if loss == "logistic" and not 1e-6 < -s * y < 1 - 1e-6:  # ill-conditioned
                continue
            if loss == "exponential" and s == 0.0:  # e^-u underflowed: s = 0 is its rounding
                continue
            assert zl - 1e-9 * max(1, abs(z)) <= z <= zh + 1e-9 * max(1, abs(z)), (loss, a, c)


def test_logistic_piece_root_at_a_huge_curvature():
    # s in dl(a - c s) for logistic at c up to 1e300 (fiol_step's rescaled steps with x
    # near 1e200 reach c ~ 1e200): tau = -s y solves tau = 1/(1 + e^(u + c tau)), u = y a.
    # Halving (0, q(0)] stopped 2^-300 short of a root near 1e-197; checked here against
    # the equation in mpmath (relative residual of log tau + log(1 + e^(u + c tau)))
    import mpmath as mp

    rng = np.random.default_rng(12)
    code = loss_code("logistic")
    for _ in range(300):
        y = float(rng.choice([-1.0, 1.0]))
        a = rng.standard_normal() * 10 ** rng.uniform(-2, 2.5)  # root above 2^-1022
        c = 10 ** rng.uniform(8, 300)
        tau = -y * piece_root(code, a, c, y)
        assert 0.0 < tau < 1.0, (a, c, y, tau)
        with mp.workprec(200):
            t = mp.mpf(tau)
            v = y * mp.mpf(a) + mp.mpf(c) * t
            # f(t) = log t + log(1 + e^v(t)) vanishes at the root and t f'(t) = 1 + c t p,
            # p = e^v / (1 + e^v): f / (1 + c t p) is the relative error of tau
            f = mp.log(t) + mp.log1p(mp.exp(v))
            rel = abs(f) / (1 + mp.mpf(c) * t / (1 + mp.exp(-v)))
        assert rel <= 1e-13 + 2.0 ** -1073 / tau, (a, c, y, tau, float(rel))  # subnormal


def test_soft_thresholds_compose_additively():
    rng = np.random.default_rng(2)
    u = rng.standard_normal(1000) * 3
    a, b = rng.random(1000), rng.random(1000)
    for i in range(1000):
        assert abs(soft(soft(u[i], a[i]), b[i]) - soft(u[i], a[i] + b[i])) <= 1e-15 * 8
    w = np.array([3.0, -0.2, 1.0])
    last = np.array([0.0, 0.0, 0.5])
    settle(w, np.arange(3), 0, 3, last, 1.0)
    assert np.allclose(w, [2.0, 0.0, 0.5]) and np.all(last == 1.0)


@pytest.mark.parametrize("algo", ["fiol", "comid", "isgd", "sgd_l1"])
@pytest.mark.parametrize("schedule", ["constant", "invsqrt"])
def test_lazy_sparse_path_equals_dense_path(algo, schedule):
    rng = np.random.default_rng(4)
    A = sp.random(200, 400, density=0.02, random_state=1, format="csr")
    y = np.sign(rng.standard_normal(200))
    f = getattr(rlmlib, algo)
    kw = dict(sigma=0.003, eta=0.8, epochs=3, loss="logistic", schedule=schedule)
    a = f(A, y, **kw)
    b = f(A.toarray(), y, **kw)
    if algo in ("fiol", "comid"):  # exact: soft thresholds compose
        assert np.abs(a.w - b.w).max() <= 1e-12
        assert a.objective == pytest.approx(b.objective, rel=1e-12)
    else:  # the dense path takes the plain subgradient steps (no clip at zero)
        assert a.objective == pytest.approx(b.objective, rel=0.05)


def test_solver_matches_steps_and_methods_agree():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((30, 5))
    y = X @ rng.standard_normal(5) + 0.1 * rng.standard_normal(30)
    res = rlmlib.fiol(X, y, sigma=0.05, eta=0.3, epochs=2, loss="squared", order="cyclic")
    w = np.zeros(5)
    for t in range(60):
        w = fiol_step(w, X[t % 30], y[t % 30], eta=0.3, sigma=0.05, loss="squared")
    assert np.allclose(res.w, w, atol=1e-13)
    r2 = rlmlib.fiol(X, y, sigma=0.05, eta=0.3, epochs=2, loss="squared", order="cyclic",
                     method="sort")
    assert np.abs(res.w - r2.w).max() <= 1e-13
    assert res.objective == pytest.approx(
        rlmlib.l1_objective(X, y, res.w, sigma=0.05, loss="squared"), rel=1e-14)
    # n_checkpoints does not change the run
    r3 = rlmlib.fiol(X, y, sigma=0.05, eta=0.3, epochs=2, loss="squared", order="cyclic",
                     n_checkpoints=7)
    assert np.array_equal(r3.w, res.w) and len(r3.trace) == 8


def test_implicit_methods_are_stable_where_explicit_ones_diverge():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((100, 20)) * 3
    y = X @ rng.standard_normal(20)
    for f in (rlmlib.fiol, rlmlib.isgd):
        r = f(X, y, sigma=0.01, eta=100.0, epochs=2, loss="squared")
        assert np.isfinite(r.objective)
    with pytest.raises(FloatingPointError, match="eta"), \
            pytest.warns(RuntimeWarning, match="eta=100 exceeds the stability limit"):
        rlmlib.comid(X, y, sigma=0.01, eta=100.0, epochs=5, loss="squared")


@pytest.mark.parametrize("kw, msg", [
    (dict(eta=0.0), "eta must be"), (dict(eta=-1.0), "eta"),
    (dict(sigma=-0.1), "sigma must be in"), (dict(method="bisect"), "method must be one"),
    (dict(loss="huber"), "loss must be one of"),
])
def test_step_bad_input(kw, msg):
    args = dict(eta=1.0, sigma=0.1, loss="squared")
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        fiol_step(np.zeros(3), np.ones(3), 1.0, **args)


def test_step_bad_shapes_and_labels():
    with pytest.raises(ValueError, match="length of w"):
        fiol_step(np.zeros(3), np.ones(4), 1.0, eta=1.0, sigma=0.1, loss="squared")
    with pytest.raises(ValueError, match="-1 or \\+1"):
        fiol_step(np.zeros(3), np.ones(3), 0.5, eta=1.0, sigma=0.1, loss="hinge")
    with pytest.raises(ValueError, match="finite"):
        fiol_step(np.zeros(3), np.array([1, np.nan, 0]), 1.0, eta=1.0, sigma=0.1,
                  loss="squared")


def test_solver_bad_input():
    X, y = np.eye(3), np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="schedule"):
        rlmlib.fiol(X, y, sigma=0.1, eta=1.0, epochs=1, loss="squared", schedule="1/t")
    with pytest.raises(ValueError, match="eta"):
        rlmlib.comid(X, y, sigma=0.1, eta=0, epochs=1, loss="squared")
    with pytest.raises(ValueError, match="sigma"):
        rlmlib.isgd(X, y, sigma=-1, eta=1.0, epochs=1, loss="squared")
    with pytest.raises(TypeError, match="sigma"):
        rlmlib.fiol(X, y, lam=0.1, eta=1.0, epochs=1, loss="squared")
    with pytest.raises(ValueError, match="method"):
        rlmlib.fiol(X, y, sigma=0.1, eta=1.0, epochs=1, loss="squared", method="x")


@pytest.mark.filterwarnings("ignore:.*exceeds the stability limit:RuntimeWarning")
def test_solvers_follow_the_contract():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((80, 6))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(80) > 0, "a", "b")
    for f in (rlmlib.fiol, rlmlib.comid, rlmlib.isgd, rlmlib.sgd_l1):
        res = f(X[:60], y[:60], sigma=1e-3, eta=0.5, epochs=3, loss="logistic",
                n_checkpoints=3, X_test=X[60:], y_test=y[60:])
        assert list(res.classes) == ["a", "b"] and res.trace.test_metric_name == "accuracy"
        assert len(res.trace) == 4 and np.all(np.diff(res.trace.objective[:2]) < 0)
        assert np.mean(res.predict(X[60:]) == y[60:]) == pytest.approx(
            res.trace.test_metric[-1])
        assert res.params["sigma"] == 1e-3 and res.solver == f.__name__


def test_solver_sigma_range_and_zero():
    X, y = np.eye(3), np.array([1.0, 2.0, 3.0])
    r = rlmlib.fiol(X, y, sigma=0, eta=1.0, epochs=1, loss="squared")  # implicit SGD
    assert np.allclose(r.w, y / 2)     # one implicit step per coordinate: w = y/(1 + 1)
    for bad in (1e-310, 1e300):
        with pytest.raises(ValueError, match="sigma must be at"):
            rlmlib.comid(X, y, sigma=bad, eta=1.0, epochs=1, loss="squared")


def test_data_scale_is_checked_before_running():
    X = np.eye(3) * 1e200
    y = np.array([1.0, -1.0, 1.0])
    for f in (rlmlib.fiol, rlmlib.isgd, rlmlib.comid, rlmlib.sgd_l1):
        with pytest.raises(ValueError, match="X is too large for"):
            f(X, y, sigma=0.1, eta=1.0, epochs=2, loss="logistic")
    # squared loss: the explicit methods have no a-priori bound; the run detects divergence
    with pytest.raises(FloatingPointError, match="diverged"), \
            pytest.warns(RuntimeWarning, match="eta=1 exceeds the stability limit"):
        rlmlib.comid(np.eye(3) * 1e100, y, sigma=0.1, eta=1.0, epochs=3, loss="squared")


def test_step_takes_a_read_only_w_and_names_a_subnormal_x():
    """A read-only w (numba typed it apart: a raw TypingError) is read from a copy and left
    unchanged; a subnormal x whose rescaling overflows is refused naming x (it was a raw
    OverflowError)."""
    import numpy as np
    import pytest

    import rlmlib

    w = np.array([0.5, -0.25])
    w.flags.writeable = False
    x = np.array([1.0, 2.0])
    got = rlmlib.fiol_step(w, x, 1.0, eta=0.5, sigma=0.1, loss="squared")
    want = rlmlib.fiol_step(w.copy(), x, 1.0, eta=0.5, sigma=0.1, loss="squared")
    assert np.array_equal(got, want) and w.tolist() == [0.5, -0.25]
    with pytest.raises(ValueError, match=r"^x is out of the step's range: .* 1e-310"):
        rlmlib.fiol_step(np.zeros(2), np.array([1e-310, 0.0]), 1.0, eta=1.0, sigma=0.5,
                         loss="squared")
