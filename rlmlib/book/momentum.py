"""Literal NumPy transcriptions of the algorithm boxes of the part "Momentum and
acceleration" (heavy ball, Nesterov, their stochastic versions, Catalyst around SAGA) and
the small deterministic experiments of its pages (quadratics, Nesterov's worst function,
the Lessard-Recht-Packard counterexample).

The transcriptions walk one example per Python step: meant for small problems and for
comparing ``rlmlib.sgd_momentum`` and ``rlmlib.catalyst`` with their boxes to rounding.
"""
import math

import numpy as np
from scipy.special import expit

from .vr import _deriv


def sgd_momentum_literal(X, y, sigma, eta, beta, idx, loss="logistic", nesterov=False):
    """Box "SGD with momentum": g = ℓ'(⟨w, x_j⟩) x_j + σ w, v <- βv + g, then
    w <- w - ηv (heavy ball) or w <- w - η(g + βv) (Nesterov).

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta, beta : float
    idx : sequence of int
        The examples, in the order drawn (``rlmlib.book.vr.draws``).
    loss : {'logistic', 'squared'}
    nesterov : bool

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.eye(2), np.array([1.0, -1.0])
    >>> sgd_momentum_literal(X, y, 0.0, 1.0, 0.5, [0, 0], loss="squared").tolist()
    [1.5, 0.0]
    """
    w, v = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for j in idx:
        g = _deriv(loss, X[j] @ w, y[j]) * X[j] + sigma * w
        v = beta * v + g
        w = w - eta * (g + beta * v) if nesterov else w - eta * v
    return w


def averaged_sgd_literal(X, y, sigma, eta, beta, idx, loss="logistic"):
    """Heavy ball written as SGD with the rescaled step γ = η/(1 - β) on an auxiliary
    sequence z, the gradient taken at a running average w of the z's:

        z <- z - γ ∇f_j(w),   w <- β w + (1 - β) z.

    Equal to ``sgd_momentum_literal(..., nesterov=False)`` in exact arithmetic (the
    part proves it).

    Parameters
    ----------
    X, y, sigma, eta, beta, idx, loss
        As ``sgd_momentum_literal`` (heavy ball only).

    Returns
    -------
    numpy.ndarray, shape (n,)
        The last w.

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.eye(2), np.array([1.0, -1.0])
    >>> averaged_sgd_literal(X, y, 0.0, 1.0, 0.5, [0, 0], loss="squared").tolist()
    [1.5, 0.0]
    """
    gamma = eta / (1.0 - beta)
    w, z = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    for j in idx:
        z = z - gamma * (_deriv(loss, X[j] @ w, y[j]) * X[j] + sigma * w)
        w = beta * w + (1.0 - beta) * z
    return w


def catalyst_literal(X, y, sigma, eta, tau, idx, loss="logistic", certify=False):
    """Box "Catalyst around SAGA": outer iteration k runs m SAGA steps (the draws
    ``idx[k m:(k+1) m]``) on G_k(w) = F(w) + (τ/2)‖w - y_k‖² from the current w, the
    table of derivatives carried over; then x_k = w and y_{k+1} = x_k + b (x_k - x_{k-1}),
    b = (1 - √q)/(1 + √q), q = σ/(σ + τ). With ``certify`` (as
    ``rlmlib.catalyst(certify=True)``) an outer iteration ends after a multiple of m
    steps only once ‖∇G_k(w)‖ ≤ δ_k (``catalyst_residuals``); until then SAGA goes on
    with the same centre y_k.

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta, tau : float
    idx : sequence of int, length a multiple of m
    loss : {'logistic', 'squared'}
    certify : bool

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.eye(2), np.array([1.0, -1.0])
    >>> w = catalyst_literal(X, y, 0.1, 0.2, 0.0, [0, 1], loss="squared")
    >>> [round(v, 6) for v in w.tolist()]
    [0.290273, -0.196078]
    """
    w = np.zeros(X.shape[1])
    for w, *_ in _catalyst_outer(X, y, sigma, eta, tau, idx, loss, certify, certify):
        pass
    return w


def _catalyst_outer(X, y, sigma, eta, tau, idx, loss, certify=False, residuals=True):
    """The box of ``catalyst_literal``. Yields (w, y_k, ‖∇G_k(w)‖, δ_k, ended) after every
    m steps and at the end of ``idx``; ``ended``: w ends outer iteration k (x_k = w).
    ``residuals=False`` (only without ``certify``): ‖∇G_k(w)‖ and δ_k are not computed
    (None)."""
    m, n = X.shape
    q = sigma / (sigma + tau)
    b = (1.0 - math.sqrt(q)) / (1.0 + math.sqrt(q))

    def grad_F(w):
        z = X @ w
        d = z - y if loss == "squared" else -y * expit(-y * z)  # ℓ'(z), vectorized
        return X.T @ d / m + sigma * w

    root = np.linalg.norm(grad_F(np.zeros(n))) / math.sqrt(2.0) if residuals else 0.0
    w, a, gbar = np.zeros(n), np.zeros(m), np.zeros(n)
    x_prev, yk, k = np.zeros(n), np.zeros(n), 0

    def check(w, yk, k):
        if not residuals:
            return None, None, tau > 0
        r = np.linalg.norm(grad_F(w) + tau * (w - yk))
        delta = 6 / math.pi**2 * (1 - math.sqrt(q)) ** (1 + k / 2) * root / (k + 1) ** 2
        return r, delta, (not certify or r <= delta) and tau > 0

    for t, j in enumerate(idx):
        if t > 0 and t % m == 0:
            r, delta, ended = check(w, yk, k)
            yield w, yk, r, delta, ended
            if ended:
                yk = w + b * (w - x_prev)
                x_prev, k = w.copy(), k + 1
        g = _deriv(loss, X[j] @ w, y[j])
        u = w - eta * ((g - a[j]) * X[j] + gbar)
        w = (u + eta * tau * yk) / (1.0 + eta * (sigma + tau))  # prox of the subproblem
        gbar = gbar + (g - a[j]) * X[j] / m
        a[j] = g
    if len(idx):
        r, delta, ended = check(w, yk, k)
        yield w, yk, r, delta, ended and not certify


def catalyst_residuals(X, y, sigma, eta, tau, idx, loss="logistic", certify=False):
    """The outer iterates x_k of the box "Catalyst around SAGA" (``catalyst_literal``),
    their residuals ‖∇G_k(x_k)‖ and the tolerances δ_k of the book's theorem
    thm-mom-catalyst, δ_k = (6/π²)(1 - √q)^{1 + k/2} √(σ D̂)/(k + 1)² with
    D̂ = ‖∇F(0)‖²/(2σ) ≥ F(0) - F* (strong convexity with μ = σ).

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta, tau : float
        τ > 0.
    idx : sequence of int, length a multiple of m
    loss : {'logistic', 'squared'}
    certify : bool
        False: one pass per outer iteration (the default of ``rlmlib.catalyst``);
        True: passes until the residual is within δ_k.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray)
        ‖∇G_k(x_k)‖, δ_k and the x_k (rows) for k = 0, 1, ...

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.eye(2), np.array([1.0, -1.0])
    >>> r, d, xs = catalyst_residuals(X, y, 0.1, 0.2, 1.0, [0, 1, 1, 0], loss="squared")
    >>> r.shape, xs.shape, bool(d[1] < d[0])
    ((2,), (2, 2), True)
    """
    out = [(r, d, w) for w, _, r, d, ended in
           _catalyst_outer(X, y, sigma, eta, tau, idx, loss, certify) if ended]
    res, tol, xs = zip(*out) if out else ((), (), ())
    return np.array(res), np.array(tol), np.array(xs).reshape(len(out), X.shape[1])


def katyusha_literal(X, y, sigma, inner, idx, loss="logistic"):
    """Box "Katyusha": stages of ``inner`` steps (the draws ``idx``, length a multiple of
    ``inner``), each after a snapshot x̃ with full loss gradient μ̃; a step forms
    x = τ₁z + τ₂x̃ + (1 - τ₁ - τ₂)y, g = μ̃ + (ℓ'(⟨x, x_j⟩) - ℓ'(⟨x̃, x_j⟩)) x_j,
    z ← (z - αg)/(1 + ασ), y ← (3Lx - g)/(3L + σ); the next x̃ is the average of the
    stage's y weighted by (1 + ασ)^j. τ₂ = 1/2, τ₁ = min(√(inner σ/(3L)), 1/2),
    α = 1/(3τ₁L), L = L_max of the loss part.

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma : float
    inner : int
    idx : sequence of int
    loss : {'logistic', 'squared'}

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> w = katyusha_literal(np.eye(2), np.array([1.0, -1.0]), 0.1, 2, [0, 1],
    ...                      loss="squared")
    >>> [round(v, 6) for v in w.tolist()]
    [0.257061, -0.225137]
    """
    m, n = X.shape
    L = (1.0 if loss == "squared" else 0.25) * float((X * X).sum(axis=1).max())
    tau1 = min(math.sqrt(inner * sigma / (3.0 * L)), 0.5)
    tau2, alpha = 0.5, 1.0 / (3.0 * tau1 * L)
    xt, z, yv = np.zeros(n), np.zeros(n), np.zeros(n)
    for s0 in range(0, len(idx), inner):
        d_snap = np.array([_deriv(loss, X[i] @ xt, y[i]) for i in range(m)])
        mu = X.T @ d_snap / m
        acc, wsum = np.zeros(n), 0.0
        for j, i in enumerate(idx[s0:s0 + inner]):
            x = tau1 * z + tau2 * xt + (1.0 - tau1 - tau2) * yv
            g = mu + (_deriv(loss, X[i] @ x, y[i]) - d_snap[i]) * X[i]
            z = (z - alpha * g) / (1.0 + alpha * sigma)
            yv = (3.0 * L * x - g) / (3.0 * L + sigma)
            acc = acc + (1.0 + alpha * sigma) ** j * yv
            wsum += (1.0 + alpha * sigma) ** j
        xt = acc / wsum
    return xt


def katyusha_lazy_maps(L, sigma, alpha, tau1, tau2):
    """The affine map a coordinate k outside the drawn row follows in one step of
    Katyusha (box "Katyusha"), on s = (z_k, y_k, B_k) with B the stage's running sum
    B_j = B_{j-1}/θ + y_j (θ = 1 + ασ; the snapshot is then B_{J-1}/Σ_{i<J} θ^{-i}):
    s ← M s + μ̃_k u + x̃_k v, since there g_k = μ̃_k.

    Parameters
    ----------
    L, sigma, alpha, tau1, tau2 : float
        The box's L̂, σ, α, τ₁, τ₂.

    Returns
    -------
    tuple of numpy.ndarray
        M (3 x 3), u and v (3,).

    Examples
    --------
    >>> M, u, v = katyusha_lazy_maps(1.0, 0.0, 1.0, 0.5, 0.5)   # σ = 0: θ = 1
    >>> M.tolist()
    [[1.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.5, 0.0, 1.0]]
    """
    theta = 1.0 + alpha * sigma
    a = 1.0 - tau1 - tau2
    d = 3.0 * L + sigma
    yz, yy, yx, yc = 3.0 * L * tau1 / d, 3.0 * L * a / d, 3.0 * L * tau2 / d, -1.0 / d
    M = np.array([[1.0 / theta, 0.0, 0.0], [yz, yy, 0.0], [yz, yy, 1.0 / theta]])
    u = np.array([-alpha / theta, yc, yc])
    v = np.array([0.0, yx, yx])
    return M, u, v


def katyusha_lazy_literal(X, y, sigma, inner, idx, loss="logistic"):
    """Box "Katyusha" with lazy coordinates: a coordinate is brought up to date only when
    a drawn row reads it (and every coordinate at the end of a stage), by the t-th power
    of the map of ``katyusha_lazy_maps``: s ← M^t s + (Σ_{r<t} M^r)(μ̃_k u + x̃_k v).
    Returns the same x̃ as ``katyusha_literal`` (to rounding) and the number of
    coordinate updates it made (row reads plus end-of-stage catch-ups), against
    ``inner``·n per stage for the dense box.

    Parameters
    ----------
    X, y, sigma, inner, idx, loss
        As ``katyusha_literal``; X may be a scipy.sparse matrix.

    Returns
    -------
    tuple
        (x̃, number of coordinate updates)

    Examples
    --------
    >>> import numpy as np
    >>> X, y = np.eye(2), np.array([1.0, -1.0])
    >>> w, ops = katyusha_lazy_literal(X, y, 0.1, 2, [0, 1], loss="squared")
    >>> [round(v, 6) for v in w.tolist()], ops     # = katyusha_literal's, 2 + 2 updates
    ([0.257061, -0.225137], 4)
    """
    import scipy.sparse as sp

    Xs = sp.csr_matrix(X)
    m, n = Xs.shape
    Xd = Xs.toarray()
    L = (1.0 if loss == "squared" else 0.25) * float(Xs.multiply(Xs).sum(axis=1).max())
    tau1 = min(math.sqrt(inner * sigma / (3.0 * L)), 0.5)
    tau2, alpha = 0.5, 1.0 / (3.0 * tau1 * L)
    a = 1.0 - tau1 - tau2
    theta = 1.0 + alpha * sigma
    M, u, v = katyusha_lazy_maps(L, sigma, alpha, tau1, tau2)
    powers, sums = [np.eye(3)], [np.zeros((3, 3))]
    for _ in range(inner):
        sums.append(sums[-1] + powers[-1])
        powers.append(M @ powers[-1])
    xt, z, yv = np.zeros(n), np.zeros(n), np.zeros(n)
    ops = 0
    for s0 in range(0, len(idx), inner):
        d_snap = np.array([_deriv(loss, Xd[i] @ xt, y[i]) for i in range(m)])
        mu = Xd.T @ d_snap / m
        B, last = np.zeros(n), np.zeros(n, dtype=np.int64)

        def catch_up(cols, t):
            for k in cols:
                d = t - last[k]
                if d:
                    s = powers[d] @ np.array([z[k], yv[k], B[k]]) + sums[d] @ (
                        mu[k] * u + xt[k] * v)
                    z[k], yv[k], B[k] = s
                    last[k] = t

        for j, i in enumerate(idx[s0:s0 + inner]):
            cols = Xs.indices[Xs.indptr[i]:Xs.indptr[i + 1]]
            vals = Xs.data[Xs.indptr[i]:Xs.indptr[i + 1]]
            catch_up(cols, j)
            xr = tau1 * z[cols] + tau2 * xt[cols] + a * yv[cols]
            c = _deriv(loss, vals @ xr, y[i]) - d_snap[i]
            g = mu[cols] + c * vals
            z_new = (z[cols] - alpha * g) / theta
            y_new = (3.0 * L * xr - g) / (3.0 * L + sigma)
            z[cols], yv[cols] = z_new, y_new
            B[cols] = B[cols] / theta + y_new
            last[cols] = j + 1
            ops += len(cols)
        catch_up(range(n), inner)
        ops += n
        xt = B / sum(theta ** -i for i in range(inner))
    return xt, ops


def katyusha_stage(J, s, rate=1.0):
    """The constants of the proof of Katyusha's rate for J steps per stage and the ratio
    s = Jσ/L̂ (L̂ = L_max of the loss part): τ₁ = min(√(s/3), ½), a = 1 − τ₁ − ½,
    ασ = 2s/(3J) when τ₁ = ½ and τ₁/J otherwise, θ = 1 + rate·ασ (rate = 1: the
    algorithm's weight), W = Σ_{j<J} θ^j, the per-stage factor ρ (θ^{-J} when
    s ≤ ¾, 2/3 otherwise) and the constant C = 1 + (a + τ₁/(ασ))/(½W) of the theorem.

    Parameters
    ----------
    J : int >= 1
    s : float > 0
    rate : float
        Multiplies ασ in θ (1 in the proof; 2 is the "rate claimed twice too fast").

    Returns
    -------
    dict
        ``tau1``, ``a``, ``alpha_sigma``, ``theta``, ``W``, ``rho``, ``C``.

    Examples
    --------
    >>> k = katyusha_stage(2, 0.75)          # τ₁ = ½ exactly: the boundary case
    >>> k["tau1"], round(k["alpha_sigma"], 6)
    (0.5, 0.25)
    """
    tau1 = min(math.sqrt(s / 3.0), 0.5)
    a = 0.5 - tau1
    # α = 1/(3τ₁L̂), so ασ = σ/(3τ₁L̂) = s/(3τ₁J)
    alpha_sigma = s / (3.0 * tau1 * J)
    theta = 1.0 + rate * alpha_sigma
    W = float(sum(theta ** j for j in range(J)))
    rho = theta ** (-J) if s <= 0.75 else 2.0 / 3.0
    C = 1.0 + (a + tau1 / alpha_sigma) / (0.5 * W)
    return {"tau1": tau1, "a": a, "alpha_sigma": alpha_sigma, "theta": theta, "W": W,
            "rho": rho, "C": C}


def _katyusha_ridge(m, n, sigma, seed):
    r = np.random.default_rng(seed)
    X = r.standard_normal((m, n))
    X /= np.linalg.norm(X, axis=1, keepdims=True)       # L̂ = 1 (squared loss)
    y = r.standard_normal(m)
    H = X.T @ X / m + sigma * np.eye(n)
    w_star = np.linalg.solve(H, X.T @ y / m)
    return X, y, H, w_star


def check_katyusha_proof(seed=0, *, variance=2.0, tau2=0.5, rate=1.0, stage2=1.5,
                         constant=4.0):
    """The proof of Katyusha's rate (the page's theorem), step by step.

    (i) The variance bound E‖g − ∇ℓ̄(u)‖² ≤ variance·L̂·B (B the Bregman gap of ℓ̄ between
    x̃ and u) on M = 20 orthogonal unit rows with x̃ − u along one row, where its ratio to
    2L̂B is 1 − 1/M (and on random logistic instances). (ii) The negative momentum absorbs
    the variance: τ₂ ≥ variance/4. (iii) The stage inequality 1 − aθ ≥ τ₂θ^J on a grid of
    J ≥ 2 and s = Jσ/L̂ ≤ ¾ (tight to first order in τ₁, so a θ with 2ασ fails), and
    min(1/τ₂, θ^J) ≥ stage2 for s > ¾. (iv) The theorem's constant C ≤ ``constant`` on
    the grid. (v) Exactly in expectation (all m^J draw sequences, m = 3, J = 6) on ridge
    instances in both cases: one stage contracts the Lyapunov function
    Φ = (α/τ₁)(τ₂W D(x̃) + a D(y)) + ½‖z − w*‖² by ρ, and one stage from 0 gives
    E D(x̃₁) ≤ C ρ D(0), D = F − F*.

    Parameters
    ----------
    seed : int
        Seed of the random states.
    variance, tau2, rate, stage2, constant : float
        The proof's constants (2, ½, 1, 3/2, 4).

    Returns
    -------
    dict
        ``var_ratio`` (max of (i)'s ratio to 2L̂B), ``stage_margin`` (min of
        1 − aθ − τ₂θ^J), ``C_max``, ``phi_ratio`` (max E Φ₊/(ρΦ)), ``run_ratio`` (max
        E D(x̃₁)/(CρD(0))).

    Raises
    ------
    AssertionError
        When a step fails with the constants given.

    Examples
    --------
    >>> r = check_katyusha_proof()
    >>> 0.9 < r["var_ratio"] <= 1 and r["phi_ratio"] <= 1
    True
    """
    rng = np.random.default_rng(seed)
    # (i) variance of the estimate against the Bregman gap of the loss part
    M = 20
    X = np.eye(M)                               # ℓ_i(w) = ½⟨x_i, w⟩², L̂ = 1
    var_ratio = 0.0
    for trial in range(20):
        u = rng.standard_normal(M) * (trial > 0)
        xt = u + X[trial % M] * rng.uniform(0.5, 2.0)
        A = (X @ u)[:, None] * X - (X @ xt)[:, None] * X      # ∇ℓ_i(u) − ∇ℓ_i(x̃)
        var = np.mean(np.sum((A - A.mean(0)) ** 2, axis=1))
        d = xt - u
        B = 0.5 * np.mean((X @ d) ** 2)        # Bregman gap of ℓ̄ = ½ mean ⟨x_i, ·⟩²
        assert var <= variance * 1.0 * B * (1 + 1e-12), (var, B)
        var_ratio = max(var_ratio, float(var / (2.0 * B)))
    for trial in range(10):                     # logistic rows: L̂ = ¼ max‖x_i‖²
        Xl = rng.standard_normal((15, 4))
        yl = np.sign(rng.standard_normal(15))
        Lh = 0.25 * float((Xl * Xl).sum(1).max())
        u, xt = rng.standard_normal(4), rng.standard_normal(4)

        def lbar(w):
            return float(np.mean(np.logaddexp(0.0, -yl * (Xl @ w))))

        def grads(w):
            return (-yl / (1.0 + np.exp(yl * (Xl @ w))))[:, None] * Xl

        A = grads(u) - grads(xt)
        var = np.mean(np.sum((A - A.mean(0)) ** 2, axis=1))
        B = lbar(xt) - lbar(u) - grads(u).mean(0) @ (xt - u)
        assert var <= variance * Lh * B * (1 + 1e-9), (var, B)
    # (ii) the negative momentum absorbs the variance term (α/τ₁)·variance·L̂B/(4L̂)
    assert tau2 >= variance / 4.0, (tau2, variance)
    # (iii) the stage inequality, (iv) the constant
    margin, C_max = math.inf, 0.0
    for J in (2, 3, 4, 6, 10, 100, 10_000):
        for s in np.concatenate([np.geomspace(1e-6, 0.75, 40), [0.76, 1.0, 10.0, 1e3]]):
            k = katyusha_stage(J, float(s), rate)
            if s <= 0.75:
                th = k["theta"]
                gap = 1.0 - (1.0 - k["tau1"] - tau2) * th - tau2 * th**J
                assert gap >= -1e-15, (J, s, gap)
                margin = min(margin, gap)
            else:
                assert min(1.0 / tau2, k["theta"] ** J) >= stage2, (J, s)
            C_max = max(C_max, k["C"])
    assert C_max <= constant, C_max
    # (v) one stage exactly in expectation: every sequence of J = 2m draws
    m, n, J = 3, 2, 6
    paths = np.array(np.unravel_index(np.arange(m ** J), (m,) * J)).T     # (m^J, J)
    phi_ratio, run_ratio = 0.0, 0.0
    for sigma in (1e-3, 0.02, 0.3):             # s = Jσ/L̂ = 0.006, 0.12, 1.8
        X, y, H, w_star = _katyusha_ridge(m, n, sigma, seed)
        k = katyusha_stage(J, J * sigma)
        tau1, a = k["tau1"], k["a"]
        alpha = 1.0 / (3.0 * tau1)
        theta = 1.0 + alpha * sigma
        W = k["W"]
        rho = katyusha_stage(J, J * sigma, rate)["rho"]

        def D(w):                               # F(w) − F*, a quadratic form in w − w*
            e = w - w_star
            return 0.5 * np.einsum("...i,ij,...j->...", e, H, e)

        def phi(xt, yv, z):
            return (alpha / tau1) * (tau2 * W * D(xt) + a * D(yv)) + 0.5 * np.sum(
                (z - w_star) ** 2, axis=-1)

        for trial in range(4):
            if trial == 0:
                xt0, y0, z0 = np.zeros(n), np.zeros(n), np.zeros(n)
            else:
                xt0, y0, z0 = (w_star + rng.standard_normal(n) for _ in range(3))
            mu = X.T @ (X @ xt0 - y) / m        # full loss gradient at the snapshot
            P = paths.shape[0]
            z, yv = np.tile(z0, (P, 1)), np.tile(y0, (P, 1))
            acc = np.zeros((P, n))
            for j in range(J):
                i = paths[:, j]
                x = tau1 * z + tau2 * xt0 + (1.0 - tau1 - tau2) * yv
                xi = X[i]
                g = mu + (np.sum(xi * x, 1) - xi @ xt0)[:, None] * xi
                z = (z - alpha * g) / theta
                yv = (3.0 * x - g) / (3.0 + sigma)
                acc += theta ** j * yv
            xt1 = acc / W
            e_phi = float(np.mean(phi(xt1, yv, z)))
            ratio = e_phi / (rho * float(phi(xt0, y0, z0)))
            assert ratio <= 1.0 + 1e-12, (sigma, trial, ratio)
            phi_ratio = max(phi_ratio, ratio)
            if trial == 0:
                r1 = float(np.mean(D(xt1))) / (k["C"] * rho * float(D(xt0)))
                assert r1 <= 1.0 + 1e-12, (sigma, r1)
                run_ratio = max(run_ratio, r1)
    return {"var_ratio": var_ratio, "stage_margin": float(margin),
            "C_max": float(C_max), "phi_ratio": phi_ratio, "run_ratio": run_ratio}


# ------------------------------------------------ deterministic methods (first page)
def heavy_ball(grad, w0, eta, beta, T):
    """Box "Heavy ball": w_{t+1} = w_t - η ∇F(w_t) + β (w_t - w_{t-1}), w_{-1} = w_0.

    Parameters
    ----------
    grad : callable, w -> ∇F(w)
    w0 : numpy.ndarray
    eta, beta : float
    T : int
        Number of steps.

    Returns
    -------
    numpy.ndarray, shape (T + 1, n)
        The iterates w_0 … w_T.

    Examples
    --------
    >>> import numpy as np
    >>> W = heavy_ball(lambda w: w, np.array([1.0]), 0.5, 0.25, 2)
    >>> W[:, 0].tolist()
    [1.0, 0.5, 0.125]
    """
    W = np.empty((T + 1, np.size(w0)))
    W[0] = w = prev = np.asarray(w0, dtype=float)
    for t in range(T):
        w, prev = w - eta * grad(w) + beta * (w - prev), w
        W[t + 1] = w
    return W


def nesterov(grad, w0, L, mu, T):
    """Box "Nesterov's method": y_t = w_t + β(w_t - w_{t-1}), w_{t+1} = y_t - ∇F(y_t)/L,
    with β = (√Q - 1)/(√Q + 1), Q = L/μ, when μ > 0; for μ = 0 the sequence
    A_t = t²/4 of the convex case (y_t = (A_t w_t + a_t z_t)/A_{t+1},
    z_{t+1} = z_t - (a_t/L) ∇F(y_t), a_t = A_{t+1} - A_t).

    Returns
    -------
    numpy.ndarray, shape (T + 1, n)
        The iterates w_0 … w_T.

    Parameters
    ----------
    grad : callable, w -> ∇F(w)
    w0 : numpy.ndarray
    L, mu : float
        Smoothness and strong convexity (mu = 0: the convex method).
    T : int
        Number of iterations.

    Examples
    --------
    >>> import numpy as np
    >>> W = nesterov(lambda w: 4.0 * w, np.array([1.0]), 4.0, 4.0, 1)   # Q = 1
    >>> W[:, 0].tolist()
    [1.0, 0.0]
    """
    W = np.empty((T + 1, np.size(w0)))
    W[0] = w = prev = z = np.asarray(w0, dtype=float)
    beta = (math.sqrt(L / mu) - 1.0) / (math.sqrt(L / mu) + 1.0) if mu > 0 else None
    for t in range(T):
        if beta is not None:
            yv = w + beta * (w - prev)
            w, prev = yv - grad(yv) / L, w
        else:
            A, A1 = t * t / 4.0, (t + 1) * (t + 1) / 4.0
            yv = (A * w + (A1 - A) * z) / A1
            g = grad(yv)
            w, z = yv - g / L, z - (A1 - A) / L * g
        W[t + 1] = w
    return W


def heavy_ball_radius(eta, beta, eigs):
    """Spectral radius of heavy ball's iteration matrix on a quadratic with Hessian
    eigenvalues ``eigs``: the largest modulus of a root of z² - (1 + β - ηλ) z + β.

    Parameters
    ----------
    eta, beta : float
        Step and momentum.
    eigs : array-like
        Eigenvalues of the Hessian.

    Returns
    -------
    float

    Examples
    --------
    >>> round(heavy_ball_radius(1 / 9, 4 / 9, [1.0, 25.0]), 12)   # (√Q-1)/(√Q+1), Q = 25
    0.666666666667
    """
    out = 0.0
    for lam in np.atleast_1d(eigs):
        out = max(out, float(np.abs(np.roots([1.0, -(1.0 + beta - eta * lam), beta])).max()))
    return out


def polyak_parameters(L, mu):
    """Polyak's heavy-ball parameters for a quadratic with spectrum in [μ, L]:
    η = 4/(√L + √μ)², β = ((√Q - 1)/(√Q + 1))².

    Parameters
    ----------
    L, mu : float
        Largest and smallest eigenvalue, 0 < mu <= L.

    Returns
    -------
    (float, float)
        (η, β).

    Examples
    --------
    >>> polyak_parameters(25.0, 1.0)
    (0.1111111111111111, 0.4444444444444444)
    """
    r = (math.sqrt(L / mu) - 1.0) / (math.sqrt(L / mu) + 1.0)
    return 4.0 / (math.sqrt(L) + math.sqrt(mu)) ** 2, r * r


def lrp_function(x):
    """Lessard, Recht and Packard's one-dimensional counterexample (μ = 1, L = 25):
    25x²/2 for x < 1, x²/2 + 24x - 12 on [1, 2), 25x²/2 - 24x + 36 for x >= 2; returns
    (value, derivative).

    Parameters
    ----------
    x : float

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> lrp_function(1.0), lrp_function(2.0)
    ((12.5, 25.0), (38.0, 26.0))
    """
    x = float(x)
    if x < 1.0:
        return 12.5 * x * x, 25.0 * x
    if x < 2.0:
        return 0.5 * x * x + 24.0 * x - 12.0, x + 24.0
    return 12.5 * x * x - 24.0 * x + 36.0, 25.0 * x - 24.0


def worst_function(n, L, mu):
    """Nesterov's worst quadratic in n dimensions for the class (μ, L):
    F(w) = (L - μ)/8 (wᵀAw - 2 w_1) + (μ/2)‖w‖², A tridiagonal (2 on the diagonal, -1 off).
    Returns (H, b) with F(w) = ½ wᵀHw - bᵀw.

    Parameters
    ----------
    n : int
        Dimension.
    L, mu : float

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        H of shape (n, n) and b of shape (n,).

    Examples
    --------
    >>> H, b = worst_function(3, 10.0, 2.0)
    >>> H.tolist(), b.tolist()
    ([[6.0, -2.0, 0.0], [-2.0, 6.0, -2.0], [0.0, -2.0, 6.0]], [2.0, 0.0, 0.0])
    """
    A = 2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    b = np.zeros(n)
    b[0] = (L - mu) / 4.0
    return (L - mu) / 4.0 * A + mu * np.eye(n), b


# --------------------------------------------------- stochastic momentum (second page)
def heavy_ball_floor(eta, beta, h, s2):
    """Stationary mean square E w² of heavy ball on the one-dimensional quadratic
    f_i(w) = h(w - b_i)²/2 with E b_i = 0, E (h b_i)² = s2 (gradient noise s2 at the
    optimum): η s2 (1 + β) / (h (1 - β)(2(1 + β) - ηh)), for 0 <= β < 1 and
    0 < ηh < 2(1 + β).

    Parameters
    ----------
    eta, beta : float
        Step and momentum.
    h : float
        Curvature of every term.
    s2 : float
        Variance of the gradient at the optimum.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Outside the stable range.

    Examples
    --------
    >>> round(heavy_ball_floor(0.1, 0.0, 1.0, 1.0), 12)   # SGD: η s2 / (h (2 - ηh))
    0.052631578947
    """
    if not (0.0 <= beta < 1.0 and 0.0 < eta * h < 2.0 * (1.0 + beta)):
        raise ValueError(f"heavy_ball_floor needs 0 <= beta < 1 and 0 < eta h < 2(1 + "
                         f"beta), got eta={eta!r}, beta={beta!r}, h={h!r}")
    return eta * s2 * (1.0 + beta) / (h * (1.0 - beta) * (2.0 * (1.0 + beta) - eta * h))


def minibatch_noise_floor(X, y, sigma, eta, beta, k, relative=False):
    """Heavy ball's stationary gap E F(w) - F* under mini-batch noise on the ridge problem
    F(w) = (1/2m)‖Xw - y‖² + (σ/2)‖w‖², in the additive-noise model: the gradient noise is
    taken as its value at w* (mini-batches of k rows drawn with replacement, covariance
    S = (1/(km)) Σ_i ∇f_i(w*)∇f_i(w*)ᵀ), and each eigen-direction λ of the Hessian H
    contributes (λ/2)·``heavy_ball_floor``(η, β, λ, uᵀSu). The noise that grows with
    w - w* (the mini-batch Hessian) is left out, so the measured floor lies above this.

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta, beta : float
    k : int
        Mini-batch size.
    relative : bool
        Divide by F(0) - F* (the units of ``heavy_ball_minibatch``'s gaps).

    Returns
    -------
    float
        The floor, or ``inf`` when ηλ ≥ 2(1 + β) for some λ, up to a relative 1e-9 (no
        stationary state; at the limit itself, e.g. β = 0 and η = 2/L, the floor is
        infinite).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [1.0]]); y = np.array([1.0, -1.0])   # H = 1, S = 1/k
    >>> minibatch_noise_floor(X, y, 0.0, 0.1, 0.0, 1) == 0.5 * heavy_ball_floor(
    ...     0.1, 0.0, 1.0, 1.0)
    True
    """
    m, n = X.shape
    H = X.T @ X / m + sigma * np.eye(n)
    lam, U = np.linalg.eigh(H)
    w_star = np.linalg.solve(H, X.T @ y / m)
    G = X * (X @ w_star - y)[:, None] + sigma * w_star     # ∇f_i(w*), mean zero
    s2 = np.sum((G @ U) ** 2, axis=0) / (m * k)             # uᵀSu for every eigenvector
    if np.any(eta * lam >= 2.0 * (1.0 + beta) * (1.0 - 1e-9)):   # at the limit, too
        return math.inf
    floor = float(sum(0.5 * l * heavy_ball_floor(eta, beta, l, s)
                      for l, s in zip(lam, s2) if s > 0.0))
    return floor / (0.5 * w_star @ H @ w_star) if relative else floor


def heavy_ball_minibatch(X, y, sigma, eta, beta, k, T, seed=0):
    """Heavy ball with mini-batch gradients on the ridge problem of
    ``minibatch_noise_floor``: v ← βv + g, w ← w - ηv from w = v = 0, g the gradient of
    k rows drawn with replacement; returns the relative gaps (F(w_t) - F*)/(F(0) - F*),
    t = 0..T, as quadratic forms in w - w* (no cancellation). A run whose gap passes
    1e12 stops there (the rest of the array is ``inf``): it has diverged.

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta, beta : float
    k, T : int
        Mini-batch size and number of steps.
    seed : int
        Seed of the draws.

    Returns
    -------
    numpy.ndarray, shape (T + 1,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [1.0]]); y = np.array([1.0, 1.0])  # no noise, w* = 1/2
    >>> g = heavy_ball_minibatch(X, y, 1.0, 0.5, 0.0, 1, 3)      # H = 2: e <- 0 at once
    >>> g.tolist()
    [1.0, 0.0, 0.0, 0.0]
    """
    m, n = X.shape
    H = X.T @ X / m + sigma * np.eye(n)
    w_star = np.linalg.solve(H, X.T @ y / m)
    gap0 = 0.5 * w_star @ H @ w_star
    idx = np.random.default_rng(seed).integers(0, m, size=(T, k))
    w, v = np.zeros(n), np.zeros(n)
    out = np.full(T + 1, math.inf)
    out[0] = 1.0
    for t in range(T):
        B = idx[t]
        g = X[B].T @ (X[B] @ w - y[B]) / k + sigma * w
        v = beta * v + g
        w = w - eta * v
        e = w - w_star
        out[t + 1] = 0.5 * (e @ H @ e) / gap0
        if not out[t + 1] <= 1e12:
            out[t + 1] = math.inf
            break
    return out


def mean_rate_per_pass(X, sigma, eta, beta, m=None):
    """The factor per pass by which heavy ball's *mean* iterates approach w* on the ridge
    problem (squared loss, sampling with replacement: E w_t follows heavy ball on F):
    ρ^m, ρ the spectral radius of the iteration on H = XᵀX/m + σI (``heavy_ball_radius``).
    The gap, quadratic in the error, falls by about its square, ρ^(2m).

    Parameters
    ----------
    X : array-like, shape (m, n)
    sigma, eta, beta : float
    m : int or None
        Steps per pass (default: the number of rows).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> round(mean_rate_per_pass(np.eye(2), 0.0, 1.0, 0.0), 12)   # H = I/2, ρ = 1/2, m = 2
    0.25
    """
    X = np.asarray(X, dtype=float)
    m = X.shape[0] if m is None else m
    eigs = np.linalg.eigvalsh(X.T @ X / X.shape[0]) + sigma
    return heavy_ball_radius(eta, beta, eigs) ** m
