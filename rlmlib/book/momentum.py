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
