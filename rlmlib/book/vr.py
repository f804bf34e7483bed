"""Literal NumPy transcriptions of the algorithm boxes of the part "Variance reduction"
(SAG, SAGA, SVRG, SDCA), line by line, on dense rows; and the example draws the library
uses, so a page or a test can compare ``rlmlib.<solver>`` with its box to rounding.

These loops are slow (one Python step per example) and meant for small problems.
"""
import math

import numpy as np

from ..solvers.svrg import SAFEGUARD_ULPS


def draws(m, count, order="replacement", seed=0):
    """The first ``count`` example indices that ``rlmlib``'s solvers draw for (m, order,
    seed).

    Parameters
    ----------
    m : int
        Number of examples.
    count : int
        How many draws.
    order : str
        As the solvers' ``order=``.
    seed : int

    Returns
    -------
    numpy.ndarray of int64, shape (count,)

    Examples
    --------
    >>> from rlmlib.book.vr import draws
    >>> sorted(draws(5, 5, order="reshuffle").tolist())
    [0, 1, 2, 3, 4]
    """
    from ..core.order import ExampleStream

    stream = ExampleStream(m, order, seed)
    out = [idx[a:b].astype(np.int64) for idx, a, b in stream.segments(count)]
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def _deriv(loss, z, y):
    """ℓ'(z) for the four losses of the part (y = ±1 for the margin losses)."""
    if loss == "squared":
        return z - y
    if loss == "logistic":
        return -y / (1.0 + math.exp(y * z)) if y * z > -700 else -y
    raise ValueError(f"loss must be 'squared' or 'logistic', got {loss!r}")


def sag_literal(X, y, sigma, eta, idx, loss="logistic"):
    """Box "SAG": g_i <- ℓ'(⟨w, x_i⟩), w <- (1 - ησ) w - (η/m_seen) Σ_j g_j x_j.

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta : float
    idx : sequence of int
        The examples drawn, in order.
    loss : {'logistic', 'squared'}

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.vr import sag_literal
    >>> sag_literal(np.eye(2), np.array([1.0, -1.0]), 0.1, 0.5, [0]).round(4).tolist()
    [0.25, 0.0]
    """
    m, n = X.shape
    w, g, seen = np.zeros(n), np.zeros(m), np.zeros(m, dtype=bool)
    for i in idx:
        g[i] = _deriv(loss, X[i] @ w, y[i])
        seen[i] = True
        w = (1.0 - eta * sigma) * w - eta / seen.sum() * (X.T @ g)
    return w


def saga_literal(X, y, sigma, eta, idx, loss="logistic", penalty="l2"):
    """Box "SAGA": v = (ℓ'(⟨w, x_j⟩) - a_j) x_j + ḡ, w <- prox_{ησr}(w - η v), then the
    table: ḡ <- ḡ + (g - a_j) x_j / m, a_j <- g.

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta : float
    idx : sequence of int
    loss : {'logistic', 'squared'}
    penalty : {'l2', 'l1'}

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.vr import saga_literal
    >>> X, y = np.eye(2), np.array([1.0, -1.0])
    >>> saga_literal(X, y, 1.0, 0.5, [0], penalty="l1").tolist()   # 0.25 <= ησ: zero
    [0.0, 0.0]
    """
    m, n = X.shape
    w, a, gbar = np.zeros(n), np.zeros(m), np.zeros(n)
    for j in idx:
        g = _deriv(loss, X[j] @ w, y[j])
        u = w - eta * ((g - a[j]) * X[j] + gbar)
        if penalty == "l2":
            w = u / (1.0 + eta * sigma)
        else:
            w = np.sign(u) * np.maximum(np.abs(u) - eta * sigma, 0.0)
        gbar = gbar + (g - a[j]) * X[j] / m
        a[j] = g
    return w


def _objective(X, y, w, sigma, loss):
    """F(w) = mean loss + (σ/2)‖w‖², losses 'squared' or 'logistic'."""
    z = X @ w
    vals = np.logaddexp(0.0, -y * z) if loss == "logistic" else 0.5 * (z - y) ** 2
    return float(np.mean(vals) + 0.5 * sigma * (w @ w))


def svrg_literal(X, y, sigma, eta, inner, stages, idx, loss="logistic", snap_steps=None):
    """Box "SVRG": per stage, the snapshot w̃ = w and μ = (1/m) Σ ℓ'(⟨w̃, x_i⟩) x_i, then
    ``inner`` steps w <- (1 - ησ) w - η ((ℓ'(⟨w, x_i⟩) - ℓ'(⟨w̃, x_i⟩)) x_i + μ); with
    ``snap_steps`` (one t per stage, option II) w becomes, after the stage, the iterate
    before its inner step t. Without (option I) the box's safeguard runs first: the
    proposal w is replaced by w̃ - ∇F(w̃)/L_max when F(w) > F(w̃) - ‖∇F(w̃)‖²/(2 L_max)
    + 16u|F(w̃)| (``rlmlib.svrg``'s test and allowance, u = 2^-53).

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta : float
    inner, stages : int
    idx : sequence of int
        At least inner * stages draws, consumed in order.
    loss : {'logistic', 'squared'}
    snap_steps : sequence of int or None
        None: the last inner iterate is the next snapshot (option I).

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.vr import svrg_literal
    >>> X, y = np.eye(2), np.array([1.0, -1.0])
    >>> svrg_literal(X, y, 0.1, 0.5, 1, 1, [0]).round(4).tolist()
    [0.125, -0.125]
    """
    m, n = X.shape
    w = np.zeros(n)
    k = 0
    Lmax = (0.25 if loss == "logistic" else 1.0) * float(np.max(np.sum(X * X, 1))) + sigma
    prev = None  # option I's safeguard: (w~, grad F(w~), F(w~)) of the last snapshot
    for stage in range(stages):
        F = _objective(X, y, w, sigma, loss)
        if prev is not None and not F <= prev[2] - prev[1] @ prev[1] / (2 * Lmax) + \
                SAFEGUARD_ULPS * 2.0 ** -53 * abs(prev[2]):
            w = prev[0] - prev[1] / Lmax  # the gradient step replaces the proposal
            F = _objective(X, y, w, sigma, loss)
        snap = np.array([_deriv(loss, X[i] @ w, y[i]) for i in range(m)])
        mu = X.T @ snap / m
        if snap_steps is None:
            prev = (w, mu + sigma * w, F)
        keep = None
        for t in range(inner):
            if snap_steps is not None and t == snap_steps[stage]:
                keep = w
            i = idx[k]
            k += 1
            d = _deriv(loss, X[i] @ w, y[i]) - snap[i]
            w = (1.0 - eta * sigma) * w - eta * (d * X[i] + mu)
        if keep is not None:
            w = keep
    return w


def lsvrg_literal(X, y, sigma, eta, idx, refresh, loss="logistic"):
    """Box "loopless SVRG": the snapshot w̃ = 0 and μ = (1/m) Σ ℓ'(⟨w̃, x_i⟩) x_i, then for
    k = 0, 1, ...: w <- (1 - ησ) w - η ((ℓ'(⟨w, x_i⟩) - ℓ'(⟨w̃, x_i⟩)) x_i + μ) with
    i = idx[k], and, where k is in ``refresh``, w̃ <- the w this step started from.

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma, eta : float
    idx : sequence of int
        One draw per step, consumed in order; the run has len(idx) steps.
    refresh : collection of int
        The steps whose coin came up (``res.info['snapshot_steps']``).
    loss : {'logistic', 'squared'}

    Returns
    -------
    numpy.ndarray, shape (n,)

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.vr import lsvrg_literal
    >>> X, y = np.eye(2), np.array([1.0, -1.0])
    >>> lsvrg_literal(X, y, 0.1, 0.5, [0], []).round(4).tolist()
    [0.125, -0.125]
    """
    m, n = X.shape
    refresh = set(int(k) for k in refresh)
    w = np.zeros(n)
    snap = np.array([_deriv(loss, X[i] @ w, y[i]) for i in range(m)])
    mu = X.T @ snap / m
    for k, i in enumerate(idx):
        d = _deriv(loss, X[i] @ w, y[i]) - snap[i]
        w_next = (1.0 - eta * sigma) * w - eta * (d * X[i] + mu)
        if k in refresh:                       # the coin: w̃ <- w_k, after this step
            snap = np.array([_deriv(loss, X[j] @ w, y[j]) for j in range(m)])
            mu = X.T @ snap / m
        w = w_next
    return w


def sdca_literal(X, y, sigma, idx, loss="hinge", newton=12):
    """Box "SDCA": maximize the dual over coordinate i, then w <- w + Δα x_i/(σm).

    Parameters
    ----------
    X : numpy.ndarray, shape (m, n)
    y : numpy.ndarray, shape (m,)
    sigma : float
    idx : sequence of int
    loss : {'hinge', 'squared_hinge', 'logistic', 'squared'}
    newton : int
        Newton steps on the log-odds (logistic).

    Returns
    -------
    (w, alpha) : numpy.ndarray, numpy.ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.vr import sdca_literal
    >>> w, a = sdca_literal(np.eye(2), np.array([1.0, -1.0]), 1.0, [0, 1])
    >>> w.tolist(), a.tolist()
    ([0.5, -0.5], [1.0, -1.0])
    """
    m, n = X.shape
    q = (X * X).sum(axis=1) / (sigma * m)
    alpha = np.zeros(m)
    if loss == "logistic":
        alpha = 1e-15 * y
    w = X.T @ alpha / (sigma * m)
    for i in idx:
        z, b = X[i] @ w, alpha[i] * y[i]
        if loss == "hinge":
            new = y[i] * min(max(b + (1 - y[i] * z) / q[i], 0.0), 1.0)
        elif loss == "squared_hinge":
            new = y[i] * max(b + (1 - y[i] * z - b) / (1 + q[i]), 0.0)
        elif loss == "squared":
            new = alpha[i] + (y[i] - z - alpha[i]) / (1 + q[i])
        else:  # root of log((1-b)/b) - y z - q (b - β) in the log-odds u
            yz, lo, hi = y[i] * z, -y[i] * z - q[i], -y[i] * z + q[i]
            u = math.log(b / (1 - b))
            u = u if lo <= u <= hi else (lo + hi) / 2
            for _ in range(newton):
                s = 1 / (1 + math.exp(-u))
                g = -u - yz - q[i] * (s - b)
                lo, hi = (u, hi) if g > 0 else (lo, u)
                nu = u + g / (1 + q[i] * s * (1 - s))
                nu = nu if lo <= nu <= hi else (lo + hi) / 2
                done = abs(nu - u) <= 1e-15 * max(1.0, abs(u))
                u = nu
                if done:
                    break
            new = y[i] * min(max(1 / (1 + math.exp(-u)), 1e-15), 1 - 1e-15)
        w = w + (new - alpha[i]) * X[i] / (sigma * m)
        alpha[i] = new
    return w, alpha


METHODS = ("sgd", "sag", "saga", "svrg", "sdca")


def gap_curves(X, y, sigma, epochs, *, methods=METHODS, loss="logistic", seed=0,
               F_star=None, **options):
    """Relative gap (F − F*)/F* against passes and seconds for each method, one checkpoint
    per pass (SVRG: per stage), default hyperparameters.

    Parameters
    ----------
    X, y : data
    sigma : float
    epochs : int
        Passes over the data.
    methods : sequence of str
        Registered solver names.
    loss : str
    seed : int
    F_star : float or None
        The optimum; None: ``rlmlib.lbfgs`` to tol 1e-13.
    **options
        Per-method keyword arguments, e.g. ``svrg={"inner": 100}``.

    Returns
    -------
    dict
        name -> dict(epoch, seconds, gap, result); plus 'F_star'.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.vr import gap_curves
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 4)); y = np.sign(X[:, 0])
    >>> c = gap_curves(X, y, 0.1, 20, methods=("saga", "sdca"))
    >>> bool(c["saga"]["gap"][-1] < 1e-8 and c["sdca"]["gap"][-1] < 1e-8)
    True
    """
    import rlmlib

    if F_star is None:
        F_star = rlmlib.lbfgs(X, y, sigma=sigma, loss=loss, tol=1e-13).objective
    out = {"F_star": F_star}
    for name in methods:
        res = rlmlib.SOLVERS[name](X, y, sigma=sigma, epochs=epochs, loss=loss, seed=seed,
                                   n_checkpoints=epochs, **options.get(name, {}))
        tr = res.trace
        gap = np.maximum((tr.objective - F_star) / abs(F_star), 1e-16)
        out[name] = {"epoch": tr.epoch, "seconds": tr.seconds, "gap": gap, "result": res}
    return out


def linear_rate(epoch, gap, lo=1e-12, hi=1e-2):
    """The measured contraction per pass: 10 to the least-squares slope of log10(gap)
    against passes, over the checkpoints with lo < gap < hi (NaN with fewer than 3).

    Parameters
    ----------
    epoch, gap : numpy.ndarray
    lo, hi : float

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.vr import linear_rate
    >>> e = np.arange(10.0)
    >>> round(linear_rate(e, 0.5 ** e), 6)
    0.5
    """
    keep = (gap > lo) & (gap < hi)
    if keep.sum() < 3:
        return float("nan")
    slope = np.polyfit(epoch[keep], np.log10(gap[keep]), 1)[0]
    return float(10.0 ** slope)


def theory_rates(X, sigma, m_in=None, loss="logistic"):
    """Contraction per pass that the theorems of the part guarantee for the library's
    defaults (logistic or squared loss, R² = max‖xᵢ‖², L = loss smoothness · R²):
    SAGA (Defazio et al., η = 1/(3L)): (1 − min(1/(4m), σ/(3L)))^m; SDCA (Shalev-Shwartz
    and Zhang, γ = 1/loss smoothness): (1 − s/m)^m, s = σmγ/(R² + σmγ); SVRG's default
    (option I with the safeguard, the book's thm-vr-svrg-guard, any step): (1 −
    σ/L_max)^(m/(m + m_in)), gradient descent's factor per stage of 1 + m_in/m passes; SAG
    (Schmidt et al., η = 1/(16L)): (1 − min(σ/(16L), 1/(8m)))^m, a step the library's
    default 1/L_max exceeds. NaN where no theorem covers the defaults. And 'lsvrg', the
    factor of thm-vr-lsvrg per expected pass for the call ``svrg(snapshot='loopless',
    step=1/(5 L_max), inner=m)`` (L_max = L + σ; a step costs 2/m passes in expectation):
    (1 − min(σ/(5 L_max), 1/(3m)))^(m/2).

    Parameters
    ----------
    X : array or sparse matrix
    sigma : float
    m_in : int or None
        SVRG's inner length (None: no SVRG factor).
    loss : {'logistic', 'squared'}

    Returns
    -------
    dict
        method -> factor per pass.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.vr import theory_rates
    >>> r = theory_rates(np.eye(4), 1.0)
    >>> 0 < r["saga"] < 1 and 0 < r["sdca"] < 1
    True
    """
    sq = X.multiply(X).sum(axis=1) if hasattr(X, "multiply") else (X * X).sum(axis=1)
    R2 = float(np.max(sq))
    m = X.shape[0]
    lsm = 0.25 if loss == "logistic" else 1.0
    L = lsm * R2
    out = {"sgd": float("nan")}
    out["saga"] = (1 - min(1 / (4 * m), sigma / (3 * L))) ** m
    out["sag"] = (1 - min(sigma / (16 * (L + sigma)), 1 / (8 * m))) ** m
    gamma = 1 / lsm
    s = sigma * m * gamma / (R2 + sigma * m * gamma)
    out["sdca"] = (1 - s / m) ** m
    out["lsvrg"] = (1 - min(sigma / (5 * (L + sigma)), 1 / (3 * m))) ** (m / 2)
    out["svrg"] = float("nan")
    if m_in:  # thm-vr-svrg-guard: 1 - mu/L_max per stage of 1 + m_in/m passes, mu = sigma
        out["svrg"] = (1 - sigma / (L + sigma)) ** (m / (m + m_in))
    return out
