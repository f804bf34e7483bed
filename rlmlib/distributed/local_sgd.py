"""Local SGD with periodic averaging (Zinkevich et al. 2010; Stich 2019) over partitions
on a Dask cluster; one-shot averaging is the case ``rounds=1``.

Every round, each partition k starts from the shared w, takes H_k = local_epochs · m_k
steps of the serial SGD kernel (``rlmlib.solvers.sgd.sgd_steps``: step 1/(σ(t + t0)), t
the partition's own step counter) and the client forms w ← Σ_k (m_k/m) w_k. With one
partition and ``local_epochs=1`` this is ``rlmlib.sgd`` with ``epochs=rounds`` (the same
examples in the same order; equal up to rounding, tested).
"""
import numpy as np

from ..core.checks import check_positive
from ..core.losses import LOSSES, loss_code
from ..solvers.sgd import sgd_steps, t0_heuristic
from .driver import check_run, run_rounds, setup, streams, weighted_average


def _local_sgd_round(X, y, state, w, r, H, sigma, t0, code, loss):
    m_k = X.shape[0]
    steps = H * m_k
    v = w.copy()
    s = np.ones(1)
    idx = state["stream"].take(steps)
    sgd_steps(X.data, X.indices, X.indptr, y, v, s, idx, 0, steps, r * steps, sigma, t0,
              code, False)
    state["dw"] = s[0] * v - w
    return state


def local_sgd(partitions, *, sigma, rounds, local_epochs=1, loss="hinge", t0=None,
              seed=0, order="reshuffle", client=None, callback=None):
    """Local SGD: ``local_epochs`` passes on each partition between two averagings.

    Parameters
    ----------
    partitions : list of Dask futures or delayed objects
        Each resolves on a worker to (X_k CSR, y_k) (``rlmlib.distributed.partitions``);
        labels -1/+1 for classification losses. Never gathered on the client.
    sigma : float > 0
    rounds : int >= 1
        Averaging rounds (communications); 1 is one-shot averaging.
    local_epochs : int >= 1
        Passes over its partition each worker takes per round.
    loss : one of ``rlmlib.LOSSES`` except 'exponential'
    t0 : float > 0 or None
        Step offset; None: ``t0_heuristic`` at the largest row norm of all partitions.
    seed : int >= 0
        Partition 0's order uses ``seed`` (as ``rlmlib.sgd``), partition k > 0 (seed, k).
    order : {'reshuffle', 'shuffle_once', 'cyclic', 'replacement'}
    client : distributed.Client or None (the current client)
    callback : callable(round, client) or None
        Called after each round (tests use it to kill a worker).

    Returns
    -------
    Result
        ``trace`` has one entry per round (F evaluated on the workers);
        ``info['bytes_weights']`` the bytes of weight vectors sent and received.

    Raises
    ------
    ValueError
        A malformed partition (naming ``partitions[k]`` and the fault) or an argument
        out of its range (naming it and the value).

    Examples
    --------
    >>> parts = load_npz_partitions(client, ["p0.npz", "p1.npz"])   # doctest: +SKIP
    >>> res = local_sgd(parts, sigma=1e-3, client=client, rounds=12)  # doctest: +SKIP
    """
    losses = tuple(k for k in LOSSES if k != "exponential")
    client, parts, shapes = setup(client, partitions, loss, losses)
    sigma, rounds, local_epochs, seed = check_run(sigma, rounds, local_epochs, seed,
                                                  order)
    R = max(s[2] for s in shapes)
    t0 = t0_heuristic(sigma, loss, R) if t0 is None else check_positive("t0", t0)
    m = sum(s[0] for s in shapes)
    params = {"sigma": sigma, "rounds": rounds, "local_epochs": int(local_epochs),
              "loss": loss, "t0": t0, "seed": seed, "order": order}
    return run_rounds("local_sgd", client, parts, shapes, streams(shapes, order, seed),
                      _local_sgd_round, (int(local_epochs), sigma, t0, loss_code(loss),
                                         loss), weighted_average(shapes),
                      rounds, sigma, loss, params, np.zeros(shapes[0][1]),
                      int(local_epochs) * m, callback=callback)
