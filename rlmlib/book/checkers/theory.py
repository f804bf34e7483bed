"""Checkers of the code exercises of the part "Convergence of stochastic gradient methods"
(chapters/theory): the lazy average of averaged SGD, the variance of a mini-batch gradient,
and the Kullback-Leibler divergence of the two-point lower-bound construction."""
import math

import numpy as np

from .base import _as_real, _call, _checker_doc, _compare_vectors, _describe, _student


def _lazy_cases():
    rng = np.random.default_rng(21)
    cases = []

    def add(name, n, idx, val, alpha, beta, s, c, mu, scale=1.0):
        u = rng.standard_normal(n) * scale
        v = rng.standard_normal(n) * scale
        cases.append((name, u, v, float(alpha), float(beta), float(s),
                      np.asarray(idx, dtype=np.int64), np.asarray(val, dtype=float),
                      float(c), float(mu)))

    add("a typical step", 8, [1, 4, 6], [0.5, -1.0, 2.0], 0.3, 0.7, 0.9, -0.4, 0.25)
    add("mu = 1/2", 6, [0, 5], [1.0, 1.0], 1.0, 0.5, 1.0, 0.2, 0.5)
    add("a tiny weight mu = 1e-9", 5, [2], [3.0], 0.8, 0.1, 0.99, 1.5, 1e-9)
    add("mu close to 1", 5, [0, 3], [-1.0, 2.0], 0.6, 0.2, 0.5, 0.3, 1 - 1e-6)
    add("no loss step (c = 0)", 7, [1, 2], [1.0, -1.0], 0.5, 0.5, 0.8, 0.0, 0.1)
    add("alpha tiny, beta large", 6, [4], [1.0], 1e-12, 1e3, 1e-3, 2.0, 0.01)
    add("beta = 0 (just after a fold)", 6, [1, 3], [2.0, -3.0], 1.0, 0.0, 1.0, 0.7, 0.2)
    add("values of +-1e3", 6, [0, 2, 5], [1e3, -1e3, 5e2], 0.4, 2.0, 0.3, 1e3, 0.05,
        scale=1e3)
    add("an empty row", 5, [], [], 0.5, 0.5, 0.9, 0.4, 0.3)
    add("a short row in a long vector", 10_000, [17, 4_242, 9_999], [1.0, -2.0, 0.5],
        0.2, 0.3, 0.7, -0.9, 1 / 7)
    return cases


@_checker_doc("lazy_average_step", "(u, v, alpha, beta, s, idx, val, c, mu) -> (alpha, beta)")
def check_lazy_average_step(lazy_average_step):
    """Exercise "the lazy average on sparse rows" (Convergence, averaging page).

    ``lazy_average_step(u, v, alpha, beta, s, idx, val, c, mu)`` performs v <- v + c x
    (x has the values ``val`` at ``idx``) and then abar <- (1 - mu) abar + mu s v on
    abar = alpha u + beta v, updating u and v in place on ``idx`` only, and returns the new
    (alpha, beta). Checked: the new alpha u + beta v against the dense average (relative
    1e-10 of the terms' size), v = v + c x, coordinates off ``idx`` unchanged, ``idx`` and
    ``val`` unchanged.

    Examples
    --------
    >>> from rlmlib.book.checkers import check_lazy_average_step
    >>> def wrong(u, v, alpha, beta, s, idx, val, c, mu):   # forgets to update u
    ...     v[idx] += c * val
    ...     return (1 - mu) * alpha, (1 - mu) * beta + mu * s
    >>> try:
    ...     check_lazy_average_step(wrong)
    ... except AssertionError as e:
    ...     print(str(e)[:60])
    lazy_average_step on input 'a typical step' (alpha=0.3, beta
    """
    _student("lazy_average_step", lazy_average_step)
    cases = _lazy_cases()
    for name, u, v, alpha, beta, s, idx, val, c, mu in cases:
        label = (f"'{name}' (alpha={alpha:g}, beta={beta:g}, s={s:g}, c={c:g}, mu={mu:g}, "
                 f"idx={_describe(idx)}, val={_describe(val)})")
        x = np.zeros(u.shape[0])
        x[idx] = val
        v_new_expected = v + c * x
        expected = (1 - mu) * (alpha * u + beta * v) + mu * s * v_new_expected
        u_in, v_in, idx_in, val_in = u.copy(), v.copy(), idx.copy(), val.copy()
        out = _call("lazy_average_step", label, lazy_average_step, u_in, v_in, alpha, beta,
                    s, idx_in, val_in, c, mu)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise AssertionError(f"lazy_average_step on input {label}: expected the pair "
                                 f"(alpha, beta), got {type(out).__name__}")
        a2, b2 = (float(_as_real("lazy_average_step", o, label).reshape(-1)[0])
                  for o in out)
        if not (math.isfinite(a2) and math.isfinite(b2)) or a2 == 0.0:
            raise AssertionError(f"lazy_average_step on input {label}: the new (alpha, "
                                 f"beta) = ({a2}, {b2}); alpha must be finite and non-zero")
        if not np.array_equal(idx_in, idx) or not np.array_equal(val_in, val):
            raise AssertionError(f"lazy_average_step on input {label}: idx or val was "
                                 "modified in place; they are the data's row and must be "
                                 "left unchanged")
        off = np.ones(u.shape[0], bool)
        off[idx] = False
        for nm, new, old in (("u", u_in, u), ("v", v_in, v)):
            if np.any(new[off] != old[off]):
                i = int(np.flatnonzero(off & (new != old))[0])
                raise AssertionError(
                    f"lazy_average_step on input {label}: coordinate {i} of {nm} changed "
                    f"from {old[i]:.17g} to {new[i]:.17g} although it is not in idx: the "
                    "step must touch the row's non-zeros only (O(d), not O(n))")
        _compare_vectors("lazy_average_step: v", v_in, v_new_expected, 1e-14, label)
        got = a2 * u_in + b2 * v_in
        size = np.abs(a2 * u_in) + np.abs(b2 * v_in) + np.abs(expected)
        err = np.abs(got - expected)
        if np.any(err > 1e-10 * size + 1e-300):
            i = int(np.argmax(err / (size + 1e-300)))
            raise AssertionError(
                f"lazy_average_step on input {label}: the average alpha*u + beta*v at "
                f"coordinate {i} is {got[i]:.17g}, expected (1 - mu) abar + mu s v = "
                f"{expected[i]:.17g} (error {err[i]:.3g}); check the sign and the factor "
                "beta c / alpha of the update of u, and that it uses the old alpha, beta")
    return (f"lazy_average_step passed all {len(cases)} inputs (average to 1e-10, "
            "O(d) updates).")


def _minibatch_variance_reference(G, k, replace):
    """E||mean of k rows of G drawn uniformly - mean of all rows||^2 (two-pass, exact)."""
    G = np.asarray(G, dtype=float)
    m = G.shape[0]
    V = float(np.mean(np.sum((G - G.mean(axis=0)) ** 2, axis=1)))
    if replace:
        return V / k
    return 0.0 if m == 1 else V / k * (m - k) / (m - 1)


def _variance_cases():
    rng = np.random.default_rng(5)
    g = rng.standard_normal((12, 4))
    return [("12 x 4 gaussian rows", g, 3, True), ("12 x 4, without replacement", g, 3,
                                                    False),
            ("k = 1", g, 1, True), ("k = 1, without replacement", g, 1, False),
            ("k = m without replacement (the full gradient)", g, 12, False),
            ("k = m with replacement", g, 12, True),
            ("one row", g[:1], 1, False),
            ("identical rows (a tie: variance 0)", np.tile(g[:1], (6, 1)), 2, True),
            ("a large common mean 1e8 + N(0, 1)", 1e8 + rng.standard_normal((20, 3)), 4,
             True),
            ("rows of size 1e100", 1e100 * g, 5, False),
            ("rows of size 1e-100", 1e-100 * g, 5, True),
            ("k larger than m with replacement", g[:5], 9, True)]


@_checker_doc("minibatch_variance", "(G, k, replace) -> float")
def check_minibatch_variance(minibatch_variance):
    """Exercise "the variance of a mini-batch gradient" (Convergence, mini-batch page).

    ``minibatch_variance(G, k, replace)`` returns E||g_B - g||^2 for the mean g_B of k rows
    of G (m x n) drawn uniformly with (``replace=True``) or without replacement, g the mean
    of all rows: V/k, times (m - k)/(m - 1) without replacement, V the mean squared
    distance of the rows to their mean. Checked to 1e-10 relative (1e-12 of the mean
    squared row norm for a zero variance), G unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers import check_minibatch_variance
    >>> def wrong(G, k, replace):                # forgets the finite-population factor
    ...     return np.mean(np.sum((G - G.mean(0)) ** 2, axis=1)) / k
    >>> try:
    ...     check_minibatch_variance(wrong)
    ... except AssertionError as e:
    ...     print(str(e)[:57])
    minibatch_variance on input '12 x 4, without replacement'
    """
    _student("minibatch_variance", minibatch_variance)
    cases = _variance_cases()
    for name, G, k, replace in cases:
        label = f"'{name}' (m={G.shape[0]}, n={G.shape[1]}, k={k}, replace={replace})"
        G_in = G.copy()
        got = _call("minibatch_variance", label, minibatch_variance, G_in, k, replace)
        if not np.array_equal(G_in, G):
            raise AssertionError(f"minibatch_variance on input {label}: G was modified in "
                                 "place")
        expected = _minibatch_variance_reference(G, k, replace)
        got = float(_as_real("minibatch_variance", got, label).reshape(-1)[0])
        if np.all(G == G[0]):                  # identical rows: the variance is 0
            expected = 0.0
        if expected == 0.0:
            floor = 1e-12 * float(np.mean(np.sum(G ** 2, axis=1)))
            if not abs(got) <= floor:
                raise AssertionError(f"minibatch_variance on input {label}: got {got:.6g}, "
                                     f"expected 0 (allowed {floor:.3g})")
            continue
        _compare_vectors("minibatch_variance", got, expected, 1e-10, label)
    return f"minibatch_variance passed all {len(cases)} inputs (relative error 1e-10)."


def _two_point_kl_reference(delta, T):
    """KL(P_+^T || P_-^T) for P_+- = Bernoulli((1 +- delta)/2): 2 T delta atanh(delta)."""
    return 2.0 * T * delta * math.atanh(delta)


@_checker_doc("two_point_kl", "(delta, T) -> float")
def check_two_point_kl(two_point_kl):
    """Exercise "the two-point construction" (Convergence, lower-bounds page).

    ``two_point_kl(delta, T)`` returns the Kullback-Leibler divergence between T independent
    draws of Bernoulli((1 + delta)/2) and of Bernoulli((1 - delta)/2), for 0 <= delta < 1:
    T delta ln((1 + delta)/(1 - delta)). Checked to 1e-10 relative, including delta = 1e-9
    (where forming (1 + delta)/(1 - delta) first loses 7 digits) and delta near 1.

    Examples
    --------
    >>> import math
    >>> from rlmlib.book.checkers import check_two_point_kl
    >>> def wrong(delta, T):                      # the small-delta approximation
    ...     return 2 * T * delta ** 2
    >>> try:
    ...     check_two_point_kl(wrong)
    ... except AssertionError as e:
    ...     print(str(e)[:42])
    two_point_kl on input 'delta = 1/2, T = 1'
    """
    _student("two_point_kl", two_point_kl)
    cases = [("delta = 1/2, T = 1", 0.5, 1), ("delta = 0.1, T = 100", 0.1, 100),
             ("delta = 0 (identical coins)", 0.0, 10), ("tiny delta = 1e-9", 1e-9, 1000),
             ("delta = 1e-5, T = 10**12", 1e-5, 10 ** 12),
             ("delta near 1 (1 - 1e-12)", 1 - 1e-12, 3), ("delta = 0.9, T = 7", 0.9, 7)]
    for name, delta, T in cases:
        label = f"'{name}'"
        got = _call("two_point_kl", label, two_point_kl, delta, T)
        expected = _two_point_kl_reference(delta, T)
        if expected == 0.0:
            got = float(_as_real("two_point_kl", got, label).reshape(-1)[0])
            if got != 0.0:
                raise AssertionError(f"two_point_kl on input {label}: got {got!r}, "
                                     "expected 0 (equal coins are indistinguishable)")
            continue
        _compare_vectors("two_point_kl", got, expected, 1e-10, label)
    return f"two_point_kl passed all {len(cases)} inputs (relative error 1e-10)."
