"""Hidden grading of the fully implicit online learning part's code exercises."""
import numpy as np

from instructors.exercises import EXERCISES
from instructors.reference import fiol as ref
from rlmlib.book.checkers import fiol as selfcheck
from rlmlib.book.checkers.base import _compare_vectors, _pair
from rlmlib.solvers.fiol import fiol_step

from .common import draw_seed, grade_cases

TWINS = {f.name: f.twins for fs in EXERCISES.values() for f in fs}


def grade_logistic_inverse(logistic_inverse, seed=None):
    """Hidden test of ex-fiol-logistic-inverse: s y over the whole domain (-1, 0), uniformly
    and near both ends, for both labels."""
    seed = draw_seed(seed)
    selfcheck.check_logistic_inverse(logistic_inverse)
    rng = np.random.default_rng(seed)
    ts = list(-rng.uniform(0, 1, 40)) + list(-10 ** rng.uniform(-300, -1, 10)) \
        + list(-1 + 10 ** rng.uniform(-15, -1, 10)) + list(-10 ** rng.uniform(-323, -308, 4))
    ts = [t for t in ts if -1 < t < 0]
    cases = [(f"s={float(t * y)!r}, y={y}", (float(t * y), y)) for t in ts
             for y in (1.0, -1.0)]

    def compare(got, expected, desc, args):
        _compare_vectors("logistic_inverse", got, expected, 1e-10, desc, atol=1e-10)

    n = grade_cases("logistic_inverse", logistic_inverse, ref.logistic_inverse, cases,
                    ("s", "y"), compare, seed=seed, twins=TWINS["logistic_inverse"])
    return f"logistic_inverse: hidden tests pass ({n} instances, seed {seed})"


def grade_soft(soft, seed=None):
    """Hidden test of soft (ex-fiol-breakpoints)."""
    seed = draw_seed(seed)
    selfcheck.check_soft(soft)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(15):
        n = int(rng.integers(1, 10))
        u = rng.standard_normal(n) * 10 ** rng.uniform(-300, 300, n)
        a = float(np.abs(u[0]) if rng.random() < 0.3 else 10 ** rng.uniform(-300, 300))
        cases.append((f"random {k}", (u, a)))
    cases.append(("1e300 and 1e-300, a = 1", (np.array([1e300, -1e-300, -1e300, 1.0]), 1.0)))

    def compare(got, expected, desc, args):
        _compare_vectors("soft", got, expected, 1e-15, desc)

    n = grade_cases("soft", soft, ref.soft, cases, ("u", "a"), compare, seed=seed,
                    twins=TWINS["soft"])
    return f"soft: hidden tests pass ({n} instances, seed {seed})"


def grade_bps(bps, seed=None):
    """Hidden test of bps (ex-fiol-breakpoints)."""
    seed = draw_seed(seed)
    selfcheck.check_breakpoints(bps)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(15):
        n = int(rng.integers(1, 10))
        x = rng.standard_normal(n) * (rng.random(n) < 0.6) * 10 ** rng.uniform(-3, 3, n)
        cases.append((f"random {k}", (rng.standard_normal(n), x,
                                      float(10 ** rng.uniform(-4, 2)),
                                      float(10 ** rng.uniform(-4, 1) * (rng.random() < 0.9)))))

    def compare(got, expected, desc, args):
        lo, hi = _pair("bps", got, desc)
        _compare_vectors("bps: lo", lo, expected[0], 1e-12, desc,
                         atol=1e-15 * float(np.abs(expected[0]).max(initial=0)))
        _compare_vectors("bps: hi", hi, expected[1], 1e-12, desc,
                         atol=1e-15 * float(np.abs(expected[1]).max(initial=0)))

    n = grade_cases("bps", bps, ref.bps, cases, ("w", "x", "eta", "sigma"), compare,
                    seed=seed, twins=TWINS["bps"])
    return f"bps: hidden tests pass ({n} instances, seed {seed})"


def _library_step(w, x, y, eta, sigma):
    return fiol_step(w, x, y, eta=eta, sigma=sigma, loss="squared")


def grade_step(step, seed=None):
    """Hidden test of ex-fiol-sort-step: random instances with ties and zeros, and extreme
    eta and sigma; the reference is the library's step (computed before the library's step
    is disabled for the submission)."""
    seed = draw_seed(seed)
    selfcheck.check_sort_step(step)
    rng = np.random.default_rng(seed)
    cases = []
    for k in range(40):
        n = int(rng.integers(1, 12))
        w = np.round(rng.standard_normal(n) * 3, int(rng.integers(0, 3)))   # ties
        x = np.round(rng.standard_normal(n), 1) * (rng.random(n) < 0.7)
        cases.append((f"random {k}", (w, x, float(rng.standard_normal() * 3),
                                      float(10 ** rng.uniform(-6, 4)),
                                      float(10 ** rng.uniform(-3, 1) * (rng.random() < 0.85)))))
    expected = {label: _library_step(*[a.copy() if isinstance(a, np.ndarray) else a
                                       for a in args]) for label, args in cases}
    lookup = {id(args): expected[label] for label, args in cases}

    def compare(got, _, desc, args):
        exp = lookup[id(args)]
        scale = max(1.0, float(np.abs(args[0]).max()), float(np.abs(exp).max()))
        _compare_vectors("step", got, exp, 0.0, desc, atol=1e-9 * scale)

    n = grade_cases("step", step, lambda *a: None, cases, ("w", "x", "y", "eta", "sigma"),
                    compare, seed=seed, twins=TWINS["step"])
    return f"step: hidden tests pass ({n} instances, seed {seed})"
