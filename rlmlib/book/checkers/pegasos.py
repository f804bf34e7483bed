"""Checkers of the Pegasos and PGS part (and Foundations) (DESIGN.md, "Exercise checkers").

``check_<exercise>(student_function)`` runs the reader's function on chosen inputs and raises
``AssertionError`` naming the input, the coordinate and the size of the error; it returns a
short success message otherwise. Each chapter appends its checkers below its own heading.
"""
import math

import numpy as np

from .base import _as_real, _call, _compare_vectors, _describe, _student


# ------------------------------------------------------------------ chapter: Pegasos and PGS
def _grad_conjugate_cases():
    rng = np.random.default_rng(2009)
    return [
        ("p=2 (the identity)", rng.standard_normal(6), 2.0),
        ("p=1.8", rng.standard_normal(8), 1.8),
        ("p=1.5, with zeros", np.array([0.0, 1.5, -2.0, 0.0, 0.25]), 1.5),
        ("p=1.25, a single coordinate", np.array([-3.0]), 1.25),
        ("p=1.3, |theta_i| about 1e-200", rng.standard_normal(5) * 1e-200, 1.3),
        ("p=1.01, mixed magnitudes up to 1e300",
         np.array([1e300, -3e299, 2.5, 0.0, -1e-5, 7e150]), 1.01),
        ("p=1.05, |theta_i| about 1e30", rng.standard_normal(6) * 1e30, 1.05),
        ("p=1.5, theta = 0 (grad r*(0) = 0)", np.zeros(4), 1.5),
        ("p=1.1, |theta_i| about 1e-150 (|theta_i|^q underflows)",
         np.array([3e-150, -1e-150, 2e-151]), 1.1),
    ]


def check_grad_conjugate(grad_conjugate):
    """Exercise "implement the mirror map": ``grad_conjugate(theta, p)`` must return
    grad r*(theta)_i = ||theta||_q^(2-q) |theta_i|^(q-1) sgn(theta_i) / (q-1), q = p/(p-1),
    to relative accuracy 1e-9 on every coordinate, also for p = 1.01, |theta_i| = 1e300 and
    theta = 0.

    Parameters
    ----------
    grad_conjugate : callable(theta, p) -> ndarray
        The reader's function.

    Returns
    -------
    str
        A one-line message when every input passes.

    Raises
    ------
    AssertionError
        Naming the first input that fails, the coordinate (or "the value"), the error and its
        likely cause (overflow, underflow, an exception raised by the reader's code).

    Examples
    --------
    >>> from rlmlib.book.checkers import pegasos as checkers
    >>> from rlmlib import pnorm
    >>> print(checkers.check_grad_conjugate(pnorm.grad_conjugate))  # doctest: +ELLIPSIS
    grad_conjugate passed all ...
    """
    _student("grad_conjugate", grad_conjugate)
    from ...core.pnorm import grad_conjugate as reference

    for case, theta, p in _grad_conjugate_cases():
        label = f"'{case}': theta={_describe(theta)}, p={p}"
        got = _call("grad_conjugate", label, grad_conjugate, theta.copy(), p)
        _compare_vectors("grad_conjugate", got, reference(theta, p), 1e-9, label)
    return (f"grad_conjugate passed all {len(_grad_conjugate_cases())} inputs "
            "(relative error < 1e-9, p from 1.01 to 2).")


def _ball_conjugate_cases():
    rng = np.random.default_rng(7)
    return [
        ("p=2, inside the ball", rng.standard_normal(5) * 0.1, 2.0, 3.0),
        ("p=2, outside the ball", rng.standard_normal(5) * 4.0, 2.0, 0.5),
        ("p=1.8, inside", rng.standard_normal(6) * 0.3, 1.8, 2.0),
        ("p=1.8, outside", rng.standard_normal(6) * 3.0, 1.8, 0.7),
        # (p-1)||theta||_q is below B although ||theta||_q is above it
        ("p=1.5, ||theta||_q > B >= (p-1)||theta||_q", np.array([1.6, -0.4, 0.3]), 1.5, 1.2),
        ("p=1.2, outside", rng.standard_normal(4) * 5.0, 1.2, 0.2),
        ("p=1.05, inside", rng.standard_normal(4) * 0.5, 1.05, 1.0),
        ("p=1.5, theta = 0", np.zeros(3), 1.5, 1.0),
        ("p=1.5, |theta_i| about 1e200 (|theta_i|^q overflows), outside",
         np.array([1e200, -3e199, 5e199]), 1.5, 2.0),
        ("p=1.5, |theta_i| about 1e200, inside a ball of radius 1e201",
         np.array([1e100, -3e99, 5e99]), 1.5, 1e201),
        ("p=1.3, |theta_i| about 1e-120 (|theta_i|^q underflows), inside",
         np.array([2e-120, -1e-120]), 1.3, 1.0),
    ]


def check_ball_conjugate(r_conjugate_ball):
    """Exercise "the conjugate on the ball": ``r_conjugate_ball(theta, p, B)`` must return
    sup over ||w||_p <= B of <w, theta> - ||w||_p^2 / (2(p-1)), a number, to relative accuracy
    1e-9, also for theta = 0 and |theta_i| = 1e200.

    Parameters
    ----------
    r_conjugate_ball : callable(theta, p, B) -> float
        The reader's function.

    Returns
    -------
    str
        A one-line message when every input passes.

    Raises
    ------
    AssertionError
        Naming the first input that fails, the coordinate (or "the value"), the error and its
        likely cause (overflow, underflow, an exception raised by the reader's code).

    Examples
    --------
    >>> from rlmlib.book.checkers import pegasos as checkers
    >>> from rlmlib import pnorm
    >>> ball = lambda th, p, B: pnorm.r_conjugate(th, p, radius=B)
    >>> print(checkers.check_ball_conjugate(ball))  # doctest: +ELLIPSIS
    r_conjugate_ball passed all ...
    """
    _student("r_conjugate_ball", r_conjugate_ball)
    from ...core.pnorm import r_conjugate

    for case, theta, p, B in _ball_conjugate_cases():
        label = f"'{case}': theta={_describe(theta)}, p={p}, B={B}"
        got = _call("r_conjugate_ball", label, r_conjugate_ball, theta.copy(), p, B)
        _compare_vectors("r_conjugate_ball", got, float(r_conjugate(theta, p, radius=B)),
                         1e-9, label)
    return (f"r_conjugate_ball passed all {len(_ball_conjugate_cases())} inputs, inside and "
            "outside the ball.")


def pgs_time_model(k, n, d, a, b):
    """Modelled time to accuracy of PGS with batch size k: (a + b/k) * (d k + n).

    Steps to reach the target scale like a + b/k (b: the variance a batch of k divides by k;
    a: what batching does not reduce); one step of the paper's implementation costs d k + n
    (k examples with d non-zeros each, plus the mirror map over n coordinates).

    Parameters
    ----------
    k : int or ndarray
        Batch size(s).
    n, d, a, b : float
        Features, non-zeros per example, and the two constants of the step count.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> from rlmlib.book.checkers.pegasos import pgs_time_model
    >>> pgs_time_model(2, n=100, d=10, a=1.0, b=4.0)
    360.0
    """
    return (a + b / k) * (d * k + n)


def _best_k_cases():
    return [
        ("RCV1: n=47236, d=76, a=1, b=100", 47236, 76.0, 1.0, 100.0),
        ("n=1000, d=10, a=1, b=0.085 (optimum between 2 and 3)", 1000, 10.0, 1.0, 0.085),
        ("n=20, d=20, a=1, b=0.5 (k=1 is best)", 20, 20.0, 1.0, 0.5),
        ("dense: n=500, d=500, a=0.5, b=400", 500, 500.0, 0.5, 400.0),
        ("n=10^6, d=50, a=2, b=10", 1_000_000, 50.0, 2.0, 10.0),
        # k* = sqrt(6.1) = 2.47 lies between sqrt(2*3) = 2.449 and 2.5: round(k*) = 2, but
        # k = 3 is better (f(j) <= f(j+1) iff k*^2 <= j (j+1))
        ("n=61, d=10, a=b=1 (k* = 2.47; round(k*) is wrong)", 61, 10.0, 1.0, 1.0),
        ("n=1e9, d=1, a=1, b=1e-2 (k* about 3162)", 10**9, 1.0, 1.0, 1e-2),
        ("n=10, d=1000, a=1e3, b=1e-3 (k* far below 1)", 10, 1000.0, 1e3, 1e-3),
        ("n=2, d=1, a=1, b=1 (k*^2 = 2 = 1*2: k = 1 and k = 2 tie)", 2, 1.0, 1.0, 1.0),
    ]


def check_best_k(best_k):
    """Exercise "the best batch size at p < 2": ``best_k(n, d, a, b)`` must return the integer
    k >= 1 that minimizes :func:`pgs_time_model` (any minimizer, if two tie).

    Parameters
    ----------
    best_k : callable(n, d, a, b) -> int
        The reader's function.

    Returns
    -------
    str
        A one-line message when every input passes.

    Raises
    ------
    AssertionError
        Naming the first input that fails, the coordinate (or "the value"), the error and its
        likely cause (overflow, underflow, an exception raised by the reader's code).

    Examples
    --------
    >>> from rlmlib.book.checkers import pegasos as checkers
    >>> def best_k(n, d, a, b):
    ...     return min(range(1, 4000), key=lambda k: checkers.pgs_time_model(k, n, d, a, b))
    >>> print(checkers.check_best_k(best_k))  # doctest: +ELLIPSIS
    best_k passed all ...
    """
    _student("best_k", best_k)
    for case, n, d, a, b in _best_k_cases():
        got = _call("best_k", case, best_k, n, d, a, b)
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer)):
            raise AssertionError(f"best_k on input {case}: expected an integer k >= 1, got "
                                 f"{got!r} of type {type(got).__name__}")
        got = int(got)
        if got < 1:
            raise AssertionError(f"best_k on input {case}: k must be >= 1, got {got}")
        kc = math.sqrt(b * n / (a * d))
        cands = {max(1, math.floor(kc)), max(1, math.ceil(kc))}
        best = min(cands, key=lambda k: pgs_time_model(k, n, d, a, b))
        t_got = pgs_time_model(got, n, d, a, b)
        t_best = pgs_time_model(best, n, d, a, b)
        if t_got > t_best * (1 + 1e-12):
            raise AssertionError(
                f"best_k on input {case}: returned k={got} with modelled time {t_got:.6g}, but "
                f"k={best} gives {t_best:.6g} (excess {t_got / t_best - 1:.3g} relative)")
    return f"best_k passed all {len(_best_k_cases())} inputs."


# ------------------------------------------------------------------ chapter: Foundations
def _scaled_step_cases():
    rng = np.random.default_rng(2010)
    x_sparse = np.zeros(8)
    x_sparse[[1, 4, 6]] = rng.standard_normal(3)
    return [
        # (case, s, v, x, y, t, sigma, t0)
        ("a first step from w = 0", 1.0, np.zeros(5), rng.standard_normal(5), 1.0, 0, 0.1, 10.0),
        ("a generic step", 0.37, rng.standard_normal(6), rng.standard_normal(6), -1.0, 41, 0.01,
         100.0),
        ("a sparse x (only 3 non-zeros)", 0.8, rng.standard_normal(8), x_sparse, 1.0, 7, 0.05,
         20.0),
        ("a large margin (loss' about 1e-9)", 2.0, np.ones(4), np.full(4, 2.6), 1.0, 3, 0.1,
         50.0),
        ("a tiny scale s = 1e-7 (w = s v is moderate)", 1e-7, rng.standard_normal(5) * 1e7,
         rng.standard_normal(5), -1.0, 1000, 1e-3, 10.0),
        ("1 - eta*sigma = 0 (t + t0 = 1): w must become -eta*loss'*x", 0.5,
         rng.standard_normal(5), rng.standard_normal(5), 1.0, 0, 0.2, 1.0),
        # margins y <w, x> = -1400 and +1400: exp(1400) overflows in a naive derivative
        ("margin y<w,x> = -1400 (loss' = -y to rounding)", 1.0, np.full(4, 350.0),
         np.ones(4), -1.0, 5, 0.1, 10.0),
        ("margin y<w,x> = +1400 (loss' about 0)", 1.0, np.full(4, 350.0), np.ones(4), 1.0, 5,
         0.1, 10.0),
        ("margin -1e3 on a sparse x with s = 1e-3", 1e-3, np.full(6, 5e5),
         np.array([0.0, 1.0, 0.0, 0.0, 1.0, 0.0]), -1.0, 2, 0.5, 3.0),
    ]


def check_scaled_step(scaled_step):
    """Exercise "one SGD step in scaled form" (Foundations): ``scaled_step(s, v, x, y, t,
    sigma, t0)`` performs one step of plain SGD on the logistic loss,
    w+ = (1 - eta sigma) w - eta loss'(<w, x>; y) x with eta = 1/(sigma (t + t0)) and w = s v,
    and
    returns (s+, v+) with s+ v+ = w+. It must not touch the coordinates of v where x is 0
    (the O(nnz) update) unless it folds the scale into v, and stay finite when
    1 - eta sigma = 0 and at margins of +-1400.

    Parameters
    ----------
    scaled_step : callable(s, v, x, y, t, sigma, t0) -> (float, ndarray)
        The reader's function.

    Returns
    -------
    str
        A one-line message when every input passes.

    Raises
    ------
    AssertionError
        Naming the first input that fails and what is wrong (the value of s v, the scale,
        a coordinate of v changed off the support of x, an exception raised).

    Examples
    --------
    >>> from rlmlib.book.checkers import pegasos as checkers
    >>> try:
    ...     checkers.check_scaled_step(lambda s, v, x, y, t, sigma, t0: (s, v))
    ... except AssertionError as e:
    ...     print(str(e).split(" (s=")[0])
    scaled_step: s*v on input 'a first step from w = 0'
    """
    _student("scaled_step", scaled_step)
    from ...core.losses import LOGISTIC, loss_deriv

    cases = _scaled_step_cases()
    for case, s, v, x, y, t, sigma, t0 in cases:
        label = f"'{case}' (s={s:g}, t={t}, sigma={sigma:g}, t0={t0:g}, x={_describe(x)})"
        w = s * v
        eta = 1.0 / (sigma * (t + t0))
        expected = (1.0 - eta * sigma) * w - eta * loss_deriv(LOGISTIC, float(w @ x), y) * x
        v_in = v.copy()
        out = _call("scaled_step", label, scaled_step, s, v_in, x.copy(), y, t, sigma, t0)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise AssertionError(f"scaled_step on input {label}: expected a pair (s, v), got "
                                 f"{type(out).__name__}")
        s_new, v_new = out
        try:
            s_new = float(_as_real("scaled_step: s", s_new, label).reshape(-1)[0])
        except (TypeError, ValueError) as e:
            raise AssertionError(f"scaled_step on input {label}: s must be a number, got "
                                 f"{s_new!r}") from e
        if not math.isfinite(s_new) or s_new == 0.0:
            raise AssertionError(f"scaled_step on input {label}: the new scale s is {s_new}; "
                                 "it must be finite and non-zero (fold it into v when "
                                 "1 - eta*sigma is 0 or s gets tiny)")
        v_new = _as_real("scaled_step: v", v_new, label)
        _compare_vectors("scaled_step: s*v", s_new * v_new, expected, 1e-10, label)
        # the O(nnz) property: the shrink goes into s alone and v changes only where x is
        # non-zero, except when the new scale is tiny and may be folded into v
        s_shrunk = (1.0 - eta * sigma) * s
        if abs(s_shrunk) < 1e-9:
            continue
        if not math.isclose(s_new, s_shrunk, rel_tol=1e-12):
            raise AssertionError(
                f"scaled_step on input {label}: the new scale is {s_new:.17g}, expected "
                f"(1 - eta*sigma)*s = {s_shrunk:.17g}: the shrink of w must go into s (O(1))")
        zero = x == 0
        if np.any(v_new[zero] != v[zero]):
            i = int(np.flatnonzero(zero & (v_new != v))[0])
            raise AssertionError(
                f"scaled_step on input {label}: coordinate {i} of v changed from {v[i]:.17g} "
                f"to {v_new[i]:.17g} although x[{i}] = 0: the shrink must go into s alone "
                "(O(1)), not into v")
    return (f"scaled_step passed all {len(cases)} inputs (s*v is the SGD step to 1e-10, "
            "v kept off x's support).")
