"""Checkers for the variance-reduction part's code exercises (DESIGN.md, "Exercise
checkers"): each runs the reader's function on chosen inputs, extreme ones included, and
raises ``AssertionError`` naming the input and the size of the error, or the likely cause."""
import math

import numpy as np

from .base import _checker_doc, _student


def _soft(u, a):
    return math.copysign(max(abs(u) - a, 0.0), u)


def _ref_catch_up(u, c, eta, sigma, k):
    for _ in range(k):
        u = _soft(u - eta * c, eta * sigma)
    return u


def _catch_up_cases():
    rng = np.random.default_rng(0)
    cases = [(1.0, 0.1, 0.5, 0.2, 3), (1.0, 0.0, 0.5, 0.2, 100),   # shrinks to 0, stays
             (0.0, 0.05, 0.5, 0.2, 10),                              # |c| <= σ: stays 0
             (1.0, 1.0, 0.5, 0.2, 6),                                # |c| > σ: crosses 0
             (-2.0, -3.0, 0.1, 1.0, 50), (0.3, 0.0, 0.1, 0.0, 7),    # no prox (σ = 0)
             (5.0, 2.0, 1.0, 0.5, 0), (1e300, 1e-3, 1.0, 1e-3, 5),   # k = 0; huge u
             (1e-300, -1e-300, 1.0, 1e-301, 9), (0.0, 1e3, 1e-3, 1.0, 1000)]
    for _ in range(20):
        cases.append((float(rng.normal() * 3), float(rng.normal()), float(rng.random()),
                      float(rng.random()), int(rng.integers(0, 40))))
    return cases


@_checker_doc("catch_up", "(u, c, eta, sigma, k) -> float", "case")
def check_saga_catch_up(catch_up):
    """Check ``catch_up(u, c, eta, sigma, k)``: the value after k SAGA steps on a coordinate
    that no row touches, u <- S_{ησ}(u − η c) (S: soft thresholding), to a relative 1e-12
    (absolute 1e-12 times the largest magnitude involved), without walking all k steps when
    the coordinate keeps its sign.

    Examples
    --------
    >>> import math
    >>> from rlmlib.book.checkers.vr import check_saga_catch_up
    >>> def loop(u, c, eta, sigma, k):
    ...     for _ in range(k):
    ...         v = u - eta * c
    ...         u = math.copysign(max(abs(v) - eta * sigma, 0.0), v)
    ...     return u
    >>> check_saga_catch_up(loop)
    'check_saga_catch_up: all 30 cases correct.'
    >>> def lumped(u, c, eta, sigma, k):            # all gradient steps, then one prox
    ...     v = u - k * eta * c
    ...     return math.copysign(max(abs(v) - k * eta * sigma, 0.0), v)
    >>> try:
    ...     check_saga_catch_up(lumped)
    ... except AssertionError as e:
    ...     print(str(e).split(": ")[-1])
    the k gradient steps were lumped before the k shrinks (exact only while the sign holds)
    """
    _student("catch_up", catch_up)
    cases = _catch_up_cases()
    for u, c, eta, sigma, k in cases:
        exp = _ref_catch_up(u, c, eta, sigma, k)
        got = float(catch_up(u, c, eta, sigma, k))
        scale = max(abs(u), abs(k * eta * c), abs(exp), 1e-300)
        if math.isclose(got, exp, rel_tol=1e-12, abs_tol=1e-12 * scale):
            continue
        case = f"catch_up(u={u:.6g}, c={c:.6g}, eta={eta:.6g}, sigma={sigma:.6g}, k={k})"
        v = u - k * eta * c
        if k > 0 and math.isclose(got, _soft(v, k * eta * sigma), rel_tol=1e-9,
                                  abs_tol=1e-12 * scale):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: the k gradient "
                                 f"steps were lumped before the k shrinks (exact only while "
                                 f"the sign holds)")
        if k > 0 and math.isclose(got, _ref_catch_up(u, c, eta, sigma, k - 1), rel_tol=1e-12,
                                  abs_tol=1e-12 * scale):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: one step short "
                                 f"(k steps were missed, k - 1 applied)")
        if math.isclose(got, _ref_catch_up(u, c, eta, 0.0, k), rel_tol=1e-12,
                        abs_tol=1e-12 * scale):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: the proximal "
                                 f"shrink by eta * sigma is missing")
        raise AssertionError(f"{case} = {got!r}, expected {exp!r} (error "
                             f"{abs(got - exp):.3g})")
    return f"check_saga_catch_up: all {len(cases)} cases correct."


def _ref_sqhinge(beta, yz, q):
    return max(beta + (1.0 - yz - beta) / (1.0 + q), 0.0)


@_checker_doc("step", "(beta, yz, q) -> float", "case")
def check_sdca_squared_hinge(step):
    """Check ``step(beta, yz, q)``: SDCA's new dual variable β for the squared hinge loss
    (the maximizer over b >= 0 of b − b²/2 − yz (b − β) − q (b − β)²/2), to 1e-12.

    Examples
    --------
    >>> from rlmlib.book.checkers.vr import check_sdca_squared_hinge
    >>> check_sdca_squared_hinge(lambda b, yz, q: max(b + (1 - yz - b) / (1 + q), 0.0))
    'check_sdca_squared_hinge: all 12 cases correct.'
    >>> try:
    ...     check_sdca_squared_hinge(lambda b, yz, q: min(max(b + (1 - yz) / q, 0), 1))
    ... except AssertionError as e:
    ...     print(str(e).split(": ")[-1])
    this is the hinge loss's step (the squared hinge has no upper bound and divides by 1 + q)
    """
    _student("step", step)
    cases = [(0.0, 0.0, 1.0), (0.5, 2.0, 0.5), (0.2, -3.0, 2.0), (3.0, 0.5, 0.1),
             (0.0, 1.0, 1e-12), (1e3, -1e3, 1e3), (0.0, 5.0, 1e-3), (2.0, 1.0, 0.0),
             (0.7, 0.3, 1e6), (1e-300, 1.0, 1.0), (4.0, -1.0, 1e-8), (0.1, 1e3, 1.0)]
    for beta, yz, q in cases:
        exp = _ref_sqhinge(beta, yz, q)
        got = float(step(beta, yz, q))
        if math.isclose(got, exp, rel_tol=1e-12, abs_tol=1e-12 * max(1.0, abs(beta))):
            continue
        case = f"step(beta={beta:g}, yz={yz:g}, q={q:g})"
        with np.errstate(all="ignore"):
            hinge = min(max(beta + (1 - yz) / q, 0.0), 1.0) if q > 0 else None
        if hinge is not None and math.isclose(got, hinge, rel_tol=1e-12, abs_tol=1e-15):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: this is the "
                                 f"hinge loss's step (the squared hinge has no upper bound "
                                 f"and divides by 1 + q)")
        if math.isclose(got, beta + (1 - yz - beta) / (1 + q), rel_tol=1e-12, abs_tol=1e-15):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: not projected "
                                 f"onto beta >= 0")
        if math.isclose(got, max(beta + (1 - yz) / (1 + q), 0.0), rel_tol=1e-12,
                        abs_tol=1e-15):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: the conjugate's "
                                 f"-b²/2 term is missing from the numerator (−β)")
        raise AssertionError(f"{case} = {got!r}, expected {exp!r}")
    return f"check_sdca_squared_hinge: all {len(cases)} cases correct."


def _ref_gap(X, y, alpha, sigma):
    m = X.shape[0]
    w = X.T @ alpha / (sigma * m)
    P = 0.5 * sigma * w @ w + np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))
    D = np.mean(alpha * y) - 0.5 * sigma * w @ w
    return P - D


@_checker_doc("gap", "(X, y, alpha, sigma) -> float", "case")
def check_duality_gap(gap):
    """Check ``gap(X, y, alpha, sigma)``: the duality gap P(w(α)) − D(α) of the hinge loss
    with w(α) = Σ αᵢxᵢ/(σm) and yᵢαᵢ ∈ [0, 1], to a relative 1e-10, and that the inputs are
    left unmodified.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.vr import check_duality_gap
    >>> def gap(X, y, alpha, sigma):
    ...     w = X.T @ alpha / (sigma * len(y))
    ...     P = sigma / 2 * w @ w + np.mean(np.maximum(0, 1 - y * (X @ w)))
    ...     return P - (np.mean(alpha * y) - sigma / 2 * w @ w)
    >>> check_duality_gap(gap)
    'check_duality_gap: all 5 cases correct.'
    """
    _student("gap", gap)
    rng = np.random.default_rng(1)
    cases = []
    for m, n, sigma in [(5, 3, 1.0), (40, 6, 1e-2), (30, 4, 1e-6), (8, 2, 1e3)]:
        X = rng.standard_normal((m, n))
        y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
        cases.append((X, y, y * rng.random(m), sigma))
    cases.append((np.zeros((4, 3)), np.array([1.0, -1, 1, -1]), np.zeros(4), 0.5))
    for X, y, alpha, sigma in cases:
        exp = _ref_gap(X, y, alpha, sigma)
        args = [a.copy() for a in (X, y, alpha)]
        got = float(gap(*args, sigma))
        case = f"gap(X of shape {X.shape}, sigma={sigma:g})"
        if not all(np.array_equal(a, b) for a, b in zip(args, (X, y, alpha))):
            raise AssertionError(f"{case} modified its inputs")
        if math.isclose(got, exp, rel_tol=1e-10, abs_tol=1e-12):
            continue
        m = X.shape[0]
        w = X.T @ alpha / (sigma * m)
        hinge = np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))
        if math.isclose(got, hinge - np.mean(alpha * y), rel_tol=1e-10, abs_tol=1e-12) or \
                math.isclose(got, hinge + sigma * w @ w - np.mean(alpha * y) - sigma * w @ w,
                             rel_tol=1e-10, abs_tol=1e-12):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: the two "
                                 f"(σ/2)‖w‖² terms cancel instead of adding (D subtracts "
                                 f"it, so P − D counts it twice)")
        w2 = X.T @ alpha / m
        P2 = 0.5 * sigma * w2 @ w2 + np.mean(np.maximum(0.0, 1.0 - y * (X @ w2)))
        if math.isclose(got, P2 - (np.mean(alpha * y) - 0.5 * sigma * w2 @ w2),
                        rel_tol=1e-10, abs_tol=1e-12):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: w(α) lacks "
                                 f"the factor 1/σ")
        raise AssertionError(f"{case} = {got!r}, expected {exp!r}")
    return f"check_duality_gap: all {len(cases)} cases correct."
