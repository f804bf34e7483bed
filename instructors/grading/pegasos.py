"""Hidden grading of the Pegasos and PGS part's code exercises."""
import numpy as np

from instructors.exercises import EXERCISES
from instructors.reference import pegasos as ref
from rlmlib.book.checkers import pegasos as selfcheck
from rlmlib.book.checkers.base import UNDERFLOW_ATOL, _compare_vectors

from .common import draw_seed, grade_cases

TWINS = {f.name: f.twins for fs in EXERCISES.values() for f in fs}


def _theta_cases(rng, with_radius=False):
    cases = []
    for k in range(14):
        n = int(rng.integers(1, 10))
        theta = rng.standard_normal(n) * 10 ** rng.uniform(-250, 250)
        theta[rng.random(n) < 0.2] = 0.0
        p = float(rng.uniform(1.01, 2.0))
        cases.append((f"random {k}", (theta, p)))
    for p in (1.01, 1.2, 1.5, 1.8, 1.99, 2.0):       # the whole domain of p, mixed vectors
        cases.append((f"p={p}, 1e300 and 1e-300 in one vector",
                      (np.array([1e300, -1e-300, 1.0, 0.0, -2e-300]), p)))
        cases.append((f"p={p}, 1e-300 and 1e-10", (np.array([1e-300, 1e-10, -3e-11]), p)))
    if with_radius:
        out = []
        for label, (theta, p) in cases:
            M = float(np.abs(theta).max())
            q = p / (p - 1)
            nq = M * float(np.sum((np.abs(theta) / M) ** q)) ** (1 / q) if M > 0 else 0.0
            sw = (p - 1) * nq                      # where the two cases meet
            for where, B in (("inside", 10 * sw + 1e-300), ("outside", 0.1 * sw),
                             ("just inside the switch", sw * (1 + 1e-7)),
                             ("just outside the switch", sw * (1 - 1e-7)),
                             ("between (p-1)|theta|_q and |theta|_q", 0.5 * (sw + nq))):
                if np.isfinite(B) and B > 0:
                    out.append((f"{label}, {where}", (theta, p, B)))
        return out
    return cases


def grade_grad_conjugate(grad_conjugate, seed=None):
    """Hidden test of ex-pgs-mirror."""
    seed = draw_seed(seed)
    selfcheck.check_grad_conjugate(grad_conjugate)

    def compare(got, expected, desc, args):
        _compare_vectors("grad_conjugate", got, expected, 1e-9, desc)

    n = grade_cases("grad_conjugate", grad_conjugate, ref.grad_conjugate,
                    _theta_cases(np.random.default_rng(seed)), ("theta", "p"), compare,
                    seed=seed, twins=TWINS["grad_conjugate"])
    return f"grad_conjugate: hidden tests pass ({n} instances, seed {seed})"


def grade_r_conjugate_ball(r_conjugate_ball, seed=None):
    """Hidden test of ex-pgs-ball."""
    seed = draw_seed(seed)
    selfcheck.check_ball_conjugate(r_conjugate_ball)

    def compare(got, expected, desc, args):
        _compare_vectors("r_conjugate_ball", got, float(expected), 1e-9, desc,
                         atol=UNDERFLOW_ATOL)

    def finite(args):             # the value itself must be a double
        try:
            with np.errstate(all="ignore"):
                return bool(np.isfinite(ref.r_conjugate_ball(*args)))
        except OverflowError:
            return False

    cases = [c for c in _theta_cases(np.random.default_rng(seed), with_radius=True)
             if finite(c[1])]
    n = grade_cases("r_conjugate_ball", r_conjugate_ball, ref.r_conjugate_ball, cases,
                    ("theta", "p", "B"), compare, seed=seed,
                    twins=TWINS["r_conjugate_ball"])
    return f"r_conjugate_ball: hidden tests pass ({n} instances, seed {seed})"


def grade_best_k(best_k, seed=None):
    """Hidden test of ex-pgs-best-k: random models, and k* just above sqrt(j(j+1))."""
    seed = draw_seed(seed)
    selfcheck.check_best_k(best_k)
    rng = np.random.default_rng(seed)
    cases = [(f"random {i}", (int(10 ** rng.uniform(0, 8)), float(10 ** rng.uniform(0, 3)),
                              float(10 ** rng.uniform(-3, 3)), float(10 ** rng.uniform(-3, 3))))
             for i in range(30)]
    for j in (1, 2, 5, 40, 300):          # k*^2 between j(j+1) and (j + 1/2)^2: rounding fails
        kk = (j * (j + 1) + (j + 0.5) ** 2) / 2
        cases.append((f"k* = {kk ** 0.5:.6f} (round(k*) = {j})", (int(kk * 10), 10.0, 1.0,
                                                                  1.0)))

    def compare(got, expected, desc, args):
        n, d, a, b = args
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer)) \
                or got < 1:
            raise AssertionError(f"best_k on input {desc}: expected an integer k >= 1, got "
                                 f"{got!r}")
        t_got = selfcheck.pgs_time_model(int(got), n, d, a, b)
        t_best = selfcheck.pgs_time_model(expected, n, d, a, b)
        if t_got > t_best * (1 + 1e-12):
            raise AssertionError(f"best_k on input {desc}: returned k={got} (modelled time "
                                 f"{t_got:.6g}), but k={expected} gives {t_best:.6g} (excess "
                                 f"{t_got / t_best - 1:.3g} relative)")

    n = grade_cases("best_k", best_k, ref.best_k, cases, ("n", "d", "a", "b"), compare,
                    seed=seed)
    return f"best_k: hidden tests pass ({n} instances, seed {seed})"
