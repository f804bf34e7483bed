"""The round loop shared by the distributed solvers (one file per algorithm beside it).

Each round the client sends the current weights w (n floats) to every partition's task;
the task runs local steps with the serial solvers' numba kernels on its partition and
returns a small dict whose ``"dw"`` entry (n floats) alone comes back to the client. The
rest of a partition's state (its dual variables, its example stream) stays on the worker
as the round's future and is the next round's input, so that a lost worker's state is
recomputed from its lineage (the partition's load and the earlier rounds, all
deterministic): the run ends with the answer it would have had without the loss.
"""
import copy
import time

import numpy as np

from ..core.checks import check_choice
from ..core.losses import loss_code
from ..core.objective import mean_loss
from ..core.result import Result, Trace
from .partitions import _fmt_bytes, check_partition, describe

#: seconds a worker may stay paused (memory above its pause fraction) while a round waits
#: for it before the run stops with a MemoryError (a paused worker runs no task: waiting
#: longer would hang)
PAUSE_PATIENCE = 10.0


def _worker_memory_text(client, addr=None):
    """'worker A: 1.2 GB in use of its memory limit 2.0 GB' for one or every worker."""
    info = client.scheduler_info().get("workers", {})
    out = []
    for a, w in info.items():
        if addr is None or a == addr:
            lim = w.get("memory_limit") or 0
            used = (w.get("metrics") or {}).get("memory", 0)
            out.append(f"worker {a}: {_fmt_bytes(used)} in use of its memory limit "
                       f"{_fmt_bytes(lim) if lim else 'none'}")
    return "; ".join(out) or "no worker left"


def gather(client, futures, what, sizes=None):
    """``client.gather(futures)``, where ``futures[k]`` is partitions[k]'s task, that
    ends with a ``MemoryError`` naming the partition instead of hanging or failing
    anonymously: when Dask gives up on a task whose workers died (``KilledWorker``: out
    of memory is the usual cause), or when a worker stays paused for lack of memory
    longer than :data:`PAUSE_PATIENCE` seconds. ``what`` names the step (messages);
    ``sizes[k]`` is partitions[k]'s bytes when known."""
    from distributed import KilledWorker, wait
    from distributed import TimeoutError as DaskTimeout

    def size(k):
        return "" if sizes is None else f" (its arrays take {_fmt_bytes(sizes[k])})"

    paused_since = None
    while True:
        try:
            wait(futures, timeout=1.0)
            break
        except DaskTimeout:
            info = client.scheduler_info().get("workers", {})
            paused = [a for a, w in info.items() if w.get("status") == "paused"]
            if not paused:
                paused_since = None
                continue
            paused_since = paused_since or time.monotonic()
            if time.monotonic() - paused_since > PAUSE_PATIENCE:
                waiting = [k for k, f in enumerate(futures) if not f.done()]
                k = waiting[0] if waiting else 0
                raise MemoryError(
                    f"partitions[{k}]: {what} cannot go on: "
                    f"{_worker_memory_text(client, paused[0])} and it has paused (no task "
                    f"runs) for more than {PAUSE_PATIENCE:g} s{size(k)}; give the workers "
                    f"more memory or split the data into more partitions") from None
    try:
        return client.gather(futures)
    except KilledWorker as e:
        keys = [f.key for f in futures]
        k = keys.index(e.task) if e.task in keys else next(
            (i for i, f in enumerate(futures) if f.status == "error"), 0)
        raise MemoryError(
            f"partitions[{k}]: {what}: every worker that ran its task died "
            f"({e.allowed_failures + 1} attempts; last {e.last_worker.address}); the "
            f"usual cause is memory: {_worker_memory_text(client)}{size(k)}; give the "
            f"workers more memory or split the data into more partitions") from e


def _client(client):
    if client is None:
        from distributed import get_client

        return get_client()
    return client


def setup(client, partitions, loss, losses):
    """Validated partitions as futures, and their shapes (m_k, n, R_k) gathered."""
    client = _client(client)
    check_choice("loss", loss, losses)
    if not isinstance(partitions, (list, tuple)) or len(partitions) == 0:
        raise ValueError(f"partitions must be a non-empty list of futures or delayed "
                         f"(X, y) pairs, got {type(partitions).__name__}")
    parts = []
    for k, p in enumerate(partitions):
        if hasattr(p, "dask") and hasattr(p, "compute"):   # dask.delayed
            p = client.compute(p)
        elif not hasattr(p, "key"):
            raise ValueError(f"partitions[{k}] must be a Dask future or delayed object "
                             f"(the data stays on the workers), got {type(p).__name__}")
        parts.append(p)
    shapes = gather(client, [client.submit(describe, p, k, loss, pure=False)
                             for k, p in enumerate(parts)], "reading the partition")
    ns = {s[1] for s in shapes}
    if len(ns) != 1:
        raise ValueError(f"partitions must have the same number of columns, got "
                         f"{[s[1] for s in shapes]}")
    return client, parts, shapes


def partial_loss(part, k, w, loss):
    """Σ_i ℓ(⟨w, x_i⟩, y_i) over partitions[k] (a scalar crosses the network)."""
    X, y = check_partition(part, k, loss)
    return mean_loss(X.data, X.indices, X.indptr, w, y, loss_code(loss)) * X.shape[0]


def objective(client, parts, w, sigma, loss, m):
    """F(w) = (1/m) Σ_k Σ_{i in k} ℓ_i + (σ/2)‖w‖², the sums formed on the workers."""
    fs = [client.submit(partial_loss, p, k, w, loss) for k, p in enumerate(parts)]
    return sum(gather(client, fs, "evaluating F")) / m + 0.5 * sigma * float(w @ w)


def local_task(fn, part, k, state, w, args):
    """One partition's round: ``fn(X, y, state, w, *args)`` on a copy of the state (the
    input future is never mutated, so a recomputation gives the same output)."""
    X, y = check_partition(part, k, args[-1])
    return fn(X, y, copy.deepcopy(state), w, *args)


def get_dw(out):
    return out["dw"]


def run_rounds(name, client, parts, shapes, init_states, fn, args, combine, rounds,
               sigma, loss, params, w0, steps_per_round, info_fn=None, callback=None,
               before_round=None):
    """The loop: ``rounds`` rounds; after each, w <- combine(w, [dw_k]) and F(w) is
    recorded (a trace entry per round, evaluated on the workers). ``callback(r, client)``
    (tests: kill a worker) runs after round r; ``info_fn(client, states, w)`` returns a
    dict of scalars recorded at every checkpoint (info[key] the last, info[key + 's'] all).
    ``before_round(client, parts, w)`` (local SVRG's full gradient) returns (g, bytes): g
    goes to every task of the round as ``fn(X, y, state, w, r, g, *args)``, its bytes
    count with the weights' and its time with the round's.
    """
    m = sum(s[0] for s in shapes)
    w = w0
    states = init_states
    t = time.perf_counter()     # checkpoint evaluations (F, the dual) count as eval time
    objs = [objective(client, parts, w, sigma, loss, m)]
    extra = [info_fn(client, states, w)] if info_fn is not None else []
    its, secs, ev = [0], [0.0], time.perf_counter() - t
    solver_s = 0.0
    bytes_w = 0
    for r in range(rounds):
        t = time.perf_counter()
        head = (r,)
        if before_round is not None:
            g, nbytes = before_round(client, parts, w)
            head = (r, g)
            bytes_w += nbytes
        states = [client.submit(local_task, fn, p, k, s, w, head + args, pure=False)
                  for k, (p, s) in enumerate(zip(parts, states))]
        dws = gather(client, [client.submit(get_dw, s, pure=False) for s in states],
                     f"round {r}", [s[3] for s in shapes])
        bytes_w += 2 * len(parts) * w.shape[0] * 8   # w out, dw back, per partition
        w = combine(w, dws)
        solver_s += time.perf_counter() - t
        t = time.perf_counter()
        objs.append(objective(client, parts, w, sigma, loss, m))
        ev += time.perf_counter() - t
        its.append(its[-1] + steps_per_round)
        secs.append(solver_s)
        if info_fn is not None:
            t = time.perf_counter()
            extra.append(info_fn(client, states, w))
            ev += time.perf_counter() - t
        if callback is not None:
            callback(r, client)
    its = np.array(its, dtype=np.int64)
    trace = Trace(its, its / m, np.array(secs), np.array(objs), eval_seconds=ev)
    info = {"rounds": rounds, "partitions": len(parts), "m": m,
            "bytes_weights": bytes_w, "states": states}
    for key in (extra[0] if extra else {}):
        info[key + "s"] = np.array([e[key] for e in extra])
        info[key] = extra[-1][key]
    classes = None if loss == "squared" else np.array([-1.0, 1.0])
    return Result(w=w, solver=name, params=params, trace=trace, classes=classes,
                  info=info)


def check_run(sigma, rounds, local_epochs, seed, order):
    """The arguments every partition-level solver shares, checked with the serial solvers'
    checks and messages: (sigma, rounds, local_epochs, seed) as float/ints."""
    from ..core.checks import check_int, check_seed, check_sigma
    from ..core.order import ORDERS, check_order

    out = (check_sigma(sigma), check_int("rounds", rounds),
           check_int("local_epochs", local_epochs), check_seed(seed))
    check_order(order, ORDERS)
    return out


def streams(shapes, order, seed):
    """Every partition's example stream, as the initial states of its task (partition
    k's order seeded by :func:`stream_seed`)."""
    from ..core.order import ExampleStream

    return [{"stream": ExampleStream(s[0], order, stream_seed(seed, k))}
            for k, s in enumerate(shapes)]


def weighted_average(shapes):
    """The client's step of the averaging methods: w <- w + Σ_k (m_k/m) dw_k, the
    average of the partitions' local models weighted by their sizes m_k."""
    m = sum(s[0] for s in shapes)
    weights = [s[0] / m for s in shapes]

    def combine(w, dws):
        return w + sum(c * d for c, d in zip(weights, dws))

    return combine


def stream_seed(seed, k):
    """Partition k's example-order seed: ``seed`` itself for partition 0 (so that one
    partition visits the examples as the serial solver does), (seed, k) otherwise."""
    return seed if k == 0 else (seed, k)

