"""Hidden grading of the SGD-QN part's code exercises."""
import math

import numpy as np

from instructors.reference import sgdqn as ref
from rlmlib.book.checkers import sgdqn as selfcheck
from rlmlib.book.checkers.base import _compare_vectors, _integer, _pair

from .common import draw_seed, grade_cases


def grade_scheduled_step(scheduled_step, seed=None):
    """Hidden test of ex-qn-schedule: random steps at every countdown value, margins on both
    sides of 1, x = 0, and the regularization due with the loss step active."""
    seed = draw_seed(seed)
    selfcheck.check_scheduled_step(scheduled_step)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(24):
        n = int(rng.integers(1, 9))
        skip = int(rng.choice([1, 2, 3, 16, 9965]))
        count = int(rng.integers(1, skip + 1))
        cases.append((f"random {k}", (rng.standard_normal(n) * 10 ** rng.uniform(-2, 2),
                                      rng.standard_normal(n), float(rng.choice([-1.0, 1.0])),
                                      int(rng.integers(0, 10 ** 6)),
                                      float(10 ** rng.uniform(1, 5)),
                                      float(10 ** rng.uniform(-5, -1)), skip, count)))
    cases.append(("count already 0 (restarts)", (np.ones(3), np.ones(3), -1.0, 5, 100.0,
                                                 0.01, 4, 0)))
    cases.append(("margin exactly 1 (the hinge's kink)", (np.array([0.5, 0.5]),
                                                          np.array([1.0, 1.0]), 1.0, 1, 10.0,
                                                          0.1, 2, 1)))

    def compare(got, expected, desc, args):
        got_w, got_c = _pair("scheduled_step", got, desc)
        scale = float(np.abs(expected[0]).max(initial=0.0))
        _compare_vectors("scheduled_step: w_new", got_w, expected[0], 1e-12, desc,
                         atol=1e-15 * scale)
        _integer("scheduled_step", got_c, expected[1], desc, "count_new")

    n = grade_cases("scheduled_step", scheduled_step, ref.scheduled_step, cases,
                    ("w", "x", "y", "t", "t0", "sigma", "skip", "count"), compare, seed=seed)
    return f"scheduled_step: hidden tests pass ({n} instances, seed {seed})"


def grade_skip_from_cost(skip_from_cost, seed=None):
    """Hidden test of ex-qn-skip: random costs, exact multiples, and c n / d just above an
    integer."""
    seed = draw_seed(seed)
    selfcheck.check_skip_from_cost(skip_from_cost)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(30):
        d = int(rng.integers(1, 500))
        c = int(rng.integers(1, 40))
        m = int(rng.integers(1, 3000))
        cases.append((f"exact multiple {k}", (m * d, d, c)))          # c n / d integral
        cases.append((f"random {k}", (int(rng.integers(1, 10 ** 7)),
                                      float(rng.uniform(0.5, 3000)),
                                      float(rng.choice([0.25, 1, 3, 16, 100])))))
    for k in range(10):                  # a decimal c: c n / d integral up to rounding
        c = float(rng.choice([1.1, 0.7, 2.2, 3.3, 0.3, 1.3]))
        d = int(rng.integers(1, 40))
        n = int(d * 10 * rng.integers(1, 50))
        cases.append((f"decimal c {k}", (n, d, c)))
    cases.append(("c n / d just above 1", (1001, 1000, 1)))
    cases.append(("c n / d below 1", (1, 1000, 1)))

    def compare(got, expected, desc, args):
        if isinstance(got, (float, np.floating)):
            raise AssertionError(f"skip_from_cost on input {desc}: expected an int, got the "
                                 f"float {got!r}")
        _integer("skip_from_cost", got, expected, desc)

    n = grade_cases("skip_from_cost", skip_from_cost, ref.skip_from_cost, cases,
                    ("n", "d", "c"), compare, seed=seed)
    return f"skip_from_cost: hidden tests pass ({n} instances, seed {seed})"


def grade_secant_ratio(secant_ratio, seed=None):
    """Hidden test of ex-qn-ratio: random steps over 600 orders of magnitude, zeros, and one
    vector mixing 1e300 and 1e-300."""
    seed = draw_seed(seed)
    selfcheck.check_secant_ratio(secant_ratio)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(20):
        n = int(rng.integers(1, 9))
        mag = 10 ** rng.uniform(-300, 300, n)
        dw = rng.standard_normal(n) * mag * (rng.random(n) < 0.8)
        x = rng.standard_normal(n) * mag * rng.uniform(0.5, 2, n)
        x[dw != 0] = np.abs(x[dw != 0]) * np.sign(dw[dw != 0])   # no cancellation
        cases.append((f"random {k}", (dw, float(rng.uniform(0, 2)), x,
                                      float(10 ** rng.uniform(-6, 0)))))
    cases.append(("1e300 and 1e-300 in one vector", (np.array([1e300, -1e-300, 0.0, 1e-310]),
                                                     0.5, np.array([1e300, 2e-300, 1.0, 1e-310]),
                                                     1e-3)))

    def compare(got, expected, desc, args):
        _compare_vectors("secant_ratio", got, expected, 1e-12, desc)

    n = grade_cases("secant_ratio", secant_ratio, ref.secant_ratio, cases,
                    ("dw", "dd", "x", "sigma"), compare, seed=seed)
    return f"secant_ratio: hidden tests pass ({n} instances, seed {seed})"


def grade_corrected_update(corrected_update, seed=None):
    """Hidden test of ex-qn-corrected: random secants where every coordinate falls in one of
    the update's cases (x_i = 0 with w1_i = w_i or not, w1_i = w_i on a present feature,
    clipped above, clipped below, inside), in every combination and order."""
    seed = draw_seed(seed)
    selfcheck.check_corrected_update(corrected_update)
    rng = np.random.default_rng(seed)
    cases = []
    kinds = ["x0 same", "x0 moved", "same", "above", "below", "inside"]
    for k in range(30):
        n = int(rng.integers(1, 12))
        sigma = float(10 ** rng.uniform(-6, -1))
        dd = float(rng.uniform(0.1, 2.0))
        w = rng.standard_normal(n)
        x = rng.standard_normal(n)
        diff = np.empty(n)
        for i, kind in enumerate(rng.choice(kinds, n)):
            if kind.startswith("x0"):
                x[i] = 0.0
                diff[i] = 0.0 if kind == "x0 same" else rng.standard_normal()
            elif kind == "same":
                diff[i] = 0.0
            elif kind == "above":
                diff[i] = dd * x[i] / (1e4 * sigma)
            elif kind == "below":
                diff[i] = -dd * x[i] / sigma
            else:
                diff[i] = dd * x[i] / (sigma * rng.uniform(1.5, 90))
        cases.append((f"random {k}", (np.full(n, 1 / (sigma * 10 ** rng.uniform(1, 6))),
                                      w + diff, w, x, dd, int(10 ** rng.uniform(0, 6)),
                                      sigma)))

    def compare(got, expected, desc, args):
        _compare_vectors("corrected_update", got, expected, 1e-12, desc)

    n = grade_cases("corrected_update", corrected_update, ref.corrected_update, cases,
                    ("B", "w1", "w", "x", "dd", "dt", "sigma"), compare, seed=seed)
    return f"corrected_update: hidden tests pass ({n} instances, seed {seed})"


def grade_rate_exponent(rate_exponent, seed=None):
    """Hidden test of ex-qn-rate: c over (1e-9, 1e9), around 1/2 in particular."""
    seed = draw_seed(seed)
    selfcheck.check_rate_exponent(rate_exponent)
    rng = np.random.default_rng(seed)
    cs = list(10 ** rng.uniform(-9, 9, 20)) + [0.5 - 1e-9, 0.5 + 1e-9, 0.49, 0.51]
    cases = [(f"c={c!r}", (float(c),)) for c in cs]

    def compare(got, expected, desc, args):
        if not isinstance(got, (int, float, np.integer, np.floating)) or isinstance(got, bool):
            raise AssertionError(f"rate_exponent on input {desc}: expected a number, got "
                                 f"{got!r}")
        if not math.isfinite(float(got)):
            raise AssertionError(f"rate_exponent on input {desc}: the value is {got}")
        _compare_vectors("rate_exponent", float(got), expected, 1e-12, desc)

    n = grade_cases("rate_exponent", rate_exponent, ref.rate_exponent, cases, ("c",),
                    compare, seed=seed)
    return f"rate_exponent: hidden tests pass ({n} instances, seed {seed})"
