"""Stochastic average gradient, SAG (Schmidt, Le Roux & Bach 2017), with lazy updates and
optional data preconditioning (rlmlib/precond.py).

Minimizes  F(w) = (rho/2)||u||^2 + (1/m) sum_i phi_i(<u, xhat_i>)  where, without
preconditioning, u = w, xhat_i = x_i, rho = sigma, phi_i = loss; with ``precondition=P``,
u = H^(1/2) w, xhat_i = H^(-1/2) x_i, rho = beta and phi_i(z) = loss(z) - shift_i z^2 / 2.
SAG keeps the last gradient scalar g_i of every example and steps with their average:

    g_i <- phi_i'(<u, xhat_i>),    u <- (1 - eta rho) u - (eta / m_seen) sum_j g_j xhat_j

(m_seen: examples visited so far, m after the first epoch). In the original coordinates this
is  w <- (1 - eta rho) w - (eta / m_seen) H^-1 S,  S = sum_j g_j x_j,  with
H^-1 = alpha2 I + U diag(e) U^T (alpha2 = 1, U empty without preconditioning).

Just-in-time updates (as scikit-learn's sag): w = s (va + U vb). The shrink is s <- (1 - eta
rho) s; the dense step -(eta/m_seen) alpha2 S touches every coordinate but is the same
vector S between visits, so feature j is brought up to date only when a row containing it is
read: va[j] -= S[j] (cum - last[j]), cum = running sum of eta alpha2 / (m_seen s). The
rank-r part vb is updated at every step (O(r)). A step costs O(nnz(x_i) + r).
"""
import numpy as np
from numba import njit

from ..core.checks import sigma_keyword
from ..core.prefetch import AHEAD, prefetch, prefetch_ahead
from ..core.losses import loss_deriv
from .vr import RENORM, catch_up_all, problem_for, row_margin, solver_setup


@njit(cache=True)
def sag_steps(data, indices, indptr, y, Q, e, alpha2, rho, shift, code, eta, va, vb, last,
              Sa, Sb, gtab, seen, state, order, start, stop):
    """SAG steps on examples order[start:stop]; state = [s, cum, m_seen], in place."""
    s = state[0]
    cum = state[1]
    nseen = state[2]
    r = vb.shape[0]
    for k in range(start, stop):
        i = order[k]
        prefetch_ahead(data, indices, indptr, order, k, stop, True)
        if k + AHEAD < stop:  # prefetch the label, table entry and shift (random reads)
            prefetch(y, order[k + AHEAD])
            prefetch(gtab, order[k + AHEAD])
            prefetch(shift, order[k + AHEAD])
        a = indptr[i]
        b = indptr[i + 1]
        z = s * row_margin(data, indices, a, b, Q, i, va, vb, Sa, last, cum)  # <w, x_i>
        g = loss_deriv(code, z, y[i]) - shift[i] * z  # phi_i'(z)
        d = g - gtab[i]
        if d != 0.0:  # S <- S + (g_i,new - g_i,old) x_i  (and its U-coordinates Sb)
            gtab[i] = g
            for p in range(a, b):
                Sa[indices[p]] += d * data[p]
            for q in range(r):
                Sb[q] += d * Q[i, q]
        if not seen[i]:
            seen[i] = True
            nseen += 1.0
        s *= 1.0 - eta * rho  # w <- (1 - eta rho) w
        if s < RENORM:
            state[0] = s
            state[1] = cum
            catch_up_all(va, vb, last, Sa, state)
            s = 1.0
            cum = 0.0
        f = eta / (nseen * s)  # w <- w - (eta/m_seen) H^-1 S, split into va (lazy) and vb
        cum += f * alpha2
        for q in range(r):
            vb[q] -= f * e[q] * Sb[q]
    state[0] = s
    state[1] = cum
    state[2] = nseen


@sigma_keyword
def sag(X, y, *, sigma, epochs, loss, step=None, precondition=None, seed=0,
        order="replacement", n_checkpoints=None, X_test=None, y_test=None, progress=False):
    """SAG on (σ/2)‖w‖² + mean loss, squared or logistic, dense or sparse, optionally on
    the preconditioned problem.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
        Targets (squared loss) or two labels (logistic loss, mapped to -1/+1).
    sigma : float > 0
        Regularization weight σ.
    epochs : int >= 1
        Passes over the data (m steps each).
    loss : {'squared', 'logistic'}
    step : float > 0 or None
        Step η. None: 1/L_max, L_max the largest smoothness of one term
        (``res.params['L_max']``): L‖x_i‖² + σ without preconditioning, and
        |φ̂_i''|_max ‖x̂_i‖² + β with it.
    precondition : Preconditioner or None
        From ``rlmlib.precondition(X, sigma=sigma, beta=...)``: solve the transformed problem
        (strong convexity β); ``res.w`` is in the ORIGINAL coordinates.
    seed : int >= 0
    order : {'replacement', 'reshuffle', 'shuffle_once', 'cyclic'}
        Default 'replacement' (uniform i.i.d. draws), the sampling SAG's analysis assumes:
        with the step 1/L_max, passes in a permuted or cyclic order can diverge on
        ill-conditioned data (measured: relative gap 3.5 after 5 reshuffled epochs where
        i.i.d. draws reach 0.1, on ``eigen_decay(1000, 50, tau=2)`` with σ = 1e-3).
    n_checkpoints, X_test, y_test, progress
        As in every solver (DESIGN.md).

    Returns
    -------
    Result
        ``res.w`` minimizes F (original coordinates); ``res.params`` holds ``step``,
        ``L_max``, ``preconditioned``.

    Raises
    ------
    ValueError
        Bad arguments (named), a preconditioner built for another X or σ, or β above the
        loss's curvature.
    TypeError
        ``precondition`` that is not a Preconditioner; ``lam=``.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = X @ np.ones(5)
    >>> res = rlmlib.sag(X, y, sigma=0.1, epochs=50, loss="squared")
    >>> ref = rlmlib.lbfgs(X, y, sigma=0.1, loss="squared")
    >>> bool(res.objective - ref.objective < 1e-8 * ref.objective)
    True
    """
    P = problem_for("sag", X, y, sigma, loss, epochs, seed, order, n_checkpoints, X_test,
                    y_test, progress)
    A = solver_setup("sag", P, step, precondition)
    m, n, r = P.m, P.n, A["e"].shape[0]
    va, vb, last, Sa, Sb = np.zeros(n), np.zeros(r), np.zeros(n), np.zeros(n), np.zeros(r)
    gtab, seen = np.zeros(m), np.zeros(m, dtype=np.bool_)
    state = np.array([1.0, 0.0, 0.0])

    def steps(rows, yy, ind, ptr, idx, start, stop, t, look):
        sag_steps(rows.data, ind, ptr, yy, A["Q"], A["e"], A["alpha2"], A["rho"], A["shift"],
                  A["code"], A["step"], va, vb, last, Sa, Sb, gtab, seen, state, idx, start,
                  stop)

    def get_w():
        catch_up_all(va, vb, last, Sa, state)
        return va + A["U"](vb)

    params = {"sigma": P.sigma, "epochs": P.epochs, "loss": loss, "step": A["step"],
              "L_max": A["Lmax"], "preconditioned": precondition is not None,
              "beta": None if precondition is None else precondition.beta,
              "seed": P.seed, "order": P.order}
    # rows stay in storage order: the preconditioner's Q and the table are indexed by row
    return P.run(steps, get_w, params, state=lambda: (va, vb), copy_rows=False,
                 hint=f"step={A['step']:.3g} is too long (L_max = {A['Lmax']:.3g})")
