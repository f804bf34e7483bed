"""Self-checks of the code exercises of the part "Momentum and acceleration"
(chapters/momentum; DESIGN.md, "Exercise checkers"): the lazy catch-up of a momentum step
on an untouched coordinate, and Polyak's heavy-ball parameters. Expected values are numbers
from ``expected.json``."""
import numpy as np

from .base import _checker_doc, _compare_vectors, _pair, _run_cases, _student

PART = "momentum"


# ------------------------------------------------------- the momentum catch-up
def _catch_up_cases():
    rng = np.random.default_rng(0)
    cases = [("one heavy-ball step", (1.0, 0.5, 0.1, 0.9, 0.01, False, 1)),
             ("one Nesterov step", (1.0, 0.5, 0.1, 0.9, 0.01, True, 1)),
             ("d = 0 leaves (w, v)", (0.3, -2.0, 0.1, 0.9, 0.5, False, 0)),
             ("ten heavy-ball steps", (-1.0, 2.0, 0.05, 0.8, 0.1, False, 10)),
             ("ten Nesterov steps", (-1.0, 2.0, 0.05, 0.8, 0.1, True, 10)),
             ("beta = 0: shrinks only", (2.0, 0.0, 0.1, 0.0, 0.5, False, 7)),
             ("sigma = 0: v decays, w drifts", (1.0, 1.0, 0.2, 0.5, 0.0, False, 30)),
             ("complex roots (large step * sigma)", (1.0, 0.0, 0.4, 0.9, 0.5, False, 25)),
             ("complex roots, Nesterov", (1.0, -1.0, 0.4, 0.9, 0.5, True, 25)),
             ("a long gap, d = 1000", (1.0, 0.1, 0.01, 0.9, 0.01, False, 1000)),
             ("a very long gap, d = 100000", (3.0, 0.2, 1e-3, 0.99, 1e-3, True, 100_000)),
             ("w and v of size 1e200", (1e200, -1e200, 0.1, 0.9, 0.01, False, 50)),
             ("w and v of size 1e-200", (1e-200, 1e-200, 0.1, 0.9, 0.01, True, 50)),
             ("mixed magnitudes w = 1e8, v = 1e-8", (1e8, 1e-8, 1e-3, 0.9, 1e-4, False, 200)),
             ("zero state", (0.0, 0.0, 0.1, 0.9, 0.1, True, 17))]
    for j in range(12):
        cases.append((f"random {j}", (float(rng.normal()), float(rng.normal()),
                                      float(10 ** rng.uniform(-3, -0.5)),
                                      float(rng.choice([0.0, 0.5, 0.9, 0.99])),
                                      float(10 ** rng.uniform(-4, 0)), bool(j % 2),
                                      int(rng.integers(0, 300)))))
    return cases


def _catch_up_compare(got, expected, desc, args, rtol=1e-10):
    """Both numbers to ``rtol`` relative, plus ``rtol`` times the size of the starting
    state (a long walk may end near zero by cancellation)."""
    w, v = args[0], args[1]
    pair = _pair("momentum_catch_up", got, desc)
    scale = max(abs(w), abs(v))
    _compare_vectors("momentum_catch_up", list(pair), np.asarray(expected, dtype=float),
                     rtol, desc, atol=rtol * scale)


@_checker_doc("momentum_catch_up", "(w, v, step, beta, sigma, nesterov, d) -> (w, v)")
def check_momentum_catch_up(momentum_catch_up):
    """Exercise "the momentum catch-up" (Momentum and acceleration, ex-mom-catch-up).

    ``momentum_catch_up(w, v, step, beta, sigma, nesterov, d)`` returns the pair (w, v)
    after d steps of SGD with momentum on a coordinate that no row touches: heavy ball
    v <- beta v + sigma w, w <- w - step v; Nesterov w <- w - step (sigma w + beta v) after
    the same update of v. Checked to a relative 1e-10, plus 1e-10 of max(|w|, |v|) at the
    start, for d up to 100,000 and states from 1e-200 to 1e200.

    Examples
    --------
    >>> from rlmlib.book.checkers.momentum import check_momentum_catch_up
    >>> try:
    ...     check_momentum_catch_up(lambda w, v, step, beta, sigma, nesterov, d: (w, v))
    ... except AssertionError as e:
    ...     print(str(e).split(" (w=")[0])
    momentum_catch_up on input 'one heavy-ball step'
    """
    _student("momentum_catch_up", momentum_catch_up)
    n = _run_cases("momentum_catch_up", PART, momentum_catch_up, _catch_up_cases(),
                   ("w", "v", "step", "beta", "sigma", "nesterov", "d"), _catch_up_compare)
    return f"momentum_catch_up passed all {n} inputs (relative error 1e-10)."


# ------------------------------------------------------- Polyak's parameters
def _polyak_cases():
    return [("Q = 25 (mu = 1, L = 25)", (25.0, 1.0)),
            ("Q = 1: no momentum", (3.0, 3.0)),
            ("Q = 100", (100.0, 1.0)),
            ("L = 1, mu = 1e-4", (1.0, 1e-4)),
            ("Q = 1e12", (1e6, 1e-6)),
            ("L = 1e300, mu = 1e-300 (L/mu overflows)", (1e300, 1e-300)),
            ("L = 1e-300, mu = 1e-310 (subnormal mu)", (1e-300, 1e-310)),
            ("L = 2, mu = 1.999999", (2.0, 1.999999)),
            ("L = 4e10, mu = 1", (4e10, 1.0))]


def _polyak_compare(got, expected, desc, args, rtol=1e-12):
    pair = _pair("polyak_parameters", got, desc)
    _compare_vectors("polyak_parameters", list(pair), np.asarray(expected, dtype=float),
                     rtol, desc, atol=1e-300)


@_checker_doc("polyak_parameters", "(L, mu) -> (eta, beta)")
def check_polyak_parameters(polyak_parameters):
    """Exercise "Polyak's parameters" (Momentum and acceleration, ex-mom-polyak).

    ``polyak_parameters(L, mu)`` returns heavy ball's step 4/(√L + √μ)² and momentum
    ((√Q - 1)/(√Q + 1))², Q = L/μ, for 0 < μ <= L. Checked to a relative 1e-12 from
    Q = 1 to Q = 1e600 (where L/μ itself overflows).

    Examples
    --------
    >>> from rlmlib.book.checkers.momentum import check_polyak_parameters
    >>> try:
    ...     check_polyak_parameters(lambda L, mu: (1 / L, 0.9))
    ... except AssertionError as e:
    ...     print(str(e).split(" (L=")[0])
    polyak_parameters on input 'Q = 25 (mu = 1, L = 25)'
    """
    _student("polyak_parameters", polyak_parameters)
    n = _run_cases("polyak_parameters", PART, polyak_parameters, _polyak_cases(),
                   ("L", "mu"), _polyak_compare)
    return f"polyak_parameters passed all {n} inputs (relative error 1e-12)."


CASES = {"momentum_catch_up": _catch_up_cases, "polyak_parameters": _polyak_cases}
