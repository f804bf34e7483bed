"""The constants of the assumptions page (``chapters/foundations/assumptions.md``): the
constants the page states for the common problem with r = 1/2 ||w||^2, the same constants
estimated by sampling, and the check that compares them from both sides, so that a constant
stated twice too large or twice too small fails (``tests/test_assumptions.py`` shows it).
"""
from __future__ import annotations

import numpy as np

from ..core import losses
from ..core.objective import objective
from ..solvers.reference import lbfgs

#: the sampled supremum must come within this fraction of an upper constant
TIGHT = 0.9
#: relative rounding allowed to the difference quotients (displacements of 1e-4)
ROUNDING = 1e-4
#: losses whose mu is attained by the sampled points (checked from above too)
MU_ATTAINED = ("squared", "logistic")


def term_grads(loss, X, y, w, sigma):
    """The gradients of the m terms f_i(w) = l(<w, x_i>; y_i) + sigma/2 ||w||^2 at w.

    Parameters
    ----------
    loss : str
        One of ``rlmlib.LOSSES`` (a subgradient at a kink).
    X : ndarray of shape (m, n)
    y : ndarray of shape (m,)
    w : ndarray of shape (n,)
    sigma : float

    Returns
    -------
    ndarray of shape (m, n)
        Row i is the gradient of f_i at w.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> term_grads("squared", X, np.array([1.0, 0.0]), np.zeros(2), 0.5)
    array([[-1.,  0.],
           [ 0.,  0.]])
    """
    return losses.deriv(loss, X @ w, y)[:, None] * X + sigma * w


def stated_constants(loss, X, y, sigma):
    """The constants the assumptions page states (prop-as-constants, prop-as-es), and the
    noise at the optimum of the reference solver.

    Parameters
    ----------
    loss : str
        One of ``rlmlib.LOSSES``.
    X : ndarray of shape (m, n)
    y : ndarray of shape (m,)
    sigma : float
        The weight of r = 1/2 ||w||^2.

    Returns
    -------
    dict
        ``G_l``, ``L_l`` (the loss's constants, inf where not finite), ``R2``
        (max ||x_i||^2), ``lam`` (eigenvalues of C), ``L_max``, ``L``, ``mu``, ``es``
        (script L = L_max), ``B`` (radius of the ball of lem-wstar-ball), ``G``
        (G_l R + sigma B); for a differentiable loss also ``w_star``, ``F_star``,
        ``nu2`` and ``grad_F_star`` (the norm of the gradient at the reference minimizer).

    Examples
    --------
    >>> X = np.array([[3.0, 4.0], [1.0, 0.0]])
    >>> c = stated_constants("logistic", X, np.array([1.0, -1.0]), 0.1)
    >>> float(c["L_max"]), c["mu"]
    (6.35, 0.1)
    """
    info = losses.LOSSES[loss]
    m = len(y)
    lam = np.linalg.eigvalsh(X.T @ X / m)
    R2 = float(np.max(np.sum(X ** 2, axis=1)))
    G_l, L_l = info["lipschitz"], info["smoothness"]
    F0 = objective(X, y, np.zeros(X.shape[1]), sigma=sigma, loss=loss)
    c = dict(G_l=G_l, L_l=L_l, R2=R2, lam=lam, F0=F0, B=np.sqrt(2 * F0 / sigma))
    c["L_max"] = L_l * R2 + sigma if np.isfinite(L_l) else np.inf
    c["L"] = L_l * lam[-1] + sigma if np.isfinite(L_l) else np.inf
    c["mu"] = lam[0] + sigma if loss == "squared" else sigma
    c["es"] = c["L_max"]
    c["G"] = G_l * np.sqrt(R2) + sigma * c["B"]
    if loss in losses.SMOOTH:
        ref = lbfgs(X, y, sigma=sigma, loss=loss)
        g = term_grads(loss, X, y, ref.w, sigma)
        c.update(w_star=ref.w, F_star=ref.objective,
                 nu2=float(np.mean(np.sum(g ** 2, axis=1))),
                 grad_F_star=float(np.linalg.norm(g.mean(axis=0))))
    return c


def sampled_constants(loss, X, y, sigma, stated, *, seed=0, n_pairs=200):
    """The same constants estimated by sampling: largest ratios for the upper constants,
    smallest curvature for mu, largest expected-smoothness ratio around w*.

    Parameters
    ----------
    loss : str
        One of ``rlmlib.LOSSES``.
    X : ndarray of shape (m, n)
    y : ndarray of shape (m,)
    sigma : float
    stated : dict
        :func:`stated_constants` of the same problem (for R2 and w*).
    seed : int, default 0
        Seed of the sampled points.
    n_pairs : int, default 200
        Pairs of points per sampled constant.

    Returns
    -------
    dict
        ``G_l``, ``L_l`` always; for a differentiable loss also ``L_max``, ``L``, ``mu``
        and, where ``L_max`` is finite, ``es``.

    Examples
    --------
    >>> X = np.array([[3.0, 4.0], [1.0, 0.0]])
    >>> y = np.array([1.0, -1.0])
    >>> c = stated_constants("squared", X, y, 0.1)
    >>> s = sampled_constants("squared", X, y, 0.1, c, n_pairs=20)
    >>> bool(0.9 * c["L_max"] <= s["L_max"] <= c["L_max"] * (1 + 1e-4))
    True
    """
    rng = np.random.default_rng(seed)
    y0 = 1.0 if losses.LOSSES[loss]["task"] == "binary" else 0.0
    s = {}
    wide = np.linspace(-1e4, 1e4, 20001)                    # sup |l'|
    s["G_l"] = float(np.max(np.abs(losses.deriv(loss, wide, np.full_like(wide, y0)))))
    z = np.linspace(-10, 10, 200001)                        # sup |l''|
    d = losses.deriv(loss, z, np.full_like(z, y0))
    s["L_l"] = float(np.max(np.abs(np.diff(d) / np.diff(z))))
    if loss not in losses.SMOOTH:
        return s
    m, n = X.shape
    R = np.sqrt(stated["R2"])
    i_long = int(np.argmax(np.sum(X ** 2, axis=1)))
    best = 0.0                       # L_max: near 0, half along the longest row
    for k in range(n_pairs):
        w = rng.standard_normal(n) * (1e-3 if k % 2 else 1.0) / R
        step = X[i_long] if k % 4 == 1 else rng.standard_normal(n)
        v = w + 1e-6 * step / np.linalg.norm(step)
        dg = term_grads(loss, X, y, w, sigma) - term_grads(loss, X, y, v, sigma)
        best = max(best, np.max(np.linalg.norm(dg, axis=1)) / np.linalg.norm(w - v))
    s["L_max"] = best
    evecs = np.linalg.eigh(X.T @ X / m)[1]
    hi, lo = 0.0, np.inf             # L and mu: near 0, far away, along eigenvectors
    for k in range(n_pairs // 2):
        # far points (1e5) only where the loss stays representable: the exponential's
        # gradients there are ~1e260 and a difference would be all rounding
        scale = [1e-4, 1.0, 1e5 if loss != "exponential" else 10.0][k % 3]
        w = rng.standard_normal(n) * scale / R
        step = [evecs[:, -1], evecs[:, 0], rng.standard_normal(n)][k % 3 if k < 6 else 2]
        dw = 1e-4 * max(1.0, np.linalg.norm(w)) * step / np.linalg.norm(step)
        dg = (term_grads(loss, X, y, w + dw, sigma)
              - term_grads(loss, X, y, w, sigma)).mean(axis=0)
        hi = max(hi, np.linalg.norm(dg) / np.linalg.norm(dw))
        lo = min(lo, dg @ dw / (dw @ dw))
    s["L"], s["mu"] = hi, lo
    if np.isfinite(stated["L_max"]):   # script L: the ratio at points around w*
        ws = stated["w_star"]
        g_star = term_grads(loss, X, y, ws, sigma)
        best = 0.0
        for k in range(n_pairs // 5):
            w = ws + rng.standard_normal(n) * [1e-2, 1e-1, 1.0, 10.0][k % 4]
            gap = objective(X, y, w, sigma=sigma, loss=loss) - stated["F_star"]
            dg = term_grads(loss, X, y, w, sigma) - g_star
            best = max(best, np.mean(np.sum(dg ** 2, axis=1)) / (2 * gap))
        s["es"] = best
    return s


def check_constants(loss, stated, sampled):
    """Compare the stated constants with the sampled ones.

    An upper constant (G_l, L_l, L_max, L) must bound every sampled ratio and come within
    10 % of the largest, or, if it is infinite, a sampled ratio must exceed 1e3; mu must be
    at most every sampled curvature, and within 10 % of the smallest where it is attained
    (``MU_ATTAINED``); script L must bound the sampled ratios.

    Parameters
    ----------
    loss : str
    stated : dict
        :func:`stated_constants` (possibly altered, to see the check fail).
    sampled : dict
        :func:`sampled_constants`.

    Returns
    -------
    list of str
        The constants that fail, with the two values (empty when all hold).

    Raises
    ------
    KeyError
        When ``stated`` lacks a constant that ``sampled`` has.

    Examples
    --------
    >>> X = np.array([[3.0, 4.0], [1.0, 0.0]])
    >>> y = np.array([1.0, -1.0])
    >>> c = stated_constants("logistic", X, y, 0.1)
    >>> s = sampled_constants("logistic", X, y, 0.1, c, n_pairs=40)
    >>> check_constants("logistic", c, s)
    []
    >>> check_constants("logistic", dict(c, L_max=2 * c["L_max"]), s)[0][:5]
    'L_max'
    """
    bad = []
    for key in ("G_l", "L_l", "L_max", "L"):
        if key not in sampled:
            continue
        st, sa = stated[key], sampled[key]
        ok = (TIGHT * st <= sa <= st * (1 + ROUNDING)) if np.isfinite(st) else sa > 1e3
        if not ok:
            bad.append(f"{key}: stated {st:.6g}, sampled {sa:.6g}")
    if "mu" in sampled:
        st, sa = stated["mu"], sampled["mu"]
        if not (sa >= st * (1 - ROUNDING)
                and (loss not in MU_ATTAINED or sa <= st / TIGHT)):
            bad.append(f"mu: stated {st:.6g}, sampled {sa:.6g}")
    if "es" in sampled and not sampled["es"] <= stated["es"] * (1 + 1e-6):
        bad.append(f"es: stated {stated['es']:.6g}, sampled {sampled['es']:.6g}")
    return bad
