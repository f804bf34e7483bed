"""Local SGD with variance-reduced local steps (local SVRG; the book's name, page
chapters/distributed/index) over partitions on a Dask cluster.

A round, from the shared w̃: the workers send Σ_{i∈k} ℓ'(⟨w̃, x_i⟩) x_i, the client sums
them into the full loss gradient ḡ = (1/m) Σ_i ℓ'(⟨w̃, x_i⟩) x_i and sends it back (one
extra exchange of n floats per partition); each partition k then takes H_k =
``local_epochs`` · m_k steps of SVRG's kernel (``rlmlib.solvers.svrg.svrg_steps``) with
the global anchor,

    w <- (1 - η σ) w - η [(ℓ'(⟨w, x_i⟩) - ℓ'(⟨w̃, x_i⟩)) x_i + ḡ],   i ∈ P_k,

and the client averages w ← Σ_k (m_k/m) w_k. The step's expectation over i ∈ P_k is the
gradient of F_k(w) + ⟨∇F(w̃) − ∇F_k(w̃), w⟩ (F_k the partition's own objective), whose
minimizer is w* when w̃ = w*: unlike local SGD's, its fixed point is the optimum, and
with a constant step it converges linearly (the local SGD of ``local_sgd`` needs 1/t
steps and converges like 1/t). With one partition a round is a stage of
``rlmlib.svrg(inner=local_epochs * m, snapshot='last')`` (the same examples in the same
order, the same step; equal up to rounding, tested).
"""
import numpy as np

from ..core.checks import check_positive
from ..core.losses import LOSSES, loss_code
from ..core.objective import mean_loss_grad
from ..precond.preconditioner import CURVATURE
from ..solvers.svrg import svrg_snapshot, svrg_steps
from ..solvers.vr import catch_up_all
from .driver import (check_run, gather, run_rounds, setup, streams,
                     weighted_average)
from .partitions import check_partition


def loss_gradient_sum(part, k, w, loss):
    """Σ_{i∈k} ℓ'(⟨w, x_i⟩, y_i) x_i over partitions[k] (n floats cross the network).

    Parameters
    ----------
    part : tuple
        The partition ``(X_k, y_k)`` as it lives on a worker (CSR rows, labels).
    k : int
        Its index (named in error messages).
    w : ndarray of shape (n,)
        The point.
    loss : str
        The loss's name.

    Returns
    -------
    ndarray of shape (n,)
        The sum of the partition's loss gradients at ``w`` (no regularizer).

    Raises
    ------
    ValueError
        A malformed partition (:func:`rlmlib.distributed.partitions.check_partition`).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> part = (sp.csr_matrix(np.eye(2)), np.array([1.0, -1.0]))
    >>> loss_gradient_sum(part, 0, np.zeros(2), "squared")
    array([-1.,  1.])
    """
    X, y = check_partition(part, k, loss)
    g = np.empty(X.shape[1])
    mean_loss_grad(X.data, X.indices, X.indptr, w, y, loss_code(loss), g)
    return g * X.shape[0]


def _local_svrg_round(X, y, state, w, r, g, H, sigma, step, code, loss):
    m_k, n = X.shape
    # the serial svrg's index types (unsigned views): its compiled kernels serve
    ind = X.indices.astype(np.int32, copy=False).view(np.uint32)
    ptr = X.indptr.astype(np.int64, copy=False).view(np.uint64)
    va = w.copy()
    vb, Sb, e = np.zeros(0), np.zeros(0), np.zeros(0)
    Q = np.zeros((m_k, 0))
    shift = np.zeros(m_k)
    last, Sa = np.zeros(n), np.zeros(n)
    gsnap = np.empty(m_k)
    st = np.array([1.0, 0.0])
    # the anchor's per-example derivatives at w~ (the kernel's own snapshot pass) ...
    svrg_snapshot(X.data, ind, ptr, y, Q, shift, code, va, vb, last, Sa, Sb, gsnap, st)
    # ... and the full gradient in place of the partition's: the kernel steps by
    # (eta / m_k) Sa, so Sa = m_k g
    Sa[:] = m_k * g
    steps = H * m_k
    idx = state["stream"].take(steps)
    svrg_steps(X.data, ind, ptr, y, Q, e, 1.0, sigma, shift, code, step, va, vb, last, Sa,
               Sb, gsnap, st, idx, 0, steps)
    catch_up_all(va, vb, last, Sa, st)
    state["dw"] = va - w
    return state


def local_svrg(partitions, *, sigma, rounds, local_epochs=1, loss="logistic", step=None,
               seed=0, order="reshuffle", client=None, callback=None):
    """Local SVRG: ``local_epochs`` passes of variance-reduced steps on each partition
    around the full gradient at the shared w, then an average.

    Parameters
    ----------
    partitions : list of Dask futures or delayed objects
        Each resolves on a worker to (X_k CSR, y_k) (``rlmlib.distributed.partitions``);
        never gathered on the client.
    sigma : float > 0
    rounds : int >= 1
        Rounds; each exchanges two vectors of n floats per partition (the full gradient,
        then the averaging).
    local_epochs : int >= 1
        Passes of SVRG steps over its partition each worker takes per round.
    loss : {'logistic', 'squared', 'squared_hinge', ...}
        A loss with a bounded second derivative (those of ``rlmlib.svrg``).
    step : float > 0 or None
        Constant step η; None: 1/L_max (L_max = smoothness · max‖x_i‖² + σ), the step
        ``rlmlib.svrg`` takes with a given inner length.
    seed, order, client, callback
        As in :func:`rlmlib.distributed.local_sgd`.

    Returns
    -------
    Result
        One trace entry per round; ``trace.epoch`` counts passes over the data, the
        gradient pass of each round included ((local_epochs + 1) per round);
        ``info['bytes_weights']`` the bytes of the vectors sent and received.

    Raises
    ------
    ValueError
        A malformed partition (naming ``partitions[k]`` and the fault) or an argument
        out of its range (naming it and the value).

    Examples
    --------
    >>> parts = load_npz_partitions(client, ["p0.npz", "p1.npz"])    # doctest: +SKIP
    >>> res = local_svrg(parts, sigma=1e-3, client=client, rounds=8)  # doctest: +SKIP
    """
    client, parts, shapes = setup(client, partitions, loss, tuple(CURVATURE))
    sigma, rounds, local_epochs, seed = check_run(sigma, rounds, local_epochs, seed,
                                                  order)
    R = max(s[2] for s in shapes)
    L_max = LOSSES[loss]["smoothness"] * R * R + sigma
    step = 1.0 / L_max if step is None else check_positive("step", step)
    m = sum(s[0] for s in shapes)
    n = shapes[0][1]

    def full_gradient(cl, ps, w):
        """ḡ at w from the partitions' sums, and the bytes it moved (w out, a sum back,
        ḡ out with the round's tasks)."""
        sums = gather(cl, [cl.submit(loss_gradient_sum, p, k, w, loss, pure=False)
                           for k, p in enumerate(ps)], "the full gradient",
                      [s[3] for s in shapes])
        return sum(sums) / m, 3 * len(ps) * n * 8

    params = {"sigma": sigma, "rounds": rounds, "local_epochs": local_epochs,
              "loss": loss, "step": step, "L_max": L_max, "seed": seed, "order": order}
    res = run_rounds("local_svrg", client, parts, shapes, streams(shapes, order, seed),
                     _local_svrg_round, (local_epochs, sigma, step, loss_code(loss),
                                         loss), weighted_average(shapes),
                     rounds, sigma, loss, params, np.zeros(n), (local_epochs + 1) * m,
                     callback=callback, before_round=full_gradient)
    return res
