"""Literal NumPy transcriptions of the algorithm boxes of the part "Momentum and
acceleration" (heavy ball, Nesterov, their stochastic versions, Catalyst around SAGA) and
the small deterministic experiments of its pages (quadratics, Nesterov's worst function,
the Lessard-Recht-Packard counterexample).

The transcriptions walk one example per Python step: meant for small problems and for
comparing ``rlmlib.sgd_momentum`` and ``rlmlib.catalyst`` with their boxes to rounding.
"""
import math

import numpy as np

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


def catalyst_literal(X, y, sigma, eta, tau, idx, loss="logistic"):
    """Box "Catalyst around SAGA": outer iteration k runs m SAGA steps (the draws
    ``idx[k m:(k+1) m]``) on G_k(w) = F(w) + (τ/2)‖w - y_k‖² from the current w, the
    table of derivatives carried over; then x_k = w and y_{k+1} = x_k + b (x_k - x_{k-1}),
    b = (1 - √q)/(1 + √q), q = σ/(σ + τ).

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta, tau : float
    idx : sequence of int, length a multiple of m
    loss : {'logistic', 'squared'}

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
    m, n = X.shape
    q = sigma / (sigma + tau)
    b = (1.0 - math.sqrt(q)) / (1.0 + math.sqrt(q))
    w, a, gbar = np.zeros(n), np.zeros(m), np.zeros(n)
    x_prev, yk = np.zeros(n), np.zeros(n)
    for t, j in enumerate(idx):
        if t > 0 and t % m == 0:
            yk = w + b * (w - x_prev)
            x_prev = w.copy()
        g = _deriv(loss, X[j] @ w, y[j])
        u = w - eta * ((g - a[j]) * X[j] + gbar)
        w = (u + eta * tau * yk) / (1.0 + eta * (sigma + tau))  # prox of the subproblem
        gbar = gbar + (g - a[j]) * X[j] / m
        a[j] = g
    return w



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


def catalyst_bound_ratio(tau, rho_frac, T=150, seed=0, sign=1.0):
    """Largest ratio, over t = 1..T, of F(x_t) - F* to the outer bound of Catalyst,
    8/(√q - ρ)² (1 - ρ)^{t+1} (F(x_0) - F*), on a ridge problem (m = 60, n = 5,
    σ = 0.01, q = σ/(σ + τ), ρ = rho_frac·√q). Each subproblem
    G_t(x) = F(x) + (τ/2)‖x - y_{t-1}‖² is solved in closed form and its minimizer z_t is
    then moved by the whole allowed error: x_t = z_t + d with G_t(x_t) - min G_t = ε_t =
    (2/9)(F(x_0) - F*)(1 - ρ)^t, d along ``sign``·(z_t - w*) (away from the solution for
    sign = 1). Extrapolation as in Lin et al.'s scheme with α_0 = √q. Gaps are computed as
    quadratic forms in x - w*, never as differences of values (no cancellation).

    Parameters
    ----------
    tau : float > 0
    rho_frac : float in (0, 1)
    T : int
    seed : int
    sign : float, +1 or -1

    Returns
    -------
    float

    Examples
    --------
    >>> catalyst_bound_ratio(1.0, 0.9, T=20) < 1.0
    True
    """
    r = np.random.default_rng(seed)
    m, n, sigma = 60, 5, 0.01
    X = r.standard_normal((m, n)) * np.linspace(0.2, 3.0, n)
    y = X @ r.standard_normal(n) + 0.5 * r.standard_normal(m)
    H = X.T @ X / m + sigma * np.eye(n)
    c = X.T @ y / m
    w_star = np.linalg.solve(H, c)
    q = sigma / (sigma + tau)
    rho = rho_frac * math.sqrt(q)
    gap0 = 0.5 * w_star @ H @ w_star  # x_0 = 0
    Hg = H + tau * np.eye(n)
    x_prev, y_c, alpha, worst = np.zeros(n), np.zeros(n), math.sqrt(q), 0.0
    for t in range(1, T + 1):
        z = np.linalg.solve(Hg, c + tau * y_c)  # exact minimizer of G_t
        eps_t = 2.0 / 9.0 * gap0 * (1.0 - rho) ** t
        d = sign * (z - w_star)
        if not np.any(d):
            d = np.ones(n)
        x = z + d * math.sqrt(2.0 * eps_t / (d @ Hg @ d))
        a2 = alpha * alpha
        alpha_new = 0.5 * (q - a2 + math.sqrt((q - a2) ** 2 + 4.0 * a2))
        y_c = x + alpha * (1.0 - alpha) / (a2 + alpha_new) * (x - x_prev)
        x_prev, alpha = x, alpha_new
        bound = 8.0 / (math.sqrt(q) - rho) ** 2 * (1.0 - rho) ** (t + 1) * gap0
        e = x - w_star
        worst = max(worst, 0.5 * (e @ H @ e) / bound)
    return float(worst)

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
