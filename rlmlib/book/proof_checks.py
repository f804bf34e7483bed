"""Numerical checks of the rate proofs of the theory, variance-reduction, momentum and
distributed parts.

Each function runs one proof's chain of (in)equalities on an instance where that chain is
an equality or nearly one, with the proof's constants passed as keyword arguments, and
raises ``AssertionError`` when a step fails. With the proof's constants every check passes;
``tests/test_proof_checks.py`` runs each one with a constant off by a factor 2 and asserts
that it fails. Final bounds that carry slack on every instance (a rate's constant that no
instance attains within a factor 2) are checked as inequalities, and the sensitive part of
the check is the proof's identity in which the same constants appear.

The instance of the averaging proofs is the exact one-dimensional quadratic
F(w) = (μ/2) w² with stochastic gradient g = μ w (1 + ζ) − ξ, where ζ and ξ are independent
of each other and of the past, E ζ = E ξ = 0, E ζ² = τ², E ξ² = ν*² (τ = 0: additive
noise): then E⟨g_t, w_t − w*⟩ = μ a_t, E F(w_t) − F* = μ a_t / 2,
E g_t² = (1 + τ²) μ² a_t + ν*², and the mean square distance a_t = E|w_t − w*|² follows
a_{t+1} = a_t − 2 η_t μ a_t + η_t² E g_t² exactly.
"""

import numpy as np
from numba import njit

__all__ = ["quadratic_moments", "check_weighted_average", "check_suffix_average",
           "check_saga_proof", "check_lsvrg_proof", "check_svrg_proof",
           "check_svrg_last_proof", "check_svrg_guard_proof",
           "ridge_terms", "check_reshuffling_proof",
           "check_last_iterate", "sparse_instance", "conflict_fraction",
           "delayed_sgd", "hogwild_constant", "check_hogwild_proof",
           "check_catalyst_proof", "check_catalyst_count"]


def quadratic_moments(mu, nu2, a1, etas, tau2=0.0):
    """Exact moments of SGD on F(w) = (μ/2) w² with the noise of the module docstring.

    Parameters
    ----------
    mu : float
        Curvature μ > 0.
    nu2 : float
        Noise at the optimum ν*² ≥ 0.
    a1 : float
        E|w_1 − w*|² ≥ 0.
    etas : array of float
        Steps η_1, …, η_T.
    tau2 : float
        Variance τ² ≥ 0 of the multiplicative noise.

    Returns
    -------
    a : ndarray, shape (T + 1,)
        a_1, …, a_{T+1}.
    g2 : ndarray, shape (T,)
        E g_t² = (1 + τ²) μ² a_t + ν*² for t = 1, …, T.

    Raises
    ------
    ValueError
        Never for finite inputs (the recursion is evaluated as given); listed for the
        numpydoc contract.

    Examples
    --------
    >>> a, g2 = quadratic_moments(1.0, 0.0, 4.0, [0.5])
    >>> float(a[1]), float(g2[0])
    (1.0, 4.0)
    """
    etas = np.asarray(etas, dtype=float)
    a = np.empty(len(etas) + 1)
    a[0] = a1
    for t, eta in enumerate(etas):
        g2 = (1 + tau2) * mu**2 * a[t] + nu2
        a[t + 1] = a[t] - 2 * eta * mu * a[t] + eta**2 * g2
    return a, (1 + tau2) * mu**2 * a[:-1] + nu2


def check_weighted_average(mu, nu2, a1, T, tau2=0.0, *, telescope=0.25, noise=1.0,
                           bound=2.0):
    """The proof of the weighted-average theorem (steps 2/(μ(t + 1)), weights t).

    The proof's summed inequality Σ t h_t ≤ telescope·μ[0·a_1 − T(T+1) a_{T+1}]
    + noise·Σ t E g_t²/(μ(t+1)) is an identity on the quadratic; it is asserted to
    relative rounding, then the theorem's bound (weighted mean of h_t) ≤ bound·G²/(μ(T+1))
    with G² = max_t E g_t², and the proof's own bounds composed (the noise sum at most
    noise·T G²/μ, divided by T(T + 1)/2, fits under it only if bound ≥ 2·noise): the
    weighted gap is below half the bound here, so that is the step a halved bound fails.

    Parameters
    ----------
    mu, nu2, a1, T, tau2 : float, float, float, int, float
        The instance (module docstring), a_1 and the horizon.
    telescope, noise, bound : float
        The proof's constants (1/4, 1, 2).

    Returns
    -------
    dict
        ``lhs``, ``rhs`` of the identity, ``weighted`` mean gap and ``bound``.

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_weighted_average(0.5, 1.0, 4.0, 100)
    >>> r["weighted"] <= r["bound"]
    True
    """
    t = np.arange(1, T + 1)
    a, g2 = quadratic_moments(mu, nu2, a1, 2 / (mu * (t + 1)), tau2)
    h = mu * a[:-1] / 2
    lhs = float(np.sum(t * h))
    rhs = float(-telescope * mu * T * (T + 1) * a[-1]
                + noise * np.sum(t * g2 / (mu * (t + 1))))
    assert abs(lhs - rhs) <= 1e-10 * max(abs(lhs), abs(rhs)), (lhs, rhs)
    weighted = lhs / (T * (T + 1) / 2)
    G2 = float(g2.max())
    b = bound * G2 / (mu * (T + 1))
    # the proof's own bounds composed: dropping the telescoped term and t/(t + 1) <= 1
    # leave noise·T G²/μ, divided by T(T + 1)/2; on this instance the weighted gap is
    # below half the bound, so this is the step that fails when the bound is halved
    composed = noise * T * G2 / mu / (T * (T + 1) / 2)
    assert composed <= b * (1 + 1e-12), (composed, b)
    assert weighted <= b, (weighted, b)
    return {"lhs": lhs, "rhs": rhs, "weighted": weighted, "bound": b}


def check_suffix_average(mu, nu2, a1, T, theta, tau2=0.0, *, telescope=0.5, noise=0.5,
                         lemma=2.0, constant=2.0):
    """The proof of the suffix-average theorem (steps 1/(μt), average of t > T_0 = θT).

    Asserts (i) the proof's lemma a_t ≤ lemma·G²/(μ² t) for every t; (ii) the summed
    identity Σ_{t>T_0} h_t = telescope·μ(T_0 a_{T_0+1} − T a_{T+1})
    + noise·Σ_{t>T_0} E g_t²/(μ t), exact on the quadratic; (iii) the theorem's bound
    G²(constant + ln(1/θ))/(2μ(1 − θ)T); (iv) the proof's own bounds composed: the
    lemma's base case μ² a_t ≤ G² gives its claim at t ≤ 2 only if lemma ≥ 2, and the
    telescoped term bounded by the lemma plus the noise sum fit under (iii) only if
    constant ≥ telescope·2·lemma·T_0/(T_0 + 1). On the page's instance the gap is far
    below the bound, so (iv) is what fails when the lemma's or the theorem's 2 is halved.

    Parameters
    ----------
    mu, nu2, a1, T, tau2 : float, float, float, int, float
        The instance (module docstring), a_1 and the horizon.
    theta : float
        The fraction not averaged; θT is rounded down to T_0.
    telescope, noise, lemma, constant : float
        The proof's constants (1/2, 1/2, 2, 2).

    Returns
    -------
    dict
        ``lhs``, ``rhs``, the ``suffix`` mean gap, the ``bound`` and the largest
        ``lemma_ratio`` μ² t a_t / G².

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.
    ValueError
        If θT does not lie in [1, T).

    Examples
    --------
    >>> r = check_suffix_average(0.5, 1.0, 4.0, 1000, 0.5, tau2=1.0)
    >>> r["suffix"] <= r["bound"]
    True
    """
    t = np.arange(1, T + 1)
    a, g2 = quadratic_moments(mu, nu2, a1, 1 / (mu * t), tau2)
    G2 = float(g2.max())
    lemma_ratio = float(np.max(mu**2 * t * a[:-1] / G2))
    assert lemma_ratio <= lemma, lemma_ratio
    # the lemma's proof: mu^2 a_t <= G^2 at every t, which is the claim for t <= 2 only
    # if lemma >= 2 (here the ratio stays below 1, so this is the step that fails when
    # the lemma's constant is halved); its induction step needs t + 1 <= lemma (t + 2)
    assert float(np.max(mu**2 * a[:-1])) <= G2 * (1 + 1e-12)
    assert 1 <= lemma / 2 and all(s + 1 <= lemma * (s + 2) for s in range(2, T))
    T0 = int(theta * T)
    if not 1 <= T0 < T:
        raise ValueError(f"theta * T must lie in [1, T), got theta={theta!r}, T={T!r}")
    h = mu * a[:-1] / 2
    lhs = float(np.sum(h[T0:]))
    rhs = float(telescope * mu * (T0 * a[T0] - T * a[T])
                + noise * np.sum(g2[T0:] / (mu * t[T0:])))
    assert abs(lhs - rhs) <= 1e-10 * max(abs(lhs), abs(rhs)), (lhs, rhs)
    suffix = lhs / (T - T0)
    b = float(G2 * (constant + np.log(T / T0)) / (2 * mu * (T - T0)))
    # the proof's own bounds composed: telescope·mu·T_0·(lemma G²/(mu² (T_0 + 1))) plus
    # noise·(G²/mu) ln(T/T_0) must fit under G² (constant + ln(T/T_0))/(2 mu); the gap
    # itself is far below the bound, so this is the step that fails when it is halved
    composed = (telescope * mu * T0 * lemma * G2 / (mu**2 * (T0 + 1))
                + noise * G2 / mu * np.log(T / T0))
    assert composed <= b * (T - T0) * (1 + 1e-12), (composed, b * (T - T0))
    assert suffix <= b, (suffix, b)
    return {"lhs": lhs, "rhs": rhs, "suffix": suffix, "bound": b,
            "lemma_ratio": lemma_ratio}


def _memory_proof_steps(seed, coco, var, m, mu, refresh):
    """Steps (i)-(iii) shared by the SAGA and loopless SVRG proofs (see
    :func:`check_saga_proof`), on orthogonal unit rows; ``refresh(A, dev, H, D)`` returns
    (E H_+ computed from the update rule, E H_+ claimed by the proof)."""
    rng = np.random.default_rng(seed)
    X = np.eye(m)                                  # orthogonal unit rows, w* = 0
    Lmax = 1.0 + mu

    def grads(w):                                  # the m gradients of f_i (rows)
        return (X @ w)[:, None] * X + mu * w

    coco_ratio, var_ratio = 0.0, 0.0
    for trial in range(50):
        e = X[trial % m] + 0.1 * rng.standard_normal(m) * (trial >= m)
        D = np.mean(np.sum(grads(e) ** 2, axis=1))             # Δ at w = w* + e
        gap = 0.5 * (np.mean((X @ e) ** 2) + mu * e @ e)       # F(w) − F*, F* = 0
        assert D <= coco * Lmax * gap * (1 + 1e-12), (D, gap)
        coco_ratio = max(coco_ratio, float(D / (2 * Lmax * gap)))
        # a memory whose stored deviations oppose the new gradient differences
        A = grads(e)                                   # ∇f_j(w) − ∇f_j(w*), w* = 0
        dev = -A + A.mean(0) + 0.05 * rng.standard_normal(A.shape)
        H = np.mean(np.sum(dev**2, axis=1))
        V = A - (dev - dev.mean(0))                    # v − ∇F(w*) for each draw j
        Ev2 = np.mean(np.sum(V**2, axis=1))
        assert Ev2 <= var * (D + H) * (1 + 1e-12), (Ev2, D, H)
        var_ratio = max(var_ratio, float(Ev2 / (2 * (D + H))))
        EH, claim = refresh(A, dev, H, D)
        assert abs(EH - claim) <= 1e-12 * max(H, D), (EH, claim)
    return Lmax, coco_ratio, var_ratio


def _memory_proof_coefficients(Lmax, mu, eta, c, p, rate_w, rate_h):
    """Step (iv): with E H_+ = (1 − p) H + p Δ, the coefficient of F − F* once
    Δ ≤ 2 L_max (F − F*), (2η² + c p)·2L_max − 2η, is ≤ 0; that of H, 2η² + c(1 − p), is
    ≤ c(1 − p/rate_h); and the distance contracts by 1 − ημ ≤ 1 − μ/(rate_w L_max)."""
    fcoef = (2 * eta**2 + c * p) * 2 * Lmax - 2 * eta
    assert fcoef <= 1e-15 * eta, fcoef
    hcoef = 2 * eta**2 + c * (1 - p)
    assert hcoef <= c * (1 - p / rate_h) * (1 + 1e-12), (hcoef, c)
    assert mu / (rate_w * Lmax) <= eta * mu * (1 + 1e-12), (eta, rate_w)
    return float(fcoef), float(hcoef)


def check_saga_proof(seed=0, *, coco=2.0, var=2.0, a=5.0, b=3.0, rate_w=5.0, rate_h=3.0,
                     m=8, mu=1e-3):
    """The steps of the proof of SAGA's contraction, each on an instance where it is tight.

    On ridge terms f_i(w) = ½(⟨w, x_i⟩)² + (μ/2)‖w‖² with orthogonal rows of unit norm
    (L_max = 1 + μ): (i) co-coercivity Δ ≤ coco·L_max (F(w) − F*), Δ the mean square of
    ∇f_i(w) − ∇f_i(w*), tight along a row; (ii) E‖v‖² ≤ var·(Δ + H) for a table whose
    deviations oppose the new gradients; (iii) E H_+ = (1 − 1/m) H + Δ/m exactly; (iv) the
    proof's coefficients at η = 1/(a L_max), c = b m η²: the Δ and F − F* terms cancel or
    are negative, the H coefficient is at most c(1 − 1/(rate_h m)), and the distance
    contracts by 1 − ημ ≤ 1 − μ/(rate_w L_max): the theorem's rate
    1 − min(μ/(rate_w L_max), 1/(rate_h m)).

    Parameters
    ----------
    seed : int
        Seed of the random states.
    coco, var, a, b, rate_w, rate_h : float
        The proof's constants (2, 2, 5, 3, 5, 3).
    m : int
        Number of terms (orthogonal unit rows, so m is also the dimension).
    mu : float
        The regularization, μ = σ.

    Returns
    -------
    dict
        ``coco_ratio`` = max Δ / (2 L_max (F − F*)), ``var_ratio`` = max E‖v‖²/(2(Δ + H)),
        ``fcoef`` and ``hcoef`` of step (iv).

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_saga_proof()
    >>> 0.5 < r["coco_ratio"] <= 1 and 0.5 < r["var_ratio"] <= 1
    True
    """
    def refresh(A, dev, H, D):  # table entry j replaced by the new gradient w.p. 1/m
        EH = np.mean([H + (np.sum(A[j] ** 2) - np.sum(dev[j] ** 2)) / m
                      for j in range(m)])
        return EH, (1 - 1 / m) * H + D / m

    Lmax, coco_ratio, var_ratio = _memory_proof_steps(seed, coco, var, m, mu, refresh)
    eta = 1 / (a * Lmax)
    fcoef, hcoef = _memory_proof_coefficients(Lmax, mu, eta, b * m * eta**2, 1 / m,
                                              rate_w, rate_h)
    return {"coco_ratio": coco_ratio, "var_ratio": var_ratio, "fcoef": fcoef,
            "hcoef": hcoef}


def check_lsvrg_proof(seed=0, *, coco=2.0, var=2.0, a=5.0, b=3.0, rate_w=5.0, rate_h=3.0,
                      m=8, p=0.25, mu=1e-3):
    """The steps of the proof of loopless SVRG's contraction (the book's thm-vr-lsvrg),
    each on an instance where it is tight: steps (i) and (ii) of :func:`check_saga_proof`
    with the snapshot's deviations in place of the table's; (iii) the coin: with
    probability p every stored gradient is replaced by the new one, so
    E H_+ = (1 − p) H + p Δ exactly; (iv) the proof's coefficients at η = 1/(a L_max),
    c = b η²/p: the rate 1 − min(μ/(rate_w L_max), p/rate_h).

    Parameters
    ----------
    seed : int
        Seed of the random states.
    coco, var, a, b, rate_w, rate_h : float
        The proof's constants (2, 2, 5, 3, 5, 3).
    m : int
        Number of terms (orthogonal unit rows).
    p : float in (0, 1]
        The coin's probability.
    mu : float
        The regularization, μ = σ.

    Returns
    -------
    dict
        As :func:`check_saga_proof`.

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.
    ValueError
        When p is not in (0, 1].

    Examples
    --------
    >>> r = check_lsvrg_proof(p=0.1)
    >>> abs(r["fcoef"]) < 1e-12 < r["hcoef"]    # the F − F* terms cancel at η = 1/(5L_max)
    True
    """
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p!r}")

    def refresh(A, dev, H, D):  # heads: the whole memory is the gradients at w
        heads = np.mean(np.sum(A**2, axis=1))
        return p * heads + (1 - p) * H, (1 - p) * H + p * D

    Lmax, coco_ratio, var_ratio = _memory_proof_steps(seed, coco, var, m, mu, refresh)
    eta = 1 / (a * Lmax)
    fcoef, hcoef = _memory_proof_coefficients(Lmax, mu, eta, b * eta**2 / p, p, rate_w,
                                              rate_h)
    return {"coco_ratio": coco_ratio, "var_ratio": var_ratio, "fcoef": fcoef,
            "hcoef": hcoef}


def _stage_second_moments(Hs, eta, et, inner):
    """E e_t e_tᵀ, t = 0, ..., inner, of one SVRG stage on quadratic terms with Hessians
    Hs (w* = 0, w_0 = w̃, ẽ = et): e+ = (I − ηH_i)e + η(H_i − H)ẽ is linear in (e, ẽ),
    so the second moments follow exactly (C = E e ẽᵀ, P = ẽẽᵀ)."""
    H = Hs.mean(0)
    A = [np.eye(len(et)) - eta * Hi for Hi in Hs]
    B = [eta * (Hi - H) for Hi in Hs]
    M, C, P = np.outer(et, et), np.outer(et, et), np.outer(et, et)
    out = [M]
    for _ in range(inner):
        M = np.mean([Ai @ M @ Ai.T + Ai @ C @ Bi.T + Bi @ C.T @ Ai.T + Bi @ P @ Bi.T
                     for Ai, Bi in zip(A, B)], axis=0)
        C = np.mean([Ai @ C + Bi @ P for Ai, Bi in zip(A, B)], axis=0)
        out.append(M)
    return out


def _svrg_variance_step(rng, var, m, mu, smooth=0.5):
    """SVRG's variance bound E‖v‖² ≤ var·L_max·(D + D̃) and D̃ ≤ smooth·L‖w̃ − w*‖² on
    ridge terms with m orthogonal unit rows (see :func:`check_svrg_last_proof`); returns
    the largest ratios to the proof's constants (4 and 1/2)."""
    X = np.eye(m)
    Lmax, L = 1.0 + mu, 1.0 / m + mu
    Hs = np.array([np.outer(x, x) + mu * np.eye(m) for x in X])   # the Hessians
    H = Hs.mean(0)

    def gap(e):
        return 0.5 * e @ H @ e

    var_ratio, smooth_ratio = 0.0, 0.0
    for trial in range(40):
        a = X[trial % m] * (1 + rng.random())
        e, et = (a, -a) if trial < m else (rng.standard_normal(m), rng.standard_normal(m))
        V = (Hs @ (e - et)) + H @ et                  # v for each draw i (w* = 0)
        Ev2 = np.mean(np.sum(V**2, axis=1))
        bound = var * Lmax * (gap(e) + gap(et))
        assert Ev2 <= bound * (1 + 1e-12), (Ev2, bound)
        var_ratio = max(var_ratio, float(Ev2 / (4 * Lmax * (gap(e) + gap(et)))))
        assert gap(et) <= smooth * L * (et @ et) * (1 + 1e-12), (gap(et), L)
        smooth_ratio = max(smooth_ratio, float(gap(et) / (0.5 * L * (et @ et))))
    return var_ratio, smooth_ratio


def check_svrg_proof(seed=0, *, var=4.0, convex=1.0, sc=2.0, a=1.0, b=2.0, c=2.0,
                     step_c=4.0):
    """The steps of the proof of Johnson and Zhang's factor per stage (option II, the
    book's thm-vr-svrg), ρ = a/(μη(1 − cL_max η)m_in) + bL_max η/(1 − cL_max η) for
    η < 1/(step_c L_max), each on an instance where it is tight.

    (i) E‖v‖² ≤ var·L_max(D + D̃) (shared with :func:`check_svrg_last_proof`, tight on
    ridge terms with w − w* = −(w̃ − w*) along a row); (ii) convexity in the form
    ⟨∇F(w), w − w*⟩ ≥ convex·(F(w) − F*), nearly an equality for the logistic loss
    where it is nearly linear (one term, y = 1, σ = 1e-6, w far below w*); (iii)
    ‖w̃ − w*‖² ≤ (sc/μ)(F(w̃) − F*), an equality along the Hessian's eigenvector of
    eigenvalue μ (ridge); (iv) the proof's own bounds composed: summing
    ‖e_{t+1}‖² ≤ ‖e_t‖² − η(2·convex − var·L_max η)D_t + var·L_max η² D̃ over the stage
    and using (iii) gives sc/(μη(2·convex − var·L_max η)m_in) + var·L_max η/(2·convex −
    var·L_max η), which must be at most the stated ρ on a grid of (μ, η, m_in), with
    the second term below 1 for every η < 1/(step_c L_max) on the grid; (v) the theorem
    on the exact second moments of a stage on 4 orthogonal ridge rows (μ = 0.1,
    η = 0.1/L_max, m_in = 300; E of the snapshot's gap = the mean over t of E D_t).

    Parameters
    ----------
    seed : int
        Seed of the random states of (i).
    var, convex, sc : float
        The constants of steps (i)-(iii) (4, 1, 2).
    a, b, c, step_c : float
        The theorem's constants (1, 2, 2) and its step condition η < 1/(4 L_max).

    Returns
    -------
    dict
        ``var_ratio``, ``convex_ratio`` = max (F − F*)/⟨∇F, w − w*⟩,
        ``sc_ratio`` = max μ‖w̃ − w*‖²/(2(F(w̃) − F*)), ``stage_ratio`` = (v)'s
        left side over its right, ``factor`` = (v)'s ρ.

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_svrg_proof()
    >>> r["convex_ratio"] > 0.98 and r["stage_ratio"] <= 1 and r["factor"] < 1
    True
    """
    rng = np.random.default_rng(seed)
    var_ratio, _ = _svrg_variance_step(rng, var, 40, 1e-4)
    # (ii) one logistic term, y = 1, sigma = 1e-6: w* solves sgm(-w) = sigma w
    sig = 1e-6
    F = lambda w: np.logaddexp(0.0, -w) + 0.5 * sig * w * w      # noqa: E731
    dF = lambda w: -1.0 / (1.0 + np.exp(w)) + sig * w             # noqa: E731
    lo, hi = 0.0, 100.0
    for _ in range(200):                                          # bisection on dF
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if dF(mid) < 0 else (lo, mid)
    ws = 0.5 * (lo + hi)
    w = ws - np.geomspace(1.0, 1e3, 400)
    ratios = (F(w) - F(ws)) / (dF(w) * (w - ws))
    assert np.all(convex * (F(w) - F(ws)) <= dF(w) * (w - ws) * (1 + 1e-12)), convex
    convex_ratio = float(ratios.max())
    # (iii) ridge: the eigenvector of the smallest eigenvalue mu of the Hessian
    m4, mu = 4, 0.1
    Hs = np.array([np.outer(x, x) + mu * np.eye(m4) for x in np.eye(m4)])
    Hm = Hs.mean(0)
    lam, vec = np.linalg.eigh(Hm)
    sc_ratio = 0.0
    for k in range(m4):
        e = vec[:, k]
        D = 0.5 * e @ Hm @ e
        assert e @ e <= sc / lam[0] * D * (1 + 1e-12), (k, sc)
        sc_ratio = max(sc_ratio, float(lam[0] * (e @ e) / (2 * D)))
    # (iv) the composed bound against the stated rho, on a grid
    for Lm in (1.0, 3.0):
        for mu_ in (1e-3, 1e-1):
            for m_in in (10, 1000):
                for frac in (0.01, 0.1, 0.5, 0.9, 0.999):
                    eta = frac / (4 * Lm)
                    comp = (sc / (mu_ * eta * (2 * convex - var * Lm * eta) * m_in)
                            + var * Lm * eta / (2 * convex - var * Lm * eta))
                    rho = a / (mu_ * eta * (1 - c * Lm * eta) * m_in) + (
                        b * Lm * eta / (1 - c * Lm * eta))
                    assert comp <= rho * (1 + 1e-12), (comp, rho)
    for frac in (0.5, 0.9, 0.999):                    # the step condition
        eta = frac / (step_c * 1.0)
        assert 0 < 1 - c * eta and b * eta / (1 - c * eta) < 1, (step_c, eta)
    # (v) exact second moments of one stage, option II: mean over t of E D_t
    Lmax = 1.0 + mu
    eta, inner = 0.1 / Lmax, 300
    factor = 1 / (mu * eta * (1 - 2 * Lmax * eta) * inner) + (
        2 * Lmax * eta / (1 - 2 * Lmax * eta))
    assert factor < 1, factor
    stage_ratio = 0.0
    for trial in range(8):
        et = vec[:, 0] if trial == 0 else rng.standard_normal(m4)
        Ms = _stage_second_moments(Hs, eta, et, inner)
        Dsum = sum(0.5 * np.trace(Hm @ M) for M in Ms[:-1])   # E D_t, t < m_in
        ratio = float(Dsum / inner / (factor * 0.5 * et @ Hm @ et))
        assert ratio <= 1 + 1e-12, ratio
        stage_ratio = max(stage_ratio, ratio)
    return {"var_ratio": var_ratio, "convex_ratio": convex_ratio, "sc_ratio": sc_ratio,
            "stage_ratio": stage_ratio, "factor": float(factor)}


def check_svrg_last_proof(seed=0, *, var=4.0, smooth=0.5, step_c=2.0, m=40, mu=1e-4):
    """The steps of the proof of SVRG's rate with the last inner iterate as the next
    snapshot (option I, the book's thm-vr-svrg-last), each on an instance where it is tight.

    Ridge terms f_i(w) = ½⟨w, x_i⟩² + (μ/2)‖w‖² with orthogonal unit rows (w* = 0,
    L_max = 1 + μ, F is L-smooth with L = 1/m + μ): (i) E‖v‖² ≤ var·L_max·(D + D̃), D and
    D̃ the gaps of w and of the snapshot, tight when w − w* and w̃ − w* are opposite along a
    row (ratio → 1 as μ → 0 and m grows); (ii) D̃ ≤ smooth·L‖w̃ − w*‖², an equality along
    a row; (iii) at the largest step allowed, η = 1/(step_c L_max), the dropped term
    −2ηD + var·L_max η² D is ≤ 0; (iv) the theorem, on the exact second moments of a stage
    (the iteration is linear in (w, w̃) for these terms), on 4 such rows with μ = 0.1
    (a stage of 300 steps, where the factor is below 1): E‖w_300 − w*‖² ≤
    ((1 − ημ)^300 + 2ηL_max L/μ)‖w̃ − w*‖² at the step η = μ/(4 L_max L).

    Parameters
    ----------
    seed : int
        Seed of the random states.
    var, smooth, step_c : float
        The proof's constants (4, 1/2, 2).
    m : int
        Number of terms (orthogonal unit rows, so m is also the dimension).
    mu : float
        The regularization of (i)-(iii), μ = σ.

    Returns
    -------
    dict
        ``var_ratio`` = max E‖v‖² / (4 L_max (D + D̃)), ``smooth_ratio`` = max
        D̃ / (½ L ‖w̃ − w*‖²), ``stage_ratio`` = max of (iv)'s left side over its right,
        ``factor`` = (iv)'s factor.

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_svrg_last_proof()
    >>> r["var_ratio"] > 0.9 and r["smooth_ratio"] > 0.99 and r["stage_ratio"] <= 1
    True
    """
    rng = np.random.default_rng(seed)
    var_ratio, smooth_ratio = _svrg_variance_step(rng, var, m, mu, smooth)
    Lmax = 1.0 + mu
    eta = 1 / (step_c * Lmax)
    assert -2 * eta + var * Lmax * eta**2 <= 1e-15 * eta, (eta, var)
    # (iv) exact second moments of one stage: e+ = (I − ηH_i) e + η(H_i − H) ẽ
    m, mu, inner = 4, 0.1, 300
    X = np.eye(m)
    Lmax, L = 1.0 + mu, 1.0 / m + mu
    Hs = np.array([np.outer(x, x) + mu * np.eye(m) for x in X])
    eta = mu / (4 * Lmax * L)
    factor = (1 - eta * mu) ** inner + 2 * eta * Lmax * L / mu
    assert factor < 1, factor
    stage_ratio = 0.0
    for trial in range(8):
        et = X[0] if trial == 0 else rng.standard_normal(m)
        M = _stage_second_moments(Hs, eta, et, inner)[-1]
        ratio = float(np.trace(M) / (factor * (et @ et)))
        assert ratio <= 1 + 1e-12, ratio
        stage_ratio = max(stage_ratio, ratio)
    return {"var_ratio": var_ratio, "smooth_ratio": smooth_ratio,
            "stage_ratio": stage_ratio, "factor": float(factor)}


def check_svrg_guard_proof(seed=0, *, descent=2.0, pl=2.0, m=5, n=4):
    """The steps of the proof of the safeguard's theorem (the book's thm-vr-svrg-guard),
    each on an instance where it is an equality.

    (i) The descent lemma at the step 1/L_max: F(w̃ − g/L_max) ≤ F(w̃) − ‖g‖²/(descent·L_max),
    g = ∇F(w̃), on terms f_i(w) = (L_max/2)‖w − c_i‖², every term of curvature L_max, so
    that F is the quadratic (L_max/2)‖w − c̄‖² + const and the step lands on w* = c̄: an
    equality for descent = 2; and on ridge terms with rows of different norms, where it is
    strict. (ii) The Polyak–Łojasiewicz inequality ‖g‖² ≥ pl·μ(F(w̃) − F*), an equality on
    the same isotropic quadratic (μ = L_max). (iii) The two composed give the theorem's
    factor: F(w̃₊) − F* ≤ (1 − pl·μ/(descent·L_max))(F(w̃) − F*) must be at most
    (1 − μ/L_max)(F(w̃) − F*), i.e. pl/descent ≥ 1. A 2 halved fails (i) or (ii), a 2
    doubled fails (iii).

    Parameters
    ----------
    seed : int
        Seed of the random states.
    descent, pl : float
        The proof's constants (2, 2).
    m, n : int
        Number of terms and dimension.

    Returns
    -------
    dict
        ``descent_ratio`` = max (‖g‖²/(2L_max))/(F(w̃) − F(v)) on the isotropic instance
        (1: tight), ``ridge_ratio`` the same on ridge terms (< 1), ``pl_ratio`` = max
        2μ(F − F*)/‖g‖² (1: tight), ``factor`` = max over μ/L_max of the composed
        factor over the theorem's (1 with the proof's constants).

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_svrg_guard_proof()
    >>> round(r["descent_ratio"], 9), round(r["pl_ratio"], 9), r["ridge_ratio"] < 1
    (1.0, 1.0, True)
    """
    rng = np.random.default_rng(seed)
    Lmax = 3.0
    C = rng.standard_normal((m, n))            # f_i(w) = (L_max/2)|w - c_i|^2
    cbar = C.mean(0)

    def F(w):
        return 0.5 * Lmax * np.mean(np.sum((w - C) ** 2, axis=1))

    Fstar, mu = F(cbar), Lmax
    descent_ratio = pl_ratio = 0.0
    for trial in range(20):
        w = cbar + rng.standard_normal(n) * 10.0 ** rng.uniform(-1, 1)
        g = Lmax * (w - cbar)
        g2 = float(g @ g)
        drop = F(w) - F(w - g / Lmax)
        assert drop >= g2 / (descent * Lmax) * (1 - 1e-9), (drop, g2, descent)    # (i)
        descent_ratio = max(descent_ratio, g2 / (2 * Lmax) / drop)
        assert g2 >= pl * mu * (F(w) - Fstar) * (1 - 1e-9), (g2, pl)              # (ii)
        pl_ratio = max(pl_ratio, 2 * mu * (F(w) - Fstar) / g2)
    # (i) on ridge terms 1/2 <w, x_i>^2 + (s/2)|w|^2 whose rows have different norms
    X = rng.standard_normal((m, n)) * np.arange(1, m + 1)[:, None]
    s = 0.1
    Lr = float(np.max(np.sum(X * X, axis=1))) + s
    H = X.T @ X / m + s * np.eye(n)
    ridge_ratio = 0.0
    for trial in range(20):
        w = rng.standard_normal(n)
        g = H @ w
        v = w - g / Lr
        drop = 0.5 * (w @ H @ w - v @ H @ v)
        assert drop >= (g @ g) / (descent * Lr) * (1 - 1e-12), (drop, descent)
        ridge_ratio = max(ridge_ratio, float((g @ g) / (2 * Lr) / drop))
    # (iii) composed, for every mu/L_max in (0, 1): 1 - (pl/descent) q <= 1 - q
    q = np.array([1e-6, 1e-3, 0.1, 0.5, 0.9])
    factor = float(np.max((1 - pl * q / descent) / (1 - q)))
    assert factor <= 1 + 1e-12, (pl, descent, factor)
    return {"descent_ratio": float(descent_ratio), "ridge_ratio": ridge_ratio,
            "pl_ratio": float(pl_ratio), "factor": float(factor)}


def ridge_terms(m=6, n=3, sigma=0.5, seed=0):
    """A small ridge finite sum: f_i(w) = ½(⟨x_i, w⟩ − y_i)² + (σ/2)‖w‖².

    Parameters
    ----------
    m, n : int
        Terms and features (unit-norm Gaussian rows, so L_max = 1 + σ).
    sigma : float
        σ > 0, the strong convexity of every term.
    seed : int
        Seed of the rows and labels.

    Returns
    -------
    dict
        ``X``, ``y``, ``sigma``, ``w_star``, ``grads`` (w -> the m gradients as rows),
        ``hess`` (the m Hessians), ``L_max``, ``nu2`` (ν*²).

    Raises
    ------
    numpy.linalg.LinAlgError
        Never for σ > 0 (the normal matrix is then positive definite).

    Examples
    --------
    >>> p = ridge_terms()
    >>> bool(abs(p["grads"](p["w_star"]).mean(0)).max() < 1e-12)
    True
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = rng.standard_normal(m)
    w_star = np.linalg.solve(X.T @ X / m + sigma * np.eye(n), X.T @ y / m)

    def grads(w):
        return (X @ w - y)[:, None] * X + sigma * w

    hess = np.array([np.outer(x, x) + sigma * np.eye(n) for x in X])
    nu2 = float(np.mean(np.sum(grads(w_star) ** 2, axis=1)))
    return {"X": X, "y": y, "sigma": sigma, "w_star": w_star, "grads": grads,
            "hess": hess, "L_max": 1.0 + sigma, "nu2": nu2}


def check_reshuffling_proof(seed=0, *, shuffle_var=1.0, contraction=1.0, bregman=2.0):
    """The proof of the random-reshuffling theorem on a ridge sum of m = 6 terms.

    (i) The shuffle points' spread, exact over all m! permutations:
    E‖Σ_{j<i} ∇f_{π_j}(w*)‖² = shuffle_var · i(m − i)/(m − 1) · ν*², every i.
    (ii) The one-step inequality at η = 1/L_max,
    ‖x − η∇f(x) − (z − η∇f(w*))‖² ≤ (1 − contraction·ημ)‖x − z‖² + bregman·η D_f(z, w*),
    at random pairs and at the two pairs where it is tight.
    (iii) One epoch, exact over all permutations, below the unrolled bound.

    Parameters
    ----------
    seed : int
        Seed of the instance and of the random points.
    shuffle_var, contraction, bregman : float
        The proof's constants (1, 1, 2).

    Returns
    -------
    dict
        ``spread`` (the m − 1 ratios of (i)), ``tight`` (the largest ratio of the two sides
        of (ii)), ``epoch`` and ``epoch_bound`` of (iii).

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_reshuffling_proof()
    >>> bool(r["epoch"] <= r["epoch_bound"] and 0.9 < r["tight"] < 1 + 1e-9)
    True
    """
    from itertools import permutations

    p = ridge_terms(seed=seed)
    ws, gr, Hs, mu = p["w_star"], p["grads"], p["hess"], p["sigma"]
    m, n = p["X"].shape
    eta = 1 / p["L_max"]
    g_star = gr(ws)
    perms = np.array(list(permutations(range(m))))
    spread = []
    for i in range(1, m):
        partial = g_star[perms[:, :i]].sum(axis=1)
        lhs = np.mean(np.sum(partial**2, axis=1))
        rhs = shuffle_var * i * (m - i) / (m - 1) * p["nu2"]
        assert abs(lhs - rhs) <= 1e-10 * rhs, (i, lhs, rhs)
        spread.append(float(lhs / (i * (m - i) / (m - 1) * p["nu2"])))
    rng = np.random.default_rng(seed)

    def one_step(j, x, z):
        e = z - ws
        left = x - eta * gr(x)[j] - (z - eta * g_star[j])
        lhs = float(left @ left)
        D = 0.5 * e @ Hs[j] @ e                         # Bregman distance of f_j
        rhs = float((1 - contraction * eta * mu) * (x - z) @ (x - z) + bregman * eta * D)
        assert lhs <= rhs * (1 + 1e-12), (lhs, rhs)
        return lhs / rhs

    tight = 0.0
    for _ in range(200):
        j = int(rng.integers(m))
        one_step(j, ws + rng.standard_normal(n), ws + rng.standard_normal(n))
    for j in range(m):
        lam, vec = np.linalg.eigh(Hs[j])
        tight = max(tight, one_step(j, ws + vec[:, 0], ws))          # flattest, z = w*
        tight = max(tight, one_step(j, ws + vec[:, -1], ws + vec[:, -1]))   # x = z
    # (iii) one epoch from x0, exact expectation over the m! orders
    x0 = ws + rng.standard_normal(n)
    ends, Dsum = [], 0.0
    for perm in perms:
        x, z = x0.copy(), ws.copy()
        for k, j in enumerate(perm):
            e = z - ws
            Dsum += (1 - eta * mu) ** (m - 1 - k) * 0.5 * e @ Hs[j] @ e / len(perms)
            x = x - eta * gr(x)[j]
            z = z - eta * g_star[j]
        ends.append(np.sum((x - ws) ** 2))
    epoch = float(np.mean(ends))
    epoch_bound = float((1 - eta * mu) ** m * np.sum((x0 - ws) ** 2) + 2 * eta * Dsum)
    assert epoch <= epoch_bound, (epoch, epoch_bound)
    return {"spread": spread, "tight": float(tight), "epoch": epoch,
            "epoch_bound": epoch_bound}


def check_last_iterate(mu, nu2, a1, T, tau2=0.0, *, telescope=0.5, noise=0.5,
                       constant=1.5):
    """The proof of the last-iterate theorem (steps 1/(μt)) on the exact quadratic.

    For every k, the comparator u = w_{T−k} gives the summed identity
    Σ_{t=T−k}^{T} E[F(w_t) − F(u)] = −telescope·μT E|w_{T+1} − u|²
    + noise·Σ_{t=T−k}^{T} E g_t²/(μ t), exact on the quadratic (E[e_t e_u] follows
    (1 − η_t μ) E[e_t e_u]); then the recursion S_{k−1} ≤ S_k + G²/(2μ k (T − k)) of the
    means S_k of the last k + 1 gaps, and the theorem's bound constant·G²(1 + ln T)/(μT).

    Parameters
    ----------
    mu, nu2, a1, T, tau2 : float, float, float, int, float
        The instance (module docstring), a_1 and the horizon.
    telescope, noise, constant : float
        The proof's constants (1/2, 1/2, 3/2).

    Returns
    -------
    dict
        ``worst_identity`` (largest relative residual over k), ``last`` gap,
        ``bound``.

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_last_iterate(0.5, 1.0, 4.0, 300, tau2=1.0)
    >>> r["last"] <= r["bound"]
    True
    """
    t = np.arange(1, T + 1)
    eta = 1 / (mu * t)
    a, g2 = quadratic_moments(mu, nu2, a1, eta, tau2)       # a[j] = a_{j+1}
    G2 = float(g2.max())
    h = mu * a / 2                                          # h[j] = gap of w_{j+1}
    worst = 0.0
    for k in range(0, T):
        u = T - k                                           # comparator w_u, 1-based
        c = a[u - 1]                                        # E[e_u e_u]
        for j in range(u, T + 1):                           # E[e_{j+1} e_u]
            c = (1 - eta[j - 1] * mu) * c
        dist = a[T] - 2 * c + a[u - 1]                      # E|w_{T+1} - w_u|^2
        lhs = float(np.sum(h[u - 1:T] - h[u - 1]))
        rhs = float(-telescope * mu * T * dist
                    + noise * np.sum(g2[u - 1:T] / (mu * t[u - 1:T])))
        scale = max(abs(rhs), float(np.sum(g2[u - 1:T] / (mu * t[u - 1:T]))))
        assert abs(lhs - rhs) <= 1e-9 * scale, (k, lhs, rhs)
        worst = max(worst, abs(lhs - rhs) / scale)
    S = np.array([h[T - 1 - k:T].mean() for k in range(T)])   # S_k, gaps above F*
    for k in range(1, T):
        assert S[k - 1] <= S[k] + G2 / (2 * mu * k * (T - k)) * (1 + 1e-12), k
    # the proof's own bounds composed: S_{T-1} <= G^2 (1 + ln T)/(2 mu T) (uniform
    # average) plus the recursion's allowances sum_k G^2/(2 mu k (T - k)) must fit under
    # constant * G^2 (1 + ln T)/(mu T); on this instance the gap itself is far below
    # the bound, so this is the step that fails when the constant is too small
    uniform = G2 * (1 + np.log(T)) / (2 * mu * T)
    assert S[T - 1] <= uniform, (S[T - 1], uniform)
    allow = float(sum(G2 / (2 * mu * k * (T - k)) for k in range(1, T)))
    assert allow <= G2 * (1 + np.log(T)) / (mu * T), allow
    bound = constant * G2 * (1 + np.log(T)) / (mu * T)
    assert uniform + allow <= bound, (uniform + allow, bound)
    assert h[T - 1] <= bound, (h[T - 1], bound)
    return {"worst_identity": worst, "last": float(h[T - 1]), "bound": float(bound)}


# ----------------------------------------------------------------------------- Hogwild!
def sparse_instance(m=2000, n=500, d=3, sigma=1e-2, seed=0):
    """The sparse instance of the lock-free proof's check: m rows of d non-zeros ±1/√d at
    uniformly drawn columns (‖x_i‖ = 1), labels the signs of a random linear model.

    Parameters
    ----------
    m, n, d : int
        Rows, columns, non-zeros per row.
    sigma : float
        The regularization weight.
    seed : int
        Seeds the pattern, the values and the labels.

    Returns
    -------
    (scipy.sparse.csr_matrix, numpy.ndarray, float)
        X, labels ±1, σ.

    Examples
    --------
    >>> X, y, sigma = sparse_instance(m=10, n=20, d=2)
    >>> X.shape, int(X.nnz), sigma
    ((10, 20), 20, 0.01)
    """
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    cols = np.stack([rng.choice(n, d, replace=False) for _ in range(m)])
    vals = rng.choice([-1.0, 1.0], (m, d)) / np.sqrt(d)
    X = sp.csr_matrix((vals.ravel(), cols.ravel(), np.arange(0, m * d + 1, d)),
                      shape=(m, n))
    X.sort_indices()
    y = np.sign(X @ rng.standard_normal(n) + 0.1 * rng.standard_normal(m))
    y[y == 0] = 1.0
    return X, y, sigma


def conflict_fraction(X):
    """ρ̄: the probability that two rows drawn uniformly and independently (the same row
    twice included) have supports that meet; Hogwild!'s ρ is the largest row mean.

    Parameters
    ----------
    X : scipy sparse matrix
        The rows.

    Returns
    -------
    (float, float)
        (ρ̄, ρ): the mean and the largest fraction of rows whose support meets a row's.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> conflict_fraction(sp.csr_matrix(np.eye(4)))
    (0.25, 0.25)
    """
    B = (abs(X) > 0).astype(np.int64)
    meet = ((B @ B.T) > 0).sum(axis=1).A.ravel() / X.shape[0]
    return float(meet.mean()), float(meet.max())


def _split_inverse_frequencies(X):
    """1/p_j (p_j the fraction of rows whose support holds j), 0 for empty columns: the
    weights of the regularizer's split in ``rlmlib.distributed.hogwild``."""
    counts = np.bincount(X.indices, minlength=X.shape[1]).astype(np.float64)
    return np.where(counts > 0, X.shape[0] / np.maximum(counts, 1.0), 0.0)


def _logistic_deriv(z, y):
    return -y * 0.5 * (1.0 - np.tanh(0.5 * y * z))


@njit(cache=True)
def _delayed_run(data, indices, indptr, y, inv_p, sigma, t0, tau, idx, w, pend, buf,
                 bidx, gmax):
    """The bounded-delay model, serially: step t reads ŵ_t = w_t + Σ_{s=t−τ}^{t−1} η_s g_s
    on its row's support (the last τ updates not yet visible), then adds −η_t g_t."""
    for t in range(idx.shape[0]):
        i = idx[t]
        a, b = indptr[i], indptr[i + 1]
        z = 0.0
        for p in range(a, b):
            z += data[p] * (w[indices[p]] + pend[indices[p]])
        d = -y[i] * 0.5 * (1.0 - np.tanh(0.5 * y[i] * z))
        eta = 1.0 / (sigma * (t + t0))
        slot = t % (tau + 1)
        bidx[slot] = i
        g2 = 0.0
        for p in range(a, b):
            j = indices[p]
            g = d * data[p] + sigma * inv_p[j] * (w[j] + pend[j])
            g2 += g * g
            w[j] -= eta * g
            buf[slot, p - a] = eta * g
        gmax[0] = max(gmax[0], g2)
        if tau > 0:
            for p in range(a, b):
                pend[indices[p]] += buf[slot, p - a]
            if t >= tau:                      # step t − τ becomes visible to all
                old = (t - tau) % (tau + 1)
                k = bidx[old]
                for p in range(indptr[k], indptr[k + 1]):
                    pend[indices[p]] -= buf[old, p - indptr[k]]


def delayed_sgd(X, y, sigma, t0, tau, steps, seed):
    """The lock-free model of thm-dist-hogwild run serially with the worst visible delay:
    step t (row i_t uniform, with replacement) evaluates the direction
    g_t = ℓ'(⟨ŵ_t, x_i⟩) x_i + σ D_i ŵ_t (D_i = diag(1/p_j) on the row's support) at the
    point ŵ_t that lacks the updates of steps t − τ, …, t − 1, and adds −η_t g_t,
    η_t = 1/(σ(t + t0)), on the support. Logistic loss.

    Parameters
    ----------
    X : scipy.sparse.csr_matrix
        Rows with sorted indices.
    y : numpy.ndarray
        Labels ±1.
    sigma, t0 : float
        Regularization weight and step offset.
    tau : int
        The delay τ ≥ 0 (0: serial SGD with the same directions).
    steps : int
        Steps T.
    seed : int
        Seeds the rows drawn.

    Returns
    -------
    (numpy.ndarray, float)
        w_T (every update applied) and the largest ‖g_t‖² of the run.

    Examples
    --------
    >>> X, y, sigma = sparse_instance(m=50, n=40, d=2)
    >>> w, G2 = delayed_sgd(X, y, sigma, 100.0, 2, 500, 0)
    >>> w.shape
    (40,)
    """
    m, n = X.shape
    idx = np.random.default_rng(seed).integers(0, m, steps).astype(np.int64)
    w = np.zeros(n)
    dmax = int(np.diff(X.indptr).max())
    gmax = np.zeros(1)
    _delayed_run(X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64),
                 np.asarray(y, dtype=np.float64), _split_inverse_frequencies(X),
                 float(sigma), float(t0), int(tau), idx, w, np.zeros(n),
                 np.zeros((tau + 1, dmax)), np.zeros(tau + 1, dtype=np.int64), gmax)
    return w, float(gmax[0])


def hogwild_constant(tau, rho_bar, t0, *, cross=8.0, drift=48.0):
    """C/G² of thm-dist-hogwild: 1 + cross·τρ̄ + drift·τ(1 + 2τρ̄)/t0.

    Parameters
    ----------
    tau : int
        The delay bound.
    rho_bar : float
        The conflict probability ρ̄ (:func:`conflict_fraction`).
    t0 : float
        The step offset.
    cross, drift : float
        The proof's constants (8 and 48).

    Returns
    -------
    float

    Examples
    --------
    >>> hogwild_constant(0, 0.5, 100.0)
    1.0
    """
    return 1.0 + cross * tau * rho_bar + drift * tau * (1 + 2 * tau * rho_bar) / t0


def check_hogwild_proof(X, y, sigma, t0, tau, w_star, *, steps=300, seed=0, cross=2.0,
                        keep=0.75, penalty=3.0, window=2.0, split=1.0, rho_scale=1.0,
                        contraction=1.5, vfac=2.0):
    """The steps of the proof of thm-dist-hogwild on a run of the bounded-delay model.

    On ``steps`` steps of :func:`delayed_sgd` (recomputed here in numpy, every point
    kept): (i) the split regularizer is unbiased: (1/m) Σ_i g_i(w) = ∇F(w) on the
    columns some row holds when the inverse frequencies are those of the kernel
    (``split`` = 1); (ii) the expansion
    ‖w_{t+1} − w*‖² = ‖w_t − w*‖² − 2η_t⟨ŵ_t − w*, g_t⟩ + cross·η_t⟨ŵ_t − w_t, g_t⟩ +
    η_t²‖g_t‖², an identity at every step; (iii) the conflict lemma: ⟨ŵ_t − w_t, g_t⟩ only
    involves steps whose rows meet row i_t, at most Σ_s η_s c(i_s, i_t)‖g_s‖‖g_t‖, and the
    frequency of such pairs among 200,000 independent draws is ρ̄ (``rho_scale`` = 1,
    within 10 %); (iv) Young's split
    ‖ŵ − w*‖² ≥ keep‖w − w*‖² − penalty‖ŵ − w‖², checked on the pair
    ŵ − w = −(1/4)(w − w*) where it is an equality; (v) η_s ≤ window·η_t for
    |s − t| ≤ τ when t0 ≥ 2τ; (vi) the
    induction (1 − contraction/s)V/s + C/(σ²s²) ≤ V/(s + 1) for every s ≥ t0 with
    V = vfac·C/σ².

    Parameters
    ----------
    X, y, sigma : the instance (:func:`sparse_instance`)
    t0 : float
        Step offset (t0 ≥ 2τ).
    tau : int
        The delay.
    w_star : numpy.ndarray
        The minimizer of F.
    steps, seed : int
        The run checked step by step.
    cross, keep, penalty, window, split, rho_scale, contraction, vfac : float
        The proof's constants (2, 3/4, 3, 2, 1, 1, 3/2, 2).

    Returns
    -------
    dict
        ``identity`` (largest relative residual of (ii)), ``conflict_freq`` and
        ``rho_bar`` of (iii), ``window`` (largest η_s/η_t), ``w`` the run's w_T
        (:func:`delayed_sgd` with the same arguments returns it).

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> import rlmlib
    >>> X, y, sigma = sparse_instance(m=300, n=200, d=3)
    >>> ws = rlmlib.lbfgs(X, y, sigma=sigma, loss="logistic", tol=1e-12).w
    >>> r = check_hogwild_proof(X, y, sigma, 200.0, 4, ws, steps=200)
    >>> bool(r["identity"] < 1e-9)
    True
    """
    m, n = X.shape
    idx = np.random.default_rng(seed).integers(0, m, steps)   # as delayed_sgd draws
    rng = np.random.default_rng(seed + 1)
    inv_p = _split_inverse_frequencies(X) * split
    Xd = X.toarray()
    S = Xd != 0

    def g_of(i, v):
        return (_logistic_deriv(Xd[i] @ v, y[i]) * Xd[i] + sigma * inv_p * S[i] * v)

    # (i) unbiased split: the mean of the directions is the gradient of F
    v = rng.standard_normal(n)
    mean_g = np.mean([g_of(i, v) for i in range(m)], axis=0)
    grad = Xd.T @ _logistic_deriv(Xd @ v, y) / m + sigma * v
    held = S.any(axis=0)                      # columns no row holds stay at 0 = w*_j
    assert np.allclose(mean_g[held], grad[held], rtol=1e-10, atol=1e-12), "split"
    # the run: rows with replacement, the last tau updates invisible
    eta = 1.0 / (sigma * (np.arange(steps) + t0))
    w = np.zeros(n)
    upd = []                                  # eta_s g_s, dense
    worst = 0.0
    rho_bar = conflict_fraction(X)[0]
    for t in range(steps):
        i = idx[t]
        hat = w + sum(upd[max(0, t - tau):t], np.zeros(n))
        g = g_of(i, hat)
        new = w - eta[t] * g
        e2 = (w - w_star) @ (w - w_star)
        rhs = (e2 - 2 * eta[t] * (hat - w_star) @ g + cross * eta[t] * (hat - w) @ g
               + eta[t] ** 2 * g @ g)
        lhs = (new - w_star) @ (new - w_star)
        scale = e2 + eta[t] * abs((hat - w_star) @ g) + eta[t] ** 2 * g @ g
        assert abs(lhs - rhs) <= 1e-9 * scale, ("expansion", t, lhs, rhs)
        worst = max(worst, abs(lhs - rhs) / scale)
        # (iii) only conflicting steps enter <hat - w, g>
        lim = 0.0
        for s in range(max(0, t - tau), t):
            c = bool(np.any(S[idx[s]] & S[i]))
            lim += c * np.linalg.norm(upd[s]) * np.linalg.norm(g)
        assert abs((hat - w) @ g) <= lim * (1 + 1e-12) + 1e-300, ("conflict", t)
        upd.append(eta[t] * g)
        w = new
    # two independent draws of the sampler conflict with probability rho_bar
    B = (abs(X) > 0).astype(np.int64).tocsr()
    i1, i2 = rng.integers(0, m, 200_000), rng.integers(0, m, 200_000)
    freq = float(np.mean(B[i1].multiply(B[i2]).sum(axis=1).A.ravel() > 0))
    assert abs(freq / (rho_scale * rho_bar) - 1) <= 0.1, ("rho", freq, rho_bar)
    # (iv) Young's split, tight on the pair b = -a/4
    a = rng.standard_normal(n)
    b = -0.25 * a
    assert (a + b) @ (a + b) >= keep * a @ a - penalty * b @ b - 1e-12 * a @ a, "young"
    # (v) the window of steps a step may see, t0 >= 2 tau
    assert t0 >= 2 * tau
    ratio = max(((t + t0) / (max(0, t - tau) + t0) for t in range(tau + 1)),
                default=1.0)
    assert ratio <= window, ("window", ratio)
    # (vi) the induction, s = t + t0 over the run and far beyond
    s = t0 + np.arange(0, 10 ** 6, 7, dtype=float)
    C = 1.0                                   # the step is homogeneous in C / sigma^2
    V = vfac * C / sigma ** 2
    lhs = (1 - contraction / s) * V / s + C / (sigma ** 2 * s ** 2)
    assert np.all(lhs <= V / (s + 1) * (1 + 1e-12)), "induction"
    return {"identity": worst, "conflict_freq": freq, "rho_bar": rho_bar,
            "window": ratio, "w": w}


def _near(a, b, rtol, atol):
    """|a - b| <= atol + rtol |b| elementwise (np.allclose, without its overhead)."""
    return bool(np.all(np.abs(a - b) <= atol + rtol * np.abs(b)))


def check_catalyst_proof(seed=0, *, smooth=1.0, strong=1.0, gap=0.5, rate=1.0,
                         phi0=2.0, dist=2.0, root=1.0, schedule=6 / np.pi**2,
                         constant=8.0, n=6, mu=0.01, tau=1.0, T=300):
    """The steps of the proof of Catalyst's outer rate (the book's thm-mom-catalyst and
    lem-mom-moreau), each on an instance where it is tight.

    The instance is the quadratic F(w) = ½ Σ_k a_k (w_k − w*_k)² with curvatures a_k from
    μ to 10⁶ τ, so that F* = 0, the proximal point p(y) = (a w* + τ y)/(a + τ) and the
    Moreau envelope F_τ (curvatures a τ/(a + τ)) are exact. Checked: (i) the envelope's
    gradient τ(x − p(x)), its smoothness ``smooth``·τ (attained to 1 %) and its strong
    convexity ``strong``·μτ/(μ + τ) (attained exactly); (ii) the key inequality
    F(z) ≥ F(x) + ⟨g, z − y⟩ + ``gap``·‖g‖²/τ + (μ'/2)‖z − y‖², x = p(y), g = τ(y − x),
    on random points and with equality at z = w*, y − w* along the μ-direction; (iii) the
    run of the outer loop with residuals r_t = ∇G_t(x_t) of norm δ_t (the theorem's
    tolerance with ``schedule``) pointing away from w*: the three-sequence form, the
    one-step bound Φ_{t+1} ≤ (1 − ``rate``·√q) Φ_t + ⟨r_t, w_{t+1} − v_t⟩, the
    distance bound ‖w − w*‖² ≤ ``dist``·(F(w) − F*)/μ (attained along the μ-direction),
    the bound Φ_0 ≤ ``phi0``·(F(w_0) − F*) (attained to 1 % when w_0 − w* lies along
    the μ-direction and τ = 10⁴ μ), the root of the quadratic inequality
    u² ≤ (1 − α)v² + c(u + v): u ≤ ω v + ``root``·c/ω, ω = √(1 − α), on a grid
    (attained as c/v → 0), the sum of the schedule (at most 1, attained in the limit)
    and the final constant (√phi0 + √dist)².

    Parameters
    ----------
    seed : int
        Seed of w* and of the random points.
    smooth, strong, gap, rate, phi0, dist, root, schedule, constant : float
        The proof's constants (1, 1, ½, 1, 2, 2, 1, 6/π², 8).
    n : int
        Dimension (number of curvatures).
    mu, tau : float
        Strong convexity of F and the proximal weight.
    T : int
        Outer iterations of the run (it stops earlier once Φ < 10⁻²⁰ (F(w_0) − F*),
        where the quadratic forms are rounding).

    Returns
    -------
    dict
        ``smooth_ratio`` (largest envelope curvature / τ), ``key_slack`` (relative slack
        of (ii) at the tight point), ``step_ratio`` (largest Φ_{t+1} over the one-step
        bound), ``root_ratio`` (largest u over ωv + c/ω), ``final_ratio``
        (F(w_T) − F* over constant·(1 − √q)^T (F(w_0) − F*)).

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_catalyst_proof()
    >>> 0.99 < r["smooth_ratio"] <= 1 and r["step_ratio"] <= 1
    True
    """
    rng = np.random.default_rng(seed)
    a = np.geomspace(mu, 1e6 * tau, n)
    ws = rng.standard_normal(n)

    def F(w):
        return 0.5 * np.sum(a * (w - ws) ** 2)

    def prox(y):
        return (a * ws + tau * y) / (a + tau)

    q = mu / (mu + tau)
    alpha = np.sqrt(q)
    mup = mu * tau / (mu + tau)
    # (i) the envelope
    c_env = a * tau / (a + tau)
    for _ in range(5):
        x = rng.standard_normal(n)
        grad = tau * (x - prox(x))
        assert _near(grad, c_env * (x - ws), 1e-10, 0.0)
    smooth_ratio = c_env.max() / (smooth * tau)
    assert 0.99 < smooth_ratio <= 1.0, smooth_ratio
    assert abs(c_env.min() - strong * mup) <= 1e-12 * mup, (c_env.min(), mup)

    # (ii) the key inequality
    def key_slack(y, z):
        x = prox(y)
        g = tau * (y - x)
        rhs = (F(x) + g @ (z - y) + gap * (g @ g) / tau
               + strong * mup / 2 * np.sum((z - y) ** 2))
        return F(z) - rhs

    for _ in range(50):
        y, z = ws + rng.standard_normal(n), ws + rng.standard_normal(n)
        s = key_slack(y, z)
        assert s >= -1e-12 * (1.0 + F(z)), s
    e0 = np.eye(n)[0]
    tight = key_slack(ws + e0, ws) / (mu / 2)
    assert abs(tight) <= 1e-9, tight
    # (iii) the run
    theta = np.sqrt(1.0 - alpha)
    b = (1.0 - alpha) / (1.0 + alpha)
    D0 = F(np.zeros(n))
    w, z = np.zeros(n), np.zeros(n)
    y = w.copy()
    phi = F(w) + strong * mup / 2 * np.sum((z - ws) ** 2)
    assert phi <= phi0 * D0 * (1 + 1e-12), (phi, D0)
    step_ratio, scale = 0.0, 1.0 + np.abs(ws).max()
    for t in range(T):
        delta = schedule * np.sqrt(mu * D0) * theta ** (t + 2) / (t + 1) ** 2
        away = y - ws
        r = delta * away / np.linalg.norm(away)
        w_new = prox(y + r / tau)                      # an inexact proximal point
        resid = a * (w_new - ws) + tau * (w_new - y)   # ∇G_t at w_new
        assert _near(resid, r, 1e-8, 1e-13 * a.max() * scale), t
        g = tau * (y - w_new)
        z_new = (1 - alpha) * z + alpha * y - alpha / (strong * mup) * g
        y_new = w_new + b * (w_new - w)
        assert _near(y_new, (w_new + alpha * z_new) / (1 + alpha), 1e-8,
                     1e-12 * (1.0 + np.abs(y_new).max())), t
        phi_new = F(w_new) + strong * mup / 2 * np.sum((z_new - ws) ** 2)
        err = r @ (w_new - ((1 - alpha) * w + alpha * ws))
        bound = (1 - rate * alpha) * phi + err
        step_ratio = max(step_ratio, phi_new / bound)
        assert phi_new <= bound * (1 + 1e-9) + 1e-300, (t, phi_new, bound)
        for v in (w, w_new):
            assert np.sum((v - ws) ** 2) <= dist * F(v) / mu * (1 + 1e-12) + 1e-300
        w, z, y, phi = w_new, z_new, y_new, phi_new
        if phi < 1e-20 * D0:  # below this the quadratic forms are rounding
            break
    final_ratio = F(w) / (constant * (1 - alpha) ** (t + 1) * D0)
    assert final_ratio <= 1.0, final_ratio
    # the tight cases of the distance bound and of Φ_0 ≤ phi0 (F(w_0) − F*)
    assert 0.99 <= np.sum(e0 ** 2) / (dist * F(ws + e0) / mu) <= 1 + 1e-12
    phi0_tight = 1 + 1e4 / (1 + 1e4)  # Φ_0 / (F(w_0) − F*) there, at τ = 10⁴ μ
    assert 0.99 * phi0 <= phi0_tight <= phi0, phi0_tight
    # the root of u² ≤ (1 − α) v² + c (u + v), on a grid of v and c
    root_ratio = 0.0
    for v in np.geomspace(1e-6, 1.0, 13):
        for c in np.geomspace(1e-6, 1e3, 19):
            u = (c + np.sqrt(c * c + 4 * ((1 - alpha) * v * v + c * v))) / 2
            ratio = u / (theta * v + root * c / theta)
            root_ratio = max(root_ratio, ratio)
    assert 0.9 < root_ratio <= 1 + 1e-12, root_ratio
    # the schedule sums to at most 1 (6/π² Σ 1/(t + 1)² = 1 in the limit)
    partial = schedule * np.sum(1.0 / np.arange(1.0, 1e5 + 1) ** 2)
    assert 0.99 < partial and schedule * np.pi**2 / 6 <= 1 + 1e-12, partial
    assert abs(constant - (np.sqrt(phi0) + np.sqrt(dist)) ** 2) <= 1e-12 * constant
    return {"smooth_ratio": float(smooth_ratio), "key_slack": float(tight),
            "step_ratio": float(step_ratio), "root_ratio": float(root_ratio),
            "final_ratio": float(final_ratio)}


def check_catalyst_count(*, per_step=10.0, passes=(10.0, 12.0), ratio=79.0,
                         outer=8.0):
    """The numerical steps of the proof of the book's thm-mom-catalyst-count, each on a
    grid on which it is tight or nearly so: (i) SAGA's rate on a subproblem with
    τ = L_max/m − σ, min((L_max/m)/(5 L_G), 1/(3m)) ≥ 1/(``per_step``·m) for
    L_G = L_max + τ (attained at m = 1, κ → ∞); (ii) the expected number of passes,
    1 + Σ_{k≥1} min(1, A e^{−k/10}) ≤ ``passes[0]``·ln⁺A + ``passes[1]`` (within 2 of
    equality at A = 1 and at A = 10¹²); (iii) the warm-start ratio 16 (π²/6) ω^{−3} ≤ ``ratio`` for
    √q ≤ ½, ω = √(1 − √q) (attained to 6 % at √q = ½); (iv) the outer count:
    ``outer``·(1 − √q)^T ≤ ε for T = ⌈ln(8/ε)/√q⌉ (attained as q → 0).

    Parameters
    ----------
    per_step, ratio, outer : float
        The proof's constants (10, 79, 8).
    passes : tuple of two floats
        The constants of the expected number of passes (10, 12).

    Returns
    -------
    dict
        ``passes_gap`` (smallest slack of (ii)), ``ratio_max`` (largest left side of
        (iii)), ``outer_ratio`` (largest ``outer``·(1 − √q)^T/ε of (iv)).

    Raises
    ------
    AssertionError
        When a step of the proof fails with the constants given.

    Examples
    --------
    >>> r = check_catalyst_count()
    >>> r["passes_gap"] >= 0 and r["ratio_max"] <= 79
    True
    """
    worst = np.inf
    for m in (1, 2, 10, 1000):
        for kappa in (4.0 * m, 40.0 * m, 1e6 * m):
            Lmax, sigma = 1.0, 1.0 / kappa
            tau = Lmax / m - sigma
            rate = min((sigma + tau) / (5 * (Lmax + tau)), 1 / (3 * m))
            worst = min(worst, rate * per_step * m)
    assert 1 - 1e-12 <= worst <= 1.01, worst
    gaps, k = [], np.arange(1, 4000)
    for A in np.geomspace(1e-3, 1e12, 61):
        total = 1 + np.sum(np.minimum(1.0, A * np.exp(-k / 10)))
        gaps.append(passes[0] * max(np.log(A), 0.0) + passes[1] - total)
    gap = min(gaps)
    assert 0 <= gap < 2 and gaps[-1] < 2, (gap, gaps[-1])
    sq = np.linspace(1e-4, 0.5, 200)
    lhs = 16 * np.pi**2 / 6 * (1 - sq) ** -1.5
    assert 0.9 * ratio < lhs.max() <= ratio, lhs.max()
    outer_ratio = 0.0
    for q in np.geomspace(1e-8, 0.25, 30):
        for eps in (1e-2, 1e-6, 1e-10):
            T = np.ceil(np.log(8 / eps) / np.sqrt(q))
            outer_ratio = max(outer_ratio, outer * (1 - np.sqrt(q)) ** T / eps)
    assert 0.5 < outer_ratio <= 1, outer_ratio
    return {"passes_gap": float(gap), "ratio_max": float(lhs.max()),
            "outer_ratio": float(outer_ratio)}
