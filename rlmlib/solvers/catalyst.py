"""Catalyst (Lin, Mairal & Harchaoui 2015, 2018) around SAGA: an accelerated
variance-reduced method for σ‖w‖²/2 + mean smooth loss.

The outer loop is Nesterov's extrapolation on the proximal-point map: outer iteration k
minimizes, approximately, the subproblem

    G_k(w) = F(w) + (τ/2)‖w - y_k‖²    (the paper's κ is our τ)

by one pass (m steps) of SAGA warm-started at the current iterate, which gives x_k; then

    y_{k+1} = x_k + b (x_k - x_{k-1}),   b = (1 - √q)/(1 + √q),   q = σ/(σ + τ).

G_k is σ r plus the loss plus (τ/2)‖w - y_k‖² = ((σ+τ)/2)‖w‖² - τ⟨y_k, w⟩ + const, so a
SAGA step on it is a SAGA step on the regularization weight σ + τ whose averaged gradient
ḡ is replaced by h = ḡ - τ y_k: the library's SAGA kernel (``saga.saga_steps``, lazy
updates, O(nnz) per step) runs unchanged on (σ + τ, h), and a new y_k changes h by
τ(y_k - y_{k+1}) in O(n). The table of stored derivatives aᵢ carries over from one
subproblem to the next (the loss part of G_k does not change). With τ = 0 the method is
SAGA itself.
"""
import math

import numpy as np

from ..core.checks import (check_bool, check_int, check_interval, check_positive,
                           sigma_keyword)
from .katyusha import snapshot_gradient
from .saga import saga_catch_up_all, saga_steps
from .vr import accelerated_problem, warn_step_limit


def default_tau(Lmax, sigma, m):
    """The default weight of the proximal term, τ = 10 L_max/(m + 1) - σ, or 0 when that
    is not positive (κ ≲ m/10: acceleration cannot pay, Catalyst is plain SAGA).

    Lin et al. take τ = L_max/(m + 1) - σ for SAGA-type inner methods solved to a
    prescribed accuracy. With the fixed inner budget of one pass, ten times that
    value was the best of τ ∈ {1, 3, 10, 30, 100} · L_max/m in passes to a relative gap of
    1e-6 on 1000 unit-norm rows (n = 200, column scales 1 … 1e-3), squared and logistic
    loss, κ/m from 0.25 to 25: 70 passes against SAGA's 114 at κ/m = 10 (squared), 144
    against more than 300 at κ/m = 25 (logistic), and at most 6 passes more than SAGA
    where κ ≤ m.

    Parameters
    ----------
    Lmax, sigma : float
    m : int

    Returns
    -------
    float

    Examples
    --------
    >>> default_tau(101.0, 1e-3, 100)
    9.999
    >>> default_tau(1.0, 1.0, 100)
    0.0
    """
    return max(0.0, 10.0 * Lmax / (m + 1.0) - sigma)


@sigma_keyword
def catalyst(X, y, *, sigma, epochs=20, loss="logistic", tau=None, inner=None, step=None,
             certify=False, seed=0, order="replacement", n_checkpoints=None, X_test=None,
             y_test=None, progress=False):
    """Catalyst-accelerated SAGA on (σ/2)‖w‖² + mean loss (squared or logistic), dense or
    sparse: one pass of SAGA per outer iteration on F + (τ/2)‖w - y_k‖², then Nesterov's
    extrapolation of the outer iterates.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
    sigma : float > 0
    epochs : int >= 1
        Passes over the data; each pass is one outer iteration.
    loss : {'logistic', 'squared'}
    tau : float >= 0 or None
        Weight τ of the proximal term (the paper's κ). None: 10 L_max/(m + 1) - σ when
        positive, else 0 (then the method is ``rlmlib.saga``), L_max = smoothness ·
        maxᵢ‖xᵢ‖² (``default_tau`` gives the measurement behind the factor 10).
    inner : int >= 1 or None
        SAGA steps per outer iteration; None: m (one pass).
    step : float > 0 or None
        SAGA's step on the subproblems. None: 1/(3 L_max), as ``rlmlib.saga``.
    certify : bool
        False (default): every subproblem gets ``inner`` steps, a fixed budget that no
        theorem of the book covers (the benchmarks measure this rule). True: after every
        ``inner`` steps the residual ‖∇G_k(w)‖ is computed (one pass of gradients, not
        counted in ``epochs``) and the outer iteration ends only once it is at most
        δ_k = (6/π²)(1 - √q)^{1 + k/2} ‖∇F(0)‖/√2/(k + 1)², the tolerance of the book's
        theorem thm-mom-catalyst (μ = σ, D̂ = ‖∇F(0)‖²/(2σ)), which then guarantees
        F(x_k) - F* ≤ 8 (1 - √q)^{k+1} D̂. No effect when τ = 0 (plain SAGA).
    seed : int >= 0
    order : {'replacement', 'reshuffle', 'shuffle_once', 'cyclic'}
    n_checkpoints, X_test, y_test, progress
        As in every solver (DESIGN.md).

    Returns
    -------
    Result
        ``res.w``; ``res.params`` holds ``tau``, ``q`` = σ/(σ + τ), ``extrapolation``
        b = (1 - √q)/(1 + √q), ``step``, ``L_max``, ``certify``. With ``certify=True``
        and τ > 0, ``res.info`` holds ``outer_iterations`` (certified ones),
        ``certificate_passes`` (residuals computed) and ``residual_ratios``
        (‖∇G_k(x_k)‖/δ_k of each certified x_k, all at most 1).

    Raises
    ------
    ValueError
        Bad arguments (named): loss not squared/logistic, tau < 0, step <= 0, ...
    TypeError
        ``lam=`` instead of ``sigma=``.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = np.sign(X[:, 0] + 0.5 * X[:, 1])
    >>> res = rlmlib.catalyst(X, y, sigma=1e-3, epochs=200)
    >>> ref = rlmlib.lbfgs(X, y, sigma=1e-3, loss="logistic", tol=1e-13)
    >>> bool(res.objective - ref.objective < 1e-8 * ref.objective)
    True
    """
    P, Lmax = accelerated_problem("catalyst", X, y, sigma, loss, epochs, seed, order,
                                  n_checkpoints, X_test, y_test, progress)
    sigma, m, n = P.sigma, P.m, P.n
    if tau is None:
        tau = default_tau(Lmax, sigma, m)
    else:
        tau = check_interval("tau", tau, 0.0, math.inf, hi_closed=False)
    if step is None:
        step = 1.0 / (3.0 * Lmax) if Lmax > 0.0 else 1.0
    else:
        step = check_positive("step", step)
        if Lmax > 0.0:
            warn_step_limit("catalyst", step, Lmax, "max_i smoothness * ||x_i||^2",
                            "1/(3 L_max)")
    inner = m if inner is None else check_int("inner", inner)
    certify = check_bool("certify", certify) and tau > 0.0
    q = sigma / (sigma + tau)
    b = (1.0 - math.sqrt(q)) / (1.0 + math.sqrt(q))
    sig_in = sigma + tau
    W = np.zeros((n, 3))  # w, h and last side by side, as in saga
    w, h, last, table = W[:, 0], W[:, 1], W[:, 2], np.zeros(m)
    state = np.array([1.0, 0.0, 0.0])  # saga_steps' [s, cum, t]
    x_prev, y_k = np.zeros(n), np.zeros(n)

    def extrapolate():
        saga_catch_up_all(w, last, h, state, step, sig_in, False)  # w = x_k
        y_new = w + b * (w - x_prev)
        h[:] += tau * (y_k - y_new)  # h = ḡ - τ y  for the new center
        x_prev[:] = w
        y_k[:] = y_new

    grad, derivs, ratios, cert = np.zeros(n), np.zeros(m), [], [0.0, 0]  # √(σD̂), checks

    def certified(rows, yy, ind, ptr):
        """‖∇G_k(w)‖ <= δ_k for the current subproblem k (thm-mom-catalyst)."""
        saga_catch_up_all(w, last, h, state, step, sig_in, False)
        snapshot_gradient(rows.data, ind, ptr, yy, P.code, w, grad, derivs)
        cert[1] += 1
        k = len(ratios)
        delta = (6.0 / math.pi**2 * (1.0 - math.sqrt(q)) ** (1.0 + k / 2.0) * cert[0]
                 / (k + 1.0) ** 2)
        r = float(np.linalg.norm(grad + sig_in * w - tau * y_k))
        if r <= delta:
            ratios.append(r / delta)
            return True
        return False

    def steps(rows, yy, ind, ptr, idx, start, stop, t, look):
        if certify and t == 0:  # w = 0: ‖∇F(0)‖/√2 = √(σ D̂)
            snapshot_gradient(rows.data, ind, ptr, yy, P.code, w, grad, derivs)
            cert[0] = float(np.linalg.norm(grad)) / math.sqrt(2.0)
        while start < stop:  # pieces that end at the outer iterations' boundaries
            if t > 0 and t % inner == 0 and tau > 0.0:
                if not certify or certified(rows, yy, ind, ptr):
                    extrapolate()
            end = min(stop, start + inner - t % inner)
            saga_steps(rows.data, ind, ptr, yy, P.code, step, sig_in, False, w, last, h,
                       table, state, idx, start, end)
            t += end - start
            start = end

    def get_w():
        saga_catch_up_all(w, last, h, state, step, sig_in, False)
        return np.ascontiguousarray(w)  # w is a column of W

    params = {"sigma": sigma, "epochs": P.epochs, "loss": loss, "tau": float(tau),
              "q": q, "extrapolation": b, "step": float(step), "L_max": Lmax,
              "certify": certify, "seed": P.seed, "order": P.order}
    res = P.run(steps, get_w, params, state=lambda: (w, h), copy_rows=False,
                hint=f"step={step:.3g} is too long for these rows (L_max = {Lmax:.3g})")
    if certify:
        res.info.update(outer_iterations=len(ratios), certificate_passes=cert[1],
                        residual_ratios=np.array(ratios))
    return res
