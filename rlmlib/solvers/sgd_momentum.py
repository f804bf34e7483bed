"""SGD with momentum: heavy ball (Polyak 1964) and Nesterov's look-ahead, constant step,
on σ‖w‖²/2 + mean smooth loss, O(nnz) steps on sparse rows.

With g_t = ℓ'(⟨w, x_j⟩, y_j) x_j + σ w (one example's gradient) a step is

    heavy ball:  v <- β v + g_t,   w <- w - η v
    Nesterov:    v <- β v + g_t,   w <- w - η (g_t + β v)

(v starts at 0; Nesterov's form is the one of Sutskever et al. as PyTorch writes it: the
stored w is the extrapolated point where the gradient is taken, Nesterov's iterate is
w + ηβv). On a coordinate k outside
the row x_j the step is linear in (w_k, v_k) with the same 2×2 matrix A at every step:

    heavy ball  A = [[1 - ησ, -ηβ], [σ, β]],   Nesterov  A = [[1 - ησ(1 + β), -ηβ²], [σ, β]]

so the Δ steps a coordinate missed since it was last read are A^Δ, applied when it is next
read. By Cayley-Hamilton, A² = τ A - δ I (τ = trace A, δ = det A), hence

    A^Δ = U_Δ A - δ U_{Δ-1} I,   U_0 = 0, U_1 = 1, U_{k+1} = τ U_k - δ U_{k-1},

a table of scalars computed once per call. Every coordinate is brought up to date at the
end of each segment the driver hands over (cut into pieces of at most m steps), so Δ <= m and the
table has m + 1 entries; a step costs O(nnz(x_j)), a segment O(n) more.
"""
import numpy as np
from numba import njit

from ..core.checks import check_bool, check_interval, check_positive, sigma_keyword
from ..core.losses import LOSSES, loss_deriv
from ..core.order import ORDERS
from ..core.prefetch import prefetch_ahead
from ..core.problem import Problem
from .vr import check_curvature, row_norms2, warn_step_limit

LOSSES_SMOOTH = ("logistic", "squared", "squared_hinge")


def momentum_matrix(step, beta, sigma, nesterov):
    """The 2×2 matrix A of one step on a coordinate outside the row (module docstring) and
    the coefficient of ℓ' x_j in the step of w: -η (heavy ball) or -η(1 + β) (Nesterov).

    Parameters
    ----------
    step, beta, sigma : float
    nesterov : bool

    Returns
    -------
    (numpy.ndarray, float)
        A, shape (2, 2), and the coefficient.

    Examples
    --------
    >>> A, cw = momentum_matrix(0.1, 0.5, 1.0, False)
    >>> A.tolist(), cw
    ([[0.9, -0.05], [1.0, 0.5]], -0.1)
    """
    if nesterov:
        A = np.array([[1.0 - step * sigma * (1.0 + beta), -step * beta * beta],
                      [sigma, beta]])
        return A, -step * (1.0 + beta)
    return np.array([[1.0 - step * sigma, -step * beta], [sigma, beta]]), -step


def power_table(A, size):
    """U_0 … U_size with A^Δ = U_Δ A - det(A) U_{Δ-1} I (Cayley-Hamilton, module
    docstring).

    Parameters
    ----------
    A : numpy.ndarray, shape (2, 2)
    size : int

    Returns
    -------
    numpy.ndarray, shape (size + 1,)

    Examples
    --------
    >>> A = np.array([[0.9, -0.05], [1.0, 0.5]])
    >>> U = power_table(A, 3)
    >>> bool(np.allclose(U[3] * A - np.linalg.det(A) * U[2] * np.eye(2),
    ...                  np.linalg.matrix_power(A, 3)))
    True
    """
    tau = A[0, 0] + A[1, 1]
    delta = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
    U = np.zeros(size + 1)
    if size >= 1:
        U[1] = 1.0
    for k in range(1, size):
        U[k + 1] = tau * U[k] - delta * U[k - 1]
    return U


@njit(cache=True)
def _catch_up(w, v, q, d, U, a11, a12, a21, a22, delta):
    """Apply A^d to (w[q], v[q])."""
    if d == 1:
        wq = w[q]
        vq = v[q]
        w[q] = a11 * wq + a12 * vq
        v[q] = a21 * wq + a22 * vq
    elif d > 1:
        wq = w[q]
        vq = v[q]
        u = U[d]
        c = delta * U[d - 1]
        w[q] = u * (a11 * wq + a12 * vq) - c * wq
        v[q] = u * (a21 * wq + a22 * vq) - c * vq


@njit(cache=True)
def momentum_catch_up_all(w, v, last, t, U, A, delta):
    """Bring every coordinate to step t and restart the counts (last = 0)."""
    for q in range(w.shape[0]):
        _catch_up(w, v, q, t - last[q], U, A[0, 0], A[0, 1], A[1, 0], A[1, 1], delta)
        last[q] = 0


@njit(cache=True)
def momentum_steps(data, indices, indptr, y, code, step, beta, sigma, nesterov, w, v, last,
                   U, A, delta, order, start, stop, look_ahead):
    """Momentum steps on examples order[start:stop], in place; every coordinate is up to
    date on return (module docstring)."""
    a11, a12, a21, a22 = A[0, 0], A[0, 1], A[1, 0], A[1, 1]
    t = 0
    for k in range(start, stop):
        j = order[k]
        if look_ahead:
            prefetch_ahead(data, indices, indptr, order, k, stop, True)
        a = indptr[j]
        b = indptr[j + 1]
        z = 0.0
        for p in range(a, b):  # the missed steps A^Δ of the row's coordinates
            q = indices[p]
            _catch_up(w, v, q, t - last[q], U, a11, a12, a21, a22, delta)
            last[q] = t
            z += data[p] * w[q]
        c = loss_deriv(code, z, y[j])  # ℓ'(<w, x_j>)
        for p in range(a, b):  # the full step on the row: g = c x_j + σ w
            q = indices[p]
            g = c * data[p] + sigma * w[q]
            vq = beta * v[q] + g
            v[q] = vq
            if nesterov:
                w[q] -= step * (g + beta * vq)
            else:
                w[q] -= step * vq
            last[q] = t + 1
        t += 1
    momentum_catch_up_all(w, v, last, t, U, A, delta)


@sigma_keyword
def sgd_momentum(X, y, *, sigma, epochs=20, loss="logistic", beta=0.9, nesterov=False,
                 step=None, seed=0, order="reshuffle", n_checkpoints=None, X_test=None,
                 y_test=None, progress=False):
    """SGD with heavy-ball (default) or Nesterov momentum and a constant step, on
    (σ/2)‖w‖² + mean smooth loss, dense or sparse.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
        Targets (squared loss) or two labels (logistic, squared hinge: mapped to -1/+1).
    sigma : float > 0
        Regularization weight σ.
    epochs : int >= 1
        Passes over the data (m steps each).
    loss : {'logistic', 'squared', 'squared_hinge'}
    beta : float in [0, 1)
        Momentum β; 0 is plain SGD with step η.
    nesterov : bool
        False: heavy ball, v <- βv + g, w <- w - ηv. True: Nesterov,
        w <- w - η(g + βv) after the same update of v.
    step : float > 0 or None
        Step η. None: (1 - β)/(2 L_max), L_max = smoothness · maxᵢ‖xᵢ‖² + σ (largest
        smoothness of one term; ``res.params['L_max']``): the effective step η/(1 - β)
        of the momentum method (the part "Momentum and acceleration") is then
        1/(2 L_max), the constant step of plain SGD whose noise floor the part measures.
    seed : int >= 0
    order : {'reshuffle', 'shuffle_once', 'cyclic', 'replacement'}
    n_checkpoints, X_test, y_test, progress
        As in every solver (DESIGN.md).

    Returns
    -------
    Result
        ``res.w``; ``res.params`` holds ``step``, ``beta``, ``nesterov``, ``L_max`` and
        ``effective_step`` = η/(1 - β).

    Raises
    ------
    ValueError
        Bad arguments (named): a non-smooth loss, beta outside [0, 1), step <= 0, ...
    TypeError
        ``lam=`` instead of ``sigma=``.

    Warns
    -----
    StepLimitWarning
        A given step beyond 2/L_max.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = np.sign(X[:, 0] + 0.5 * X[:, 1])
    >>> res = rlmlib.sgd_momentum(X, y, sigma=0.1, epochs=30, beta=0.9)
    >>> ref = rlmlib.lbfgs(X, y, sigma=0.1, loss="logistic")
    >>> bool(res.objective - ref.objective < 1e-2 * ref.objective)
    True
    """
    beta = check_interval("beta", beta, 0.0, 1.0, hi_closed=False)
    check_bool("nesterov", nesterov)
    P = Problem("sgd_momentum", X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed,
                order=order, orders=ORDERS, n_checkpoints=n_checkpoints, X_test=X_test,
                y_test=y_test, progress=progress, losses=LOSSES_SMOOTH, compact_dense=False)
    P.check_scale(*P.minimizer_bound())
    sigma, m, n = P.sigma, P.m, P.n
    Lmax = LOSSES[loss]["smoothness"] * float(row_norms2(P.rows).max()) + sigma
    check_curvature("sgd_momentum", Lmax, "L_max = max_i smoothness * ||x_i||^2 + sigma")
    if step is None:
        step = (1.0 - beta) / (2.0 * Lmax)
    else:
        step = check_positive("step", step)
        warn_step_limit("sgd_momentum", step, Lmax, "max_i smoothness * ||x_i||^2 + sigma",
                        "(1 - beta)/(2 L_max)")
    nesterov = bool(nesterov)
    A, _ = momentum_matrix(step, beta, sigma, nesterov)
    delta = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
    U = power_table(A, m + 1)
    w, v, last = np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.int64)

    def steps(rows, yy, ind, ptr, idx, start, stop, t, look):
        for a in range(start, stop, m):  # pieces of at most m steps: the table's size
            momentum_steps(rows.data, ind, ptr, yy, P.code, step, beta, sigma, nesterov,
                           w, v, last, U, A, delta, idx, a, min(stop, a + m), look)

    params = {"sigma": sigma, "epochs": P.epochs, "loss": loss, "beta": beta,
              "nesterov": nesterov, "step": float(step), "L_max": Lmax,
              "effective_step": float(step) / (1.0 - beta), "seed": P.seed,
              "order": P.order}
    return P.run(steps, lambda: w, params, state=lambda: (w, v), copy_rows=False,
                 hint=f"step={step:.3g} with beta={beta:g} is too long for these rows "
                      f"(L_max = {Lmax:.3g}): pass a smaller step")
