"""Self-checks of the code exercises of the part "Convergence of stochastic gradient
methods" (chapters/theory; DESIGN.md, "Exercise checkers"): the lazy average of averaged
SGD, the variance of a mini-batch gradient, and the Kullback-Leibler divergence of the
two-point lower-bound construction. Expected values are numbers from ``expected.json``."""
import math

import numpy as np

from .base import _as_real, _checker_doc, _compare_vectors, _run_cases, _student

PART = "theory"


# ------------------------------------------------------------------ the lazy average
def _lazy_cases():
    rng = np.random.default_rng(21)

    def case(label, n, idx, val, alpha, beta, s, c, mu, scale=1.0):
        return (label, (rng.standard_normal(n) * scale, rng.standard_normal(n) * scale,
                        float(alpha), float(beta), float(s), np.asarray(idx, dtype=np.int64),
                        np.asarray(val, dtype=float), float(c), float(mu)))

    return [
        case("a typical step", 8, [1, 4, 6], [0.5, -1.0, 2.0], 0.3, 0.7, 0.9, -0.4, 0.25),
        case("mu = 1/2, s = 1", 6, [0, 5], [1.0, 1.0], 1.0, 0.5, 1.0, 0.2, 0.5),
        case("a tiny weight mu = 1e-9", 5, [2], [3.0], 0.8, 0.1, 0.99, 1.5, 1e-9),
        case("mu close to 1", 5, [0, 3], [-1.0, 2.0], 0.6, 0.2, 0.5, 0.3, 1 - 1e-6),
        case("no loss step (c = 0)", 7, [1, 2], [1.0, -1.0], 0.5, 0.5, 0.8, 0.0, 0.1),
        case("alpha tiny, beta large", 6, [4], [1.0], 1e-12, 1e3, 1e-3, 2.0, 0.01),
        case("beta = 0 (just after a fold)", 6, [1, 3], [2.0, -3.0], 1.0, 0.0, 1.0, 0.7,
             0.2),
        case("values of +-1e3", 6, [0, 2, 5], [1e3, -1e3, 5e2], 0.4, 2.0, 0.3, 1e3, 0.05,
             scale=1e3),
        case("an empty row", 5, [], [], 0.5, 0.5, 0.9, 0.4, 0.3),
        case("a short row in a long vector", 300, [17, 142, 299], [1.0, -2.0, 0.5], 0.2,
             0.3, 0.7, -0.9, 1 / 7),
    ]


def _lazy_compare(got, expected, desc, args):
    """The student's (u, v, alpha, beta) against the expected one: v to 1e-13, the average
    alpha u + beta v to 1e-10 of its terms' size, u and v unchanged off idx."""
    name = "lazy_average_step"
    if not (isinstance(got, (tuple, list)) and len(got) == 4):
        raise AssertionError(f"{name} on input {desc}: expected an array u, an array v and "
                             f"the numbers alpha, beta (a tuple of four), got "
                             f"{type(got).__name__}")
    u, v = (_as_real(name, a, desc) for a in got[:2])
    a2, b2 = (float(_as_real(name, a, desc).reshape(-1)[0]) for a in got[2:])
    ue, ve = np.asarray(expected[0], float), np.asarray(expected[1], float)
    ae, be = float(expected[2]), float(expected[3])
    if not (math.isfinite(a2) and math.isfinite(b2)) or a2 == 0.0:
        raise AssertionError(f"{name} on input {desc}: the value is (alpha, beta) = ({a2}, "
                             f"{b2}), expected finite numbers with alpha != 0, e.g. "
                             f"({ae:.6g}, {be:.6g})")
    idx = args[5]
    off = np.ones(ue.shape[0], bool)
    off[idx] = False
    for which, new, old in (("u", u, ue), ("v", v, ve)):
        if new.shape != old.shape:
            raise AssertionError(f"{name} on input {desc}: expected an array {which} of "
                                 f"shape {old.shape}, got shape {new.shape}")
        bad = off & (new != old)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise AssertionError(
                f"{name} on input {desc}: {which}: coordinate {i} is {new[i]:.17g}, "
                f"expected {old[i]:.17g}, unchanged: it is not in idx, and the step must "
                "touch the row's non-zeros only (O(d), not O(n))")
    _compare_vectors(f"{name}: v", v, ve, 1e-13, desc, atol=1e-300)
    with np.errstate(all="ignore"):
        got_avg = a2 * u + b2 * v
        exp_avg = ae * ue + be * ve
        size = np.abs(a2 * u) + np.abs(b2 * v) + np.abs(exp_avg)
    err = np.abs(got_avg - exp_avg)
    if not np.all(err <= 1e-10 * size + 1e-300):
        i = int(np.nanargmax(np.where(np.isfinite(err), err / (size + 1e-300), np.inf)))
        raise AssertionError(
            f"{name} on input {desc}: the average alpha*u + beta*v: coordinate {i} is "
            f"{got_avg[i]:.17g}, expected {exp_avg[i]:.17g} (error {err[i]:.3g}, allowed "
            f"1e-10 of the terms' size)")


@_checker_doc("lazy_average_step",
              "(u, v, alpha, beta, s, idx, val, c, mu) -> (u, v, alpha, beta)")
def check_lazy_average_step(lazy_average_step):
    """Exercise "the lazy average on sparse rows" (Convergence, averaging page).

    ``lazy_average_step(u, v, alpha, beta, s, idx, val, c, mu)`` performs v <- v + c x (x
    has the values ``val`` at ``idx``) and then abar <- (1 - mu) abar + mu s v on
    abar = alpha u + beta v, changing u and v in place on ``idx`` only, and returns
    (u, v, alpha, beta). Checked: v to 1e-13, the average alpha u + beta v to 1e-10 of the
    size of its terms, u and v unchanged off ``idx``, ``idx`` and ``val`` unchanged.

    Examples
    --------
    >>> from rlmlib.book.checkers.theory import check_lazy_average_step
    >>> def no_step(u, v, alpha, beta, s, idx, val, c, mu):
    ...     return u, v, alpha, beta
    >>> try:
    ...     check_lazy_average_step(no_step)
    ... except AssertionError as e:
    ...     print(str(e).split(" (u=")[0])
    lazy_average_step: v on input 'a typical step'
    """
    _student("lazy_average_step", lazy_average_step)
    n = _run_cases("lazy_average_step", PART, lazy_average_step, _lazy_cases(),
                   ("u", "v", "alpha", "beta", "s", "idx", "val", "c", "mu"), _lazy_compare,
                   allowed=("u", "v"))
    return f"lazy_average_step passed all {n} inputs (average to 1e-10, O(d) updates)."


# ------------------------------------------------------------ the mini-batch variance
def _variance_cases():
    rng = np.random.default_rng(5)
    g = rng.standard_normal((12, 4))
    return [("12 x 4 gaussian rows", (g, 3, True)),
            ("12 x 4, without replacement", (g, 3, False)),
            ("k = 1", (g, 1, True)), ("k = 1, without replacement", (g, 1, False)),
            ("k = m without replacement (the full gradient)", (g, 12, False)),
            ("k = m with replacement", (g, 12, True)),
            ("one row", (g[:1], 1, False)),
            ("identical rows (a tie: variance 0)", (np.tile(g[:1], (6, 1)), 2, True)),
            ("a large common mean 1e8 + N(0, 1)", (1e8 + rng.standard_normal((20, 3)), 4,
                                                   True)),
            ("rows of size 1e100", (1e100 * g, 5, False)),
            ("rows of size 1e-100", (1e-100 * g, 5, True)),
            ("k larger than m with replacement", (g[:5], 9, True))]


def _variance_compare(got, expected, desc, args):
    G = np.asarray(args[0])
    atol = 0.0
    if np.all(G == G[:1]):          # identical rows: 0 up to the rounding of their mean
        with np.errstate(all="ignore"):
            atol = 1e-12 * float(np.mean(np.sum(G ** 2, axis=1)))
    _compare_vectors("minibatch_variance", got, float(expected), 1e-10, desc, atol=atol)


@_checker_doc("minibatch_variance", "(G, k, replace) -> float")
def check_minibatch_variance(minibatch_variance):
    """Exercise "the variance of a mini-batch gradient" (Convergence, mini-batch page).

    ``minibatch_variance(G, k, replace)`` returns E||g_B - g||^2 for the mean g_B of k rows
    of G (m x n) drawn uniformly with (``replace=True``) or without replacement, g the mean
    of all rows. Checked to 1e-10 relative (1e-12 of the mean squared row norm for
    identical rows), G unchanged.

    Examples
    --------
    >>> from rlmlib.book.checkers.theory import check_minibatch_variance
    >>> try:
    ...     check_minibatch_variance(lambda G, k, replace: 0.0)
    ... except AssertionError as e:
    ...     print(str(e).split(" (G=")[0])
    minibatch_variance on input '12 x 4 gaussian rows'
    """
    _student("minibatch_variance", minibatch_variance)
    n = _run_cases("minibatch_variance", PART, minibatch_variance, _variance_cases(),
                   ("G", "k", "replace"), _variance_compare)
    return f"minibatch_variance passed all {n} inputs (relative error 1e-10)."


# ------------------------------------------------------------------ the two-point KL
def _kl_cases():
    return [("delta = 1/2, T = 1", (0.5, 1)), ("delta = 0.1, T = 100", (0.1, 100)),
            ("delta = 0 (identical coins)", (0.0, 10)), ("tiny delta = 1e-9", (1e-9, 1000)),
            ("delta = 1e-5, T = 10**12", (1e-5, 10 ** 12)),
            ("delta near 1 (1 - 1e-12)", (1 - 1e-12, 3)), ("delta = 0.9, T = 7", (0.9, 7))]


def _kl_compare(got, expected, desc, args):
    _compare_vectors("two_point_kl", got, float(expected), 1e-10, desc)


@_checker_doc("two_point_kl", "(delta, T) -> float")
def check_two_point_kl(two_point_kl):
    """Exercise "the divergence of the two oracles" (Convergence, lower-bounds page).

    ``two_point_kl(delta, T)`` returns the Kullback-Leibler divergence between T flips of a
    coin with P(heads) = (1 + delta)/2 and T flips of one with (1 - delta)/2, 0 <= delta <
    1. Checked to 1e-10 relative, including delta = 1e-9 and delta near 1.

    Examples
    --------
    >>> from rlmlib.book.checkers.theory import check_two_point_kl
    >>> try:
    ...     check_two_point_kl(lambda delta, T: 2 * T * delta ** 2)   # small-delta formula
    ... except AssertionError as e:
    ...     print(str(e).split(" (delta=")[0])
    two_point_kl on input 'delta = 1/2, T = 1'
    """
    _student("two_point_kl", two_point_kl)
    n = _run_cases("two_point_kl", PART, two_point_kl, _kl_cases(), ("delta", "T"),
                   _kl_compare)
    return f"two_point_kl passed all {n} inputs (relative error 1e-10)."


CASES = {"lazy_average_step": _lazy_cases, "minibatch_variance": _variance_cases,
         "two_point_kl": _kl_cases}
