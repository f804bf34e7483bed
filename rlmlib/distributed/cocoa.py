"""CoCoA / CoCoA+ distributed dual coordinate ascent (Jaggi et al. 2014; Ma et al. 2015;
Smith et al. 2018) over partitions on a Dask cluster, local solver: SDCA's kernel.

The dual of (σ/2)‖w‖² + (1/m) Σ ℓ(⟨w, x_i⟩, y_i) (``rlmlib.solvers.sdca``) splits its
variables α by partition. Each round, partition k improves its block α_[k] on the local
subproblem

    max_Δ  (1/m) Σ_{i∈k} -ℓ*(-(α_i + Δ_i)) - ⟨w, A_k Δ⟩ - (σ'/2) σ ‖A_k Δ‖²,

A_k Δ = (1/(σm)) Σ_{i∈k} Δ_i x_i, by ``local_epochs`` passes of exact coordinate steps:
SDCA's own kernel run with σm replaced by σm/σ' on a local copy w + σ' A_k Δ. The client
forms w ← w + γ Σ_k A_k Δ_[k] and each worker keeps α_[k] ← α_[k] + γ Δ_[k]. Safe pairs:
γ = 1/K, σ' = 1 (averaging, CoCoA) and γ = 1, σ' = γK (adding, CoCoA+; the default).
With one partition (K = 1, σ' = 1, γ = 1) a round is an SDCA pass: the run equals
``rlmlib.sdca(shrinking=False)`` up to rounding (tested).
"""
import numpy as np

from ..core.checks import check_positive
from ..core.losses import LOGISTIC, loss_code
from ..solvers.sdca import (BETA_EDGE, SDCA_LOSSES, _dual_objective, dual_to_primal,
                            sdca_steps)
from .driver import check_run, gather, get_dw, local_task, run_rounds, setup, streams


def _init(X, y, state, w, r, sm, code, loss):
    """α_[k] at the start (0, or y·BETA_EDGE for the logistic loss) and its w share."""
    alpha = np.zeros(X.shape[0])
    dw = np.zeros(X.shape[1])
    if code == LOGISTIC:
        alpha[:] = y * BETA_EDGE
        dual_to_primal(X.data, X.indices, X.indptr, alpha, sm, dw, False)
    conj = _dual_objective(code, alpha, y, np.zeros(1), 1.0) * X.shape[0]
    state.update(alpha=alpha, q=np.full(X.shape[0], -1.0), dw=dw, conj=conj)
    return state


def _cocoa_round(X, y, state, w, r, H, sigma, m, sigma_p, gamma, code, loss):
    m_k = X.shape[0]
    sm = sigma * m
    smp = sm / sigma_p
    alpha = state["alpha"]
    a0 = alpha.copy()
    wl = w.copy()
    steps = H * m_k
    idx = state["stream"].take(steps)
    pg = np.zeros(7)
    sdca_steps(X.data, X.indices, X.indptr, y, code, state["q"], smp, wl, alpha, idx, 0,
               steps, np.ones(m_k, dtype=np.bool_), False, pg, False,
               np.empty(0, dtype=np.uint64))
    state["alpha"] = a0 + gamma * (alpha - a0)
    state["dw"] = (wl - w) / sigma_p
    # Σ_{i∈k} -ℓ*(-α_i) at the aggregated α (the dual's separable part)
    state["conj"] = _dual_objective(code, state["alpha"], y, np.zeros(1), sigma) * m_k
    return state


def _conj(state):
    return state["conj"]


def check_aggregation(gamma, sigma_prime, K):
    """The subproblem parameter σ' for K partitions: ``sigma_prime``, or the safe γK when
    it is None, after checking γ in (0, 1] and σ' ≥ γK.

    Parameters
    ----------
    gamma : float
        The aggregation parameter γ in (0, 1] (1: adding the local updates).
    sigma_prime : float or None
        The subproblems' parameter σ', or None for the safe γK.
    K : int
        The number of partitions.

    Returns
    -------
    float
        σ'.

    Raises
    ------
    ValueError
        γ outside (0, 1], or σ' below γK (the message names the argument and the value).

    Examples
    --------
    >>> check_aggregation(0.5, None, 4)
    2.0
    >>> check_aggregation(1.0, 2.0, 4)
    Traceback (most recent call last):
    ...
    ValueError: sigma_prime must be >= gamma * K = 4 (the safe bound), got 2.0
    """
    gamma = check_positive("gamma", gamma)
    if gamma > 1.0:
        raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
    if sigma_prime is None:
        return gamma * K
    sigma_p = check_positive("sigma_prime", sigma_prime)
    if sigma_p < gamma * K * (1 - 1e-12):
        raise ValueError(f"sigma_prime must be >= gamma * K = {gamma * K:g} (the safe "
                         f"bound), got {sigma_prime!r}")
    return sigma_p


def cocoa(partitions, *, sigma, rounds, local_epochs=1, loss="hinge", gamma=1.0,
          sigma_prime=None, seed=0, order="reshuffle", client=None, callback=None):
    """CoCoA(+) with local SDCA: ``local_epochs`` passes per partition and round.

    Parameters
    ----------
    partitions : list of Dask futures or delayed objects
        Each resolves on a worker to (X_k CSR, y_k) with labels -1/+1 (or targets for
        'squared'); never gathered on the client.
    sigma : float > 0
    rounds : int >= 1
        Communication rounds.
    local_epochs : int >= 1
        Passes of local SDCA per round (H = local_epochs · m_k coordinate steps).
    loss : {'hinge', 'squared_hinge', 'logistic', 'squared'}
    gamma : float in (0, 1]
        Aggregation parameter γ: w ← w + γ Σ_k Δw_k.
    sigma_prime : float >= 1 or None
        Subproblem parameter σ'; None gives the safe value γK (Smith et al. 2018).
    seed, order, client, callback
        As in :func:`rlmlib.distributed.local_sgd`.

    Returns
    -------
    Result
        ``info['dual']`` D(α) and ``info['gap']`` P(w) − D(α) after the last round,
        ``info['duals']`` and ``info['gaps']`` at every checkpoint
        (the duals stay on the workers; ``info['states']`` holds their futures).

    Raises
    ------
    ValueError
        A malformed partition (naming ``partitions[k]`` and the fault), a loss SDCA does
        not take, or an argument out of its range (naming it and the value).

    Examples
    --------
    >>> from distributed import Client, LocalCluster                # doctest: +SKIP
    >>> client = Client(LocalCluster(n_workers=2, processes=True))  # doctest: +SKIP
    >>> parts = load_npz_partitions(client, ["p0.npz", "p1.npz"])   # doctest: +SKIP
    >>> res = cocoa(parts, sigma=1e-3, client=client, rounds=25)    # doctest: +SKIP
    >>> res.info["gap"] <= 1e-6                                     # doctest: +SKIP
    True
    """
    client, parts, shapes = setup(client, partitions, loss, SDCA_LOSSES)
    sigma, rounds, local_epochs, seed = check_run(sigma, rounds, local_epochs, seed,
                                                  order)
    sigma_p = check_aggregation(gamma, sigma_prime, len(parts))
    gamma = float(gamma)
    m = sum(s[0] for s in shapes)
    code = loss_code(loss)
    states0 = [client.submit(local_task, _init, p, k, st, None,
                             (0, sigma * m, code, loss), pure=False)
               for k, (p, st) in enumerate(zip(parts, streams(shapes, order, seed)))]
    w0 = sum(gather(client, [client.submit(get_dw, s, pure=False) for s in states0],
                    "the initial duals", [s[3] for s in shapes]))
    def combine(w, dws):
        return w + gamma * sum(dws)

    params = {"sigma": sigma, "rounds": rounds, "local_epochs": int(local_epochs),
              "loss": loss, "gamma": gamma, "sigma_prime": sigma_p, "seed": seed,
              "order": order}

    def info(cl, states, w):
        c = sum(gather(cl, [cl.submit(_conj, s, pure=False) for s in states],
                       "the dual's terms"))
        dual = c / m - 0.5 * sigma * float(w @ w)
        return {"dual": dual}

    res = run_rounds("cocoa", client, parts, shapes, states0, _cocoa_round,
                     (int(local_epochs), sigma, m, sigma_p, gamma, code, loss), combine,
                     rounds, sigma, loss, params, np.asarray(w0, dtype=np.float64),
                     int(local_epochs) * m, info_fn=info, callback=callback)
    res.info["gaps"] = res.trace.objective - res.info["duals"]
    res.info["gap"] = float(res.info["gaps"][-1])
    return res
