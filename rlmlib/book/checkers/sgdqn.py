"""Checkers for the exercises of the part "SGD, SVMSGD2 and SGD-QN" (DESIGN.md, "Exercise
checkers"): each ``check_<exercise>(student_function)`` runs the reader's function on chosen
inputs (extreme ones included) and raises ``AssertionError`` naming the input and the error;
it returns a short success message otherwise.
"""
import math

import numpy as np

from .base import _call, _checker_doc, _compare_vectors


def _dloss(z, y):
    """Derivative of the squared hinge 0.5 max(0, 1 - y z)^2 with respect to z."""
    return -y * max(0.0, 1.0 - y * z)


# ------------------------------------------------------------ scheduled regularization step
def scheduled_step(w, x, y, t, t0, sigma, skip, count):
    """Reference: one SVMSGD2 step (margin first; regularization on w_t when the countdown
    reaches 0; then the loss step).

    Parameters
    ----------
    w, x : numpy.ndarray, shape (n,)
        Weights and example.
    y : float
        Label -1/+1 (squared hinge loss).
    t : int
        Step counter.
    t0, sigma : float
        Schedule offset and regularization weight σ.
    skip : int >= 1
        Regularize every ``skip`` steps.
    count : int
        The countdown before this step.

    Returns
    -------
    (numpy.ndarray, int)
        The new w and countdown.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.sgdqn import scheduled_step
    >>> w, count = scheduled_step(np.ones(2), np.zeros(2), 1.0, 0, 10.0, 0.1, 2, 1)
    >>> w.tolist(), count                    # regularized: w (1 - 2/10)
    ([0.8, 0.8], 2)
    """
    z = float(x @ w)
    w = np.array(w, dtype=np.float64)
    count -= 1
    if count <= 0:
        w = w * (1.0 - skip / (t + t0))
        count = skip
    w = w - _dloss(z, y) / (sigma * (t + t0)) * np.asarray(x, dtype=np.float64)
    return w, count


def _step_cases():
    rng = np.random.default_rng(11)
    n = 5
    return [
        ("a random step, count 3 -> 2", rng.standard_normal(n), rng.standard_normal(n), 1.0,
         7, 100.0, 0.01, 4, 3),
        ("the countdown reaches 0 (regularization due)", rng.standard_normal(n),
         rng.standard_normal(n), -1.0, 7, 100.0, 0.01, 4, 1),
        ("skip = 1 (plain SGD)", rng.standard_normal(n), rng.standard_normal(n), 1.0, 0, 50.0,
         0.1, 1, 1),
        ("margin +1e3 (no loss step)", np.full(n, 10.0), np.full(n, 20.0), 1.0, 3, 1e4,
         0.001, 16, 1),
        ("margin -1e3 (a long loss step)", np.full(n, 10.0), np.full(n, 20.0), -1.0, 3, 1e4,
         0.001, 16, 5),
        ("x = 0 (only the regularization)", rng.standard_normal(n), np.zeros(n), 1.0, 10,
         20.0, 0.5, 2, 1),
        ("w = 0 at the first step", np.zeros(n), rng.standard_normal(n), -1.0, 0, 1e5, 1e-4,
         9965, 9965),
        ("large skip, regularization due", rng.standard_normal(n), rng.standard_normal(n), 1.0,
         20000, 1e5, 1e-4, 9965, 1),
    ]


@_checker_doc("student", "(w, x, y, t, t0, sigma, skip, count) -> (ndarray, int)",
              "case")
def check_scheduled_step(student):
    """Exercise "the scheduled regularization step": ``student(w, x, y, t, t0, sigma, skip,
    count)`` must return ``(w_new, count_new)`` of one SVMSGD2 step as the chapter writes it.
    Typical mistakes detected: the gain 1/(t + t0) instead of skip/(t + t0); the
    regularization at every step; the margin computed after the regularization; the loss
    step before the regularization (the paper's Fig. 1 order, a different iteration).

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import check_scheduled_step, scheduled_step
    >>> check_scheduled_step(scheduled_step)
    'check_scheduled_step: all 8 cases agree (relative error <= 1e-12)'
    >>> def every_step(w, x, y, t, t0, sigma, skip, count):   # skip forgotten
    ...     return scheduled_step(w, x, y, t, t0, sigma, 1, 1)
    >>> try:
    ...     check_scheduled_step(every_step)
    ... except AssertionError as e:
    ...     print(str(e).split(":")[0])
    scheduled step on input 'a random step, count 3 -> 2'
    """
    for case, w, x, y, t, t0, sigma, skip, count in _step_cases():
        exp_w, exp_c = scheduled_step(w, x, y, t, t0, sigma, skip, count)
        out = _call("scheduled step", f"'{case}'", student, w.copy(), x.copy(), y, t, t0,
                    sigma, skip, count)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise AssertionError(f"scheduled step on input '{case}': expected a pair "
                                 f"(w_new, count_new), got {type(out).__name__}")
        got_w, got_c = out
        if int(got_c) != exp_c:
            raise AssertionError(f"scheduled step on input '{case}': count should become "
                                 f"{exp_c}, got {got_c} (the countdown restarts at skip when "
                                 "it reaches 0)")
        _compare_vectors("scheduled step", got_w, exp_w, 1e-12, f"'{case}'")
    return "check_scheduled_step: all 8 cases agree (relative error <= 1e-12)"


# ------------------------------------------------------------------------ skip from the cost
def skip_from_cost(n, d, c):
    """Reference: the smallest integer skip >= 1 whose amortized dense regularization cost
    n / skip is at most the fraction 1/c of the sparse loss cost d: ceil(c n / d).

    Parameters
    ----------
    n : int
        Number of features (cost of a dense regularization step).
    d : float
        Non-zeros per example (cost of a sparse loss step).
    c : float
        The regularization may cost 1/c of the loss steps.

    Returns
    -------
    int
        skip >= 1.

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import skip_from_cost
    >>> skip_from_cost(47_236, 76, 16), skip_from_cost(10, 10, 0.5)
    (9945, 1)
    """
    q = c * n / d
    k = round(q)
    if abs(q - k) <= 1e-12 * q:  # c n / d is an integer up to rounding
        return max(1, int(k))
    return max(1, math.ceil(q))


@_checker_doc("student", "(n, d, c) -> int", "case")
def check_skip_from_cost(student):
    """Exercise "skip from the cost model": ``student(n, d, c)`` must return the smallest
    integer skip >= 1 with n / skip <= d / c.

    Examples
    --------
    >>> import math
    >>> from rlmlib.book.checkers.sgdqn import check_skip_from_cost
    >>> check_skip_from_cost(lambda n, d, c: max(1, math.ceil(c * n / d)))
    'check_skip_from_cost: all 10 cases agree'
    >>> try:
    ...     check_skip_from_cost(lambda n, d, c: int(c * n / d) + 1)
    ... except AssertionError as e:
    ...     print(str(e).split(" (")[0])
    skip for n=500, d=500, c=16: expected 16, got 17
    """
    cases = [(500, 500, 16), (47_152, 75.4, 16), (47_236, 76, 16), (10, 10, 1),
             (10, 10, 0.5), (1, 1, 16), (10 ** 9, 1, 16), (48_407, 2420, 16),
             (3, 2, 1), (100, 3, 3)]
    for n, d, c in cases:
        exp = skip_from_cost(n, d, c)
        got = _call("skip", f"n={n}, d={d}, c={c}", student, n, d, c)
        if isinstance(got, bool) or not isinstance(got, (int, np.integer)):
            raise AssertionError(f"skip for n={n}, d={d}, c={c}: expected an integer, got "
                                 f"{got!r}")
        if got != exp:
            hint = ("too small: n/skip exceeds d/c" if got < exp else
                    "not the smallest such skip (rounded up twice, or truncated c n/d + 1?)")
            raise AssertionError(f"skip for n={n}, d={d}, c={c}: expected {exp}, got {got} "
                                 f"({hint})")
    return f"check_skip_from_cost: all {len(cases)} cases agree"


# ------------------------------------------------------------------- the 2009 secant ratio
def secant_ratio(dw, dd, x, sigma):
    """Reference: the 2009 ratio [w_{t+1} - w_t]_i / [g_t(w_{t+1}) - g_t(w_t)]_i with
    g_t(w) = sigma w + loss'(<w, x>) x, i.e. dw_i / (sigma dw_i + dd x_i), and its limit
    1/sigma where dw_i = 0 (x_i = 0, or no loss step).

    Parameters
    ----------
    dw : array-like, shape (n,)
        w_{t+1} − w_t.
    dd : float
        loss'(⟨w_{t+1}, x⟩) − loss'(⟨w_t, x⟩).
    x : array-like, shape (n,)
        The example.
    sigma : float > 0
        Regularization weight σ.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The ratios.

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import secant_ratio
    >>> secant_ratio([0.0, 0.5], 1.0, [0.0, 1.0], 0.5).tolist()   # 1/σ; 0.5/(0.25 + 1)
    [2.0, 0.4]
    """
    dw = np.asarray(dw, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    out = np.full(dw.shape, 1.0 / sigma)
    nz = dw != 0
    # dw/(sigma dw + dd x) = 1/(sigma + dd (x/dw)); the second form does not underflow
    out[nz] = 1.0 / (sigma + dd * (x[nz] / dw[nz]))
    return out


@_checker_doc("student", "(dw, dd, x, sigma) -> ndarray", "case")
def check_secant_ratio(student):
    """Exercise "the secant ratio and its limit": ``student(dw, dd, x, sigma)`` must return
    the vector of ratios, 1/sigma where dw_i = 0. Detected: 0/0 (NaN) left in place, the
    inverse ratio (a curvature instead of its inverse), sigma forgotten in the denominator,
    underflow when dw_i and x_i are tiny (the ratio is still well defined).

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.sgdqn import check_secant_ratio, secant_ratio
    >>> check_secant_ratio(secant_ratio)
    'check_secant_ratio: all 6 cases agree'
    >>> def naive(dw, dd, x, sigma):              # 0/0 left as NaN where dw = 0
    ...     with np.errstate(all="ignore"):
    ...         return dw / (sigma * dw + dd * x)
    >>> try:
    ...     check_secant_ratio(naive)
    ... except AssertionError:
    ...     print("fails")
    fails
    """
    cases = [
        ("dense step", np.array([0.1, -0.2, 0.05]), 0.3, np.array([0.5, -1.0, 0.25]), 0.01),
        ("sparse x: zeros in dw and x", np.array([0.0, -0.02, 0.0, 0.01]), 0.7,
         np.array([0.0, 1.0, 0.0, -0.5]), 1e-3),
        ("no loss step: dw = 0 everywhere", np.zeros(4), 0.0, np.array([1.0, 2, 0, 3]), 0.1),
        ("tiny dw and x (sigma dw and dd x are subnormal)", np.array([3e-310, -1e-310]),
         1e-4, np.array([1e-310, -2e-310]), 1e-4),
        ("huge dd", np.array([1e-3, 2e-3]), 1e8, np.array([1.0, 1.0]), 1e-5),
        ("dd = 0 (flat loss between the two points)", np.array([0.3, -0.1]), 0.0,
         np.array([1.0, -2.0]), 0.2),
    ]
    for case, dw, dd, x, sigma in cases:
        got = _call("secant ratio", f"'{case}'", student, dw.copy(), dd, x.copy(), sigma)
        _compare_vectors("secant ratio", got, secant_ratio(dw, dd, x, sigma), 1e-12,
                         f"'{case}'")
    return f"check_secant_ratio: all {len(cases)} cases agree"


# ------------------------------------------------------------------ the corrected B update
def corrected_update(B, w1, w, x, dd, dt, sigma):
    """Reference: the corrected diagonal update. Curvature estimates
    r_i = clip(sigma + dd x_i / (w1_i - w_i), sigma, 100 sigma), sigma where x_i = 0,
    100 sigma where w1_i = w_i but x_i != 0; then B_i <- 1/(1/B_i + dt r_i). dd is
    loss'(<w1, x>) - loss'(<w, x>).

    Parameters
    ----------
    B : array-like, shape (n,)
        The diagonal before the update.
    w1, w : array-like, shape (n,)
        The two points of the secant.
    x : array-like, shape (n,)
        The example.
    dd : float
        loss'(⟨w1, x⟩) − loss'(⟨w, x⟩).
    dt : float
        Steps since the last update.
    sigma : float > 0
        Regularization weight σ.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The new B.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.sgdqn import corrected_update
    >>> corrected_update(np.ones(2), np.zeros(2), np.zeros(2), np.zeros(2), 0.0, 1, 1.0)
    array([0.5, 0.5])
    """
    B, w1, w, x = (np.asarray(a, dtype=np.float64) for a in (B, w1, w, x))
    diffw = w1 - w
    r = np.full(B.shape, sigma)
    on = x != 0
    zero = on & (diffw == 0)
    ok = on & (diffw != 0)
    r[zero] = 100.0 * sigma
    r[ok] = np.clip(sigma + dd * x[ok] / diffw[ok], sigma, 100.0 * sigma)
    return 1.0 / (1.0 / B + dt * r)


@_checker_doc("student", "(B, w1, w, x, dd, dt, sigma) -> ndarray", "case")
def check_corrected_update(student):
    """Exercise "the corrected diagonal update": ``student(B, w1, w, x, dd, dt, sigma)`` must
    return the new B. Detected: the ratio inverted (an average of inverse curvatures, the
    2009 flaw), the clipping missing or on the wrong side, dt forgotten, x_i = 0
    coordinates left unchanged (they must still receive the curvature sigma).

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import check_corrected_update, corrected_update
    >>> check_corrected_update(corrected_update)
    'check_corrected_update: all 7 cases agree'
    """
    rng = np.random.default_rng(5)
    s = 1e-4
    B0 = np.full(6, 1.0 / (s * 1e5))
    cases = [
        ("a dense secant", B0, rng.standard_normal(6), rng.standard_normal(6),
         rng.standard_normal(6), 0.4, 17, s),
        ("sparse x", B0, rng.standard_normal(6), rng.standard_normal(6),
         np.array([0.0, 0.3, 0.0, 0.0, -0.7, 0.0]), 0.2, 9966, s),
        ("clipped above (tiny w1 - w)", B0, np.full(6, 1.0), np.full(6, 1.0 - 1e-12),
         np.ones(6), 1.0, 5, s),
        ("clipped below (negative estimate)", B0, np.zeros(6), np.full(6, 1e-3),
         np.ones(6), 0.5, 5, s),
        ("w1 = w on a non-zero x_i", B0, np.zeros(6), np.zeros(6), np.ones(6), 0.1, 3, s),
        ("x = 0: curvature sigma everywhere", np.geomspace(1, 1e6, 6), np.ones(6),
         np.zeros(6), np.zeros(6), 0.3, 1000, 1e-2),
        ("huge dt", np.full(6, 1e3), rng.standard_normal(6), rng.standard_normal(6),
         rng.standard_normal(6), 0.01, 10 ** 12, 1e-6),
    ]
    for case, B, w1, w, x, dd, dt, sigma in cases:
        got = _call("corrected update", f"'{case}'", student, B.copy(), w1.copy(), w.copy(),
                    x.copy(), dd, dt, sigma)
        _compare_vectors("corrected update", got,
                         corrected_update(B, w1, w, x, dd, dt, sigma), 1e-12, f"'{case}'")
    return f"check_corrected_update: all {len(cases)} cases agree"


# -------------------------------------------------------------- Theorem 1: the rate exponent
def rate_exponent(c):
    """Reference: with B = c H^-1 (all eigenvalues of HB equal to c), the excess cost after t
    steps decays like t^-min(1, 2c) (t^-1 log t at c = 1/2).

    Parameters
    ----------
    c : float > 0
        The common eigenvalue of HB.

    Returns
    -------
    float
        The exponent min(1, 2c).

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import rate_exponent
    >>> rate_exponent(0.25), rate_exponent(3.0)
    (0.5, 1.0)
    """
    return min(1.0, 2.0 * c)


@_checker_doc("student", "(c) -> float", "case")
def check_rate_exponent(student):
    """Exercise "too small a B": ``student(c)`` must return the exponent a of the decay
    t^-a of the excess cost when every eigenvalue of HB equals c.

    Examples
    --------
    >>> from rlmlib.book.checkers.sgdqn import check_rate_exponent
    >>> check_rate_exponent(lambda c: min(1.0, 2.0 * c))
    'check_rate_exponent: all 10 cases agree'
    >>> try:
    ...     check_rate_exponent(lambda c: 1.0)          # "SGD always converges like 1/t"
    ... except AssertionError as e:
    ...     print(e)
    rate exponent for c=0.05: expected 0.1, got 1.0. the 1/t rate needs 2c > 1
    """
    for c in (0.05, 0.1, 0.25, 0.4, 0.5, 0.75, 1.0, 3.0, 1e3, 1e-6):
        got = _call("rate exponent", f"c={c}", student, c)
        exp = rate_exponent(c)
        if not isinstance(got, (int, float, np.floating)) or not math.isfinite(float(got)):
            raise AssertionError(f"rate exponent for c={c}: expected a finite number, got "
                                 f"{got!r}")
        if abs(float(got) - exp) > 1e-12:
            hint = ("the 1/t rate needs 2c > 1" if c < 0.5 and got > exp else
                    "a larger B does not beat 1/t" if c > 0.5 and got > exp else "")
            raise AssertionError(f"rate exponent for c={c}: expected {exp}, got {got}. {hint}")
    return "check_rate_exponent: all 10 cases agree"
