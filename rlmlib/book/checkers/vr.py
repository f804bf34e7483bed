"""Self-checks of the code exercises of the part "Variance reduction" (chapters/vr;
DESIGN.md, "Exercise checkers"): SAGA's catch-up of an untouched coordinate under the l1
prox, SDCA's coordinate step for the squared hinge loss, and the hinge loss's duality gap.
Expected values are numbers from ``expected.json``."""
import numpy as np

from .base import _checker_doc, _compare_vectors, _run_cases, _student

PART = "vr"


# ----------------------------------------------------------------- SAGA's catch-up
def _catch_up_cases():
    rng = np.random.default_rng(0)
    cases = [("a few steps that keep the sign", (1.0, 0.1, 0.5, 0.2, 3)),
             ("shrinks to 0 and stays (c = 0)", (1.0, 0.0, 0.5, 0.2, 100)),
             ("at 0 with |c| <= sigma: stays", (0.0, 0.05, 0.5, 0.2, 10)),
             ("|c| > sigma: crosses 0", (1.0, 1.0, 0.5, 0.2, 6)),
             ("negative u, drifting further down", (-2.0, -3.0, 0.1, 1.0, 50)),
             ("positive u, drifting up (c < -sigma)", (1.0, -1.0, 0.5, 0.2, 10)),
             ("no prox (sigma = 0)", (0.3, 0.0, 0.1, 0.0, 7)),
             ("k = 0", (5.0, 2.0, 1.0, 0.5, 0)),
             ("huge u = 1e300", (1e300, 1e-3, 1.0, 1e-3, 5)),
             ("tiny u = 1e-300", (1e-300, -1e-300, 1.0, 1e-301, 9)),
             ("a thousand steps from 0", (0.0, 1e3, 1e-3, 1.0, 1000))]
    for j in range(20):
        cases.append((f"random {j}", (float(rng.normal() * 3), float(rng.normal()),
                                      float(rng.random()), float(rng.random()),
                                      int(rng.integers(0, 40)))))
    return cases


def _catch_up_compare(got, expected, desc, args, rtol=1e-12):
    """To ``rtol`` relative, plus ``rtol`` times the largest magnitude the k steps involve
    (|u| and k eta (|c| + sigma)): a long walk may cancel to a small value."""
    u, c, eta, sigma, k = args
    scale = max(abs(u), k * eta * (abs(c) + sigma))
    _compare_vectors("catch_up", got, float(expected), rtol, desc, atol=rtol * scale)


@_checker_doc("catch_up", "(u, c, eta, sigma, k) -> float")
def check_saga_catch_up(catch_up):
    """Exercise "SAGA's lazy l1 catch-up" (Variance reduction, ex-vr-lazy).

    ``catch_up(u, c, eta, sigma, k)`` returns the value after k SAGA steps on a coordinate
    that no row touches, u <- S_{eta sigma}(u - eta c) (S: soft thresholding). Checked to a
    relative 1e-12, plus 1e-12 of the largest magnitude the steps involve.

    Examples
    --------
    >>> from rlmlib.book.checkers.vr import check_saga_catch_up
    >>> try:
    ...     check_saga_catch_up(lambda u, c, eta, sigma, k: u - k * eta * c)   # no shrink
    ... except AssertionError as e:
    ...     print(str(e).split(" (u=")[0])
    catch_up on input 'a few steps that keep the sign'
    """
    _student("catch_up", catch_up)
    n = _run_cases("catch_up", PART, catch_up, _catch_up_cases(),
                   ("u", "c", "eta", "sigma", "k"), _catch_up_compare)
    return f"catch_up passed all {n} inputs (relative error 1e-12)."


# ------------------------------------------------------ SDCA's squared-hinge step
def _sqhinge_cases():
    return [("at 0, margin 0, q = 1", (0.0, 0.0, 1.0)),
            ("margin above 1: beta shrinks", (0.5, 2.0, 0.5)),
            ("a negative margin", (0.2, -3.0, 2.0)),
            ("a large beta, small q", (3.0, 0.5, 0.1)),
            ("margin 1, tiny q", (0.0, 1.0, 1e-12)),
            ("beta, margin and q of size 1e3", (1e3, -1e3, 1e3)),
            ("projected to 0", (0.0, 5.0, 1e-3)),
            ("q = 0 (a zero row)", (2.0, 1.0, 0.0)),
            ("q = 1e6", (0.7, 0.3, 1e6)),
            ("beta = 1e-300", (1e-300, 1.0, 1.0)),
            ("q = 1e-8", (4.0, -1.0, 1e-8)),
            ("margin 1e3", (0.1, 1e3, 1.0)),
            ("q = 1e308 (beta q overflows)", (3.0, 0.5, 1e308))]


def _sqhinge_compare(got, expected, desc, args, rtol=1e-12):
    beta = args[0]
    _compare_vectors("sqhinge_step", got, float(expected), rtol, desc,
                     atol=rtol * max(1.0, abs(beta)))


@_checker_doc("sqhinge_step", "(beta, yz, q) -> float")
def check_sdca_squared_hinge(sqhinge_step):
    """Exercise "SDCA's squared-hinge step" (Variance reduction, ex-vr-sqhinge).

    ``sqhinge_step(beta, yz, q)`` returns SDCA's new dual variable beta for the squared
    hinge loss: the maximizer over b >= 0 of b - b^2/2 - yz (b - beta) - q (b - beta)^2/2.
    Checked to 1e-12 (relative, and absolute times max(1, |beta|)), q = 0 and q = 1e308
    included.

    Examples
    --------
    >>> from rlmlib.book.checkers.vr import check_sdca_squared_hinge
    >>> try:
    ...     check_sdca_squared_hinge(lambda beta, yz, q: 0.0)
    ... except AssertionError as e:
    ...     print(str(e).split(" (beta=")[0])
    sqhinge_step on input 'at 0, margin 0, q = 1'
    """
    _student("sqhinge_step", sqhinge_step)
    n = _run_cases("sqhinge_step", PART, sqhinge_step, _sqhinge_cases(),
                   ("beta", "yz", "q"), _sqhinge_compare)
    return f"sqhinge_step passed all {n} inputs (error 1e-12)."


# ------------------------------------------------------------- the duality gap
def _gap_cases():
    rng = np.random.default_rng(1)
    cases = []
    for m, n, sigma in [(5, 3, 1.0), (40, 6, 1e-2), (30, 4, 1e-6), (8, 2, 1e3)]:
        X = rng.standard_normal((m, n))
        y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
        cases.append((f"{m} x {n} gaussian, sigma = {sigma:g}",
                      (X, y, y * rng.random(m), sigma)))
    cases.append(("X = 0, alpha = 0", (np.zeros((4, 3)), np.array([1.0, -1, 1, -1]),
                                       np.zeros(4), 0.5)))
    X = rng.standard_normal((3, 5))
    cases.append(("more features than examples (3 x 5)", (X, np.array([1.0, 1.0, -1.0]),
                                                          np.array([1.0, 0.5, -1.0]), 0.1)))
    return cases


def _gap_compare(got, expected, desc, args, rtol=1e-10):
    _compare_vectors("gap", got, float(expected), rtol, desc, atol=1e-12)


@_checker_doc("gap", "(X, y, alpha, sigma) -> float")
def check_duality_gap(gap):
    """Exercise "the duality gap" (Variance reduction, ex-vr-gap).

    ``gap(X, y, alpha, sigma)`` returns the duality gap P(w(alpha)) - D(alpha) of the hinge
    loss with w(alpha) = sum_i alpha_i x_i / (sigma m) and y_i alpha_i in [0, 1]. Checked
    to a relative 1e-10 (absolute 1e-12), X, y and alpha left unmodified.

    Examples
    --------
    >>> from rlmlib.book.checkers.vr import check_duality_gap
    >>> try:
    ...     check_duality_gap(lambda X, y, alpha, sigma: 0.0)
    ... except AssertionError as e:
    ...     print(str(e).split(" (X=")[0])
    gap on input '5 x 3 gaussian, sigma = 1'
    """
    _student("gap", gap)
    n = _run_cases("gap", PART, gap, _gap_cases(), ("X", "y", "alpha", "sigma"),
                   _gap_compare)
    return f"gap passed all {n} inputs (relative error 1e-10)."


CASES = {"catch_up": _catch_up_cases, "sqhinge_step": _sqhinge_cases, "gap": _gap_cases}
