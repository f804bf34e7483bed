"""The distributed solvers as registered solvers: ``rlmlib.DISTRIBUTED`` (kind
"distributed", DESIGN.md "The registry" and "Distributed training").

A registered solver takes in-memory rows, ``f(X, y, *, sigma, epochs, ...) -> Result``,
like every solver of ``rlmlib.SOLVERS``. These adapters give ``local_sgd``,
``local_svrg`` and ``cocoa`` that face: they build the one driver's ``core.problem.Problem`` for its checks (so a bad
argument gets the same error, naming it and its value, as from every other solver, before
any cluster is touched), cut the checked rows into ``partitions`` contiguous blocks,
scatter them to the workers of a Dask client (the current one unless ``client=`` is
given) and run the solver on the blocks' futures. The Result is the solver's, with the
original labels (``classes``) and ``info['check_seconds']``. An adapter moves the data
through the calling process once: it is for data that fit it (the shared tests, small
runs); data that do not fit stay on the workers and go to ``rlmlib.distributed.local_sgd``
/ ``cocoa`` as futures. ``hogwild`` is registered as it is (it takes in-memory rows and
runs threads in the calling process).
"""
import numpy as np
import scipy.sparse as sp

from ..core.checks import check_int, check_positive, sigma_keyword
from ..core.losses import LOSSES
from ..core.order import ORDERS
from ..core.problem import Problem
from ..precond.preconditioner import CURVATURE
from ..solvers.sdca import SDCA_LOSSES
from ..solvers.sgd import _check_scale as _sgd_scale, t0_heuristic
from .cocoa import check_aggregation, cocoa as _cocoa
from .local_sgd import local_sgd as _local_sgd
from .local_svrg import local_svrg as _local_svrg

#: every loss but the exponential one (as ``rlmlib.distributed.local_sgd``)
LOCAL_SGD_LOSSES = tuple(k for k in LOSSES if k != "exponential")


def _rounds(epochs, local_epochs):
    """Rounds of ``local_epochs`` passes that make ``epochs`` passes."""
    local_epochs = check_int("local_epochs", local_epochs)
    if epochs % local_epochs:
        raise ValueError(f"epochs must be a multiple of local_epochs={local_epochs} (each "
                         f"round makes local_epochs passes), got {epochs}")
    return epochs // local_epochs, local_epochs


def _scatter(P, partitions, client):
    """The checked rows cut into ``partitions`` contiguous blocks of (nearly) equal size,
    scattered to the client's workers: (client, futures)."""
    from .driver import _client

    K = check_int("partitions", partitions, hi=P.m)
    client = _client(client)
    X = sp.csr_matrix((P.rows.data, P.rows.indices, P.rows.indptr), shape=(P.m, P.n))
    cuts = np.linspace(0, P.m, K + 1).astype(np.int64)
    blocks = [(X[a:b], P.y[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    return client, client.scatter(blocks, hash=False)


def _finish(res, P, parts, check_seconds):
    """The registered solvers' Result: original labels, the validation pass's seconds, no
    futures left holding the scattered blocks."""
    res.classes = P.classes
    res.info.pop("states", None)
    res.info["check_seconds"] = check_seconds
    for f in parts:
        f.release()
    return res


def _problem(name, X, y, sigma, loss, epochs, seed, order, losses):
    """The one driver's checks of the rows and the shared arguments (the serial
    solvers' messages), for the adapter ``name``."""
    return Problem(name, X, y, sigma=sigma, loss=loss, epochs=epochs, seed=seed,
                   order=order, orders=ORDERS, losses=losses, compact_dense=False)


def _run(solver, P, partitions, client, **kw):
    """Scatter the checked rows as ``partitions`` blocks, run the partition-level
    ``solver`` on them with the checked σ, seed and order, and finish its Result."""
    client, parts = _scatter(P, partitions, client)
    res = solver(parts, sigma=P.sigma, seed=P.seed, order=P.order, client=client, **kw)
    res.params.update(epochs=P.epochs, partitions=len(parts))
    return _finish(res, P, parts, P.check_seconds)


@sigma_keyword
def local_sgd(X, y, *, sigma, epochs, local_epochs=1, partitions=2, loss="hinge",
              t0=None, seed=0, order="reshuffle", client=None):
    """``rlmlib.distributed.local_sgd`` on in-memory rows cut into ``partitions`` blocks.

    Parameters
    ----------
    X, y, sigma, loss, seed, order
        As for :func:`rlmlib.sgd` (the same checks, the same messages).
    epochs : int >= 1
        Passes over the data: ``epochs // local_epochs`` averaging rounds.
    local_epochs : int >= 1
        Passes over its block each worker takes per round (divides ``epochs``).
    partitions : int in [1, m]
        Contiguous blocks of rows, one task each per round.
    t0 : float > 0 or None
        Step offset (``rlmlib.sgd``'s heuristic by default).
    client : distributed.Client or None
        The cluster (None: the current client).

    Returns
    -------
    Result
        One trace entry per round; ``info['bytes_weights']`` the weights' bytes sent.

    Raises
    ------
    ValueError, TypeError
        A bad argument, named with its value, before any cluster is touched.

    Examples
    --------
    >>> import rlmlib                                                     # doctest: +SKIP
    >>> res = rlmlib.DISTRIBUTED["local_sgd"](X, y, sigma=0.01, epochs=4)  # doctest: +SKIP
    """
    P = _problem("local_sgd", X, y, sigma, loss, epochs, seed, order, LOCAL_SGD_LOSSES)
    rounds, local_epochs = _rounds(P.epochs, local_epochs)
    if t0 is not None:
        t0 = check_positive("t0", t0)
    _sgd_scale(P, t0_heuristic(P.sigma, loss, P.R if P.R < 2.0 ** 500 else 1.0)
               if t0 is None else t0)
    return _run(_local_sgd, P, partitions, client, rounds=rounds,
                local_epochs=local_epochs, loss=loss, t0=t0)


@sigma_keyword
def cocoa(X, y, *, sigma, epochs, local_epochs=1, partitions=2, loss="hinge", gamma=1.0,
          sigma_prime=None, seed=0, order="reshuffle", client=None):
    """``rlmlib.distributed.cocoa`` (CoCoA+ with local SDCA) on in-memory rows cut into
    ``partitions`` blocks.

    Parameters
    ----------
    X, y, sigma, seed, order
        As for :func:`rlmlib.sdca` (the same checks, the same messages).
    epochs : int >= 1
        Passes over the data: ``epochs // local_epochs`` rounds.
    local_epochs : int >= 1
        Passes of local SDCA per round (divides ``epochs``).
    partitions : int in [1, m]
        Contiguous blocks of rows.
    loss : {'hinge', 'squared_hinge', 'logistic', 'squared'}
    gamma, sigma_prime
        Aggregation and subproblem parameters (``rlmlib.distributed.cocoa``).
    client : distributed.Client or None
        The cluster (None: the current client).

    Returns
    -------
    Result
        ``info['gap']`` the duality gap after the last round (a certificate).

    Raises
    ------
    ValueError, TypeError
        A bad argument, named with its value, before any cluster is touched.

    Examples
    --------
    >>> import rlmlib                                                  # doctest: +SKIP
    >>> res = rlmlib.DISTRIBUTED["cocoa"](X, y, sigma=0.01, epochs=20)  # doctest: +SKIP
    >>> res.info["gap"] < 1e-6                                          # doctest: +SKIP
    True
    """
    P = _problem("cocoa", X, y, sigma, loss, epochs, seed, order, SDCA_LOSSES)
    rounds, local_epochs = _rounds(P.epochs, local_epochs)
    P.check_scale(*P.minimizer_bound(), extra=((P.R * P.R, "max||x_i||^2 (the dual "
                                                "coordinates' curvature)"),))
    K = check_int("partitions", partitions, hi=P.m)
    check_aggregation(gamma, sigma_prime, K)
    return _run(_cocoa, P, K, client, rounds=rounds, local_epochs=local_epochs,
                loss=loss, gamma=gamma, sigma_prime=sigma_prime)


@sigma_keyword
def local_svrg(X, y, *, sigma, epochs, local_epochs=1, partitions=2, loss="logistic",
               step=None, seed=0, order="reshuffle", client=None):
    """``rlmlib.distributed.local_svrg`` on in-memory rows cut into ``partitions``
    blocks.

    Parameters
    ----------
    X, y, sigma, seed, order
        As for :func:`rlmlib.svrg` (the same checks, the same messages).
    epochs : int >= 1
        Passes over the data, each round's gradient pass included: ``epochs //
        (local_epochs + 1)`` rounds (as ``rlmlib.svrg`` counts its snapshots).
    local_epochs : int >= 1
        Passes of SVRG steps over its block each worker takes per round.
    partitions : int in [1, m]
        Contiguous blocks of rows.
    loss : {'logistic', 'squared'}
    step : float > 0 or None
        Constant step (1/L_max by default).
    client : distributed.Client or None
        The cluster (None: the current client).

    Returns
    -------
    Result

    Raises
    ------
    ValueError, TypeError
        A bad argument, named with its value, before any cluster is touched.

    Examples
    --------
    >>> import rlmlib                                                     # doctest: +SKIP
    >>> res = rlmlib.DISTRIBUTED["local_svrg"](X, y, sigma=0.01, epochs=8)  # doctest: +SKIP
    """
    P = _problem("local_svrg", X, y, sigma, loss, epochs, seed, order, tuple(CURVATURE))
    local_epochs = check_int("local_epochs", local_epochs)
    if P.epochs % (local_epochs + 1):
        raise ValueError(f"epochs must be a multiple of local_epochs + 1 = "
                         f"{local_epochs + 1} (each round makes local_epochs passes and "
                         f"one gradient pass), got {P.epochs}")
    if step is not None:
        step = check_positive("step", step)
    P.check_scale(*P.minimizer_bound())
    return _run(_local_svrg, P, partitions, client,
                rounds=P.epochs // (local_epochs + 1), local_epochs=local_epochs,
                loss=loss, step=step)


def registered():
    """{name: solver} of kind "distributed", for ``rlmlib.DISTRIBUTED``.

    Returns
    -------
    dict
        Name to solver function, each taking ``X, y`` (or partitions) and a Dask client.

    Examples
    --------
    >>> sorted(registered())
    ['cocoa', 'hogwild', 'local_sgd', 'local_svrg']
    """
    from .hogwild import hogwild

    return {"local_sgd": local_sgd, "local_svrg": local_svrg, "cocoa": cocoa,
            "hogwild": hogwild}

