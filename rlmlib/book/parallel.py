"""Sweeps of independent solver runs on a Dask cluster (DESIGN.md, "Parallel sweeps").

``sweep(solver, X, y, grid=..., fixed=...)`` runs ``solver(X, y, **fixed, **point)`` for every
point of a grid, each run a task of ``dask.distributed``, and returns the results in grid
order beside their grid points. Where the tasks run:

* ``scheduler=None`` and no ``RLMLIB_SCHEDULER`` in the environment: an embedded
  ``LocalCluster`` with one single-threaded worker process per core, started by the first
  sweep, reused by the later ones of the same Python process and closed when it exits;
* ``scheduler="tcp://host:port"`` (or ``RLMLIB_SCHEDULER=tcp://host:port``): an existing
  cluster, started with ``dask scheduler`` / ``dask worker``, dask-jobqueue, Kubernetes, ...;
  a ``distributed.Client`` is accepted too.

What every task shares (the solver, X, y and ``fixed``) is scattered to the workers once per
sweep (to as many workers as the sweep has runs); a task carries only its grid point. A worker that dies takes nothing with it: the
scheduler runs its tasks again elsewhere, and since every run is deterministic given its
arguments (its seed included), the results are those of a serial loop, bit for bit.

Scripts that use the embedded cluster must guard their entry point with
``if __name__ == "__main__":`` (its workers are started with multiprocessing's "spawn",
which imports the main module again); notebooks need nothing.
"""
from __future__ import annotations

import atexit
import inspect
import itertools
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.cpus import usable_cores

#: environment variable naming the scheduler of an existing cluster
ENV = "RLMLIB_SCHEDULER"

__all__ = ["ENV", "Record", "Sweep", "sweep", "cluster_info", "close"]


@dataclass(frozen=True)
class Record:
    """One run of a sweep: its grid point, what the solver returned, the seconds the call
    took on its worker (wall time, data transfer excluded) and that worker's address.

    Attributes
    ----------
    point : dict
        The grid point (grid key -> value).
    result : object
        What the solver returned there.
    seconds : float
        Wall time of the call on its worker.
    worker : str
        The worker's address.

    Examples
    --------
    >>> from rlmlib.book.parallel import Record
    >>> Record({"sigma": 1e-4}, "a result", 0.5, "tcp://127.0.0.1:4000").point
    {'sigma': 0.0001}
    """

    point: dict
    result: Any
    seconds: float
    worker: str


class Sweep(Sequence):
    """The records of a sweep in grid order (a sequence of :class:`Record`).

    The grid order is that of nested loops over the grid's keys in the order they were
    given, the last key varying fastest (``itertools.product``).

    Attributes
    ----------
    keys : list of str
        The grid's keys.
    points : list of dict
        The grid points, in grid order.
    results : list
        What the solver returned at each point, in grid order.
    seconds : ndarray
        Seconds each call took on its worker.
    n_workers : int
        Workers the cluster had when the sweep started.
    workers : list of str
        Addresses of the workers whose results were kept.
    scheduler : str
        The scheduler's address, or ``"embedded"`` for the embedded local cluster.
    wall_seconds : float
        Wall time of the whole sweep, scatter included.
    scatter_seconds : float
        Time to scatter the solver, X, y and ``fixed`` to the workers.

    Examples
    --------
    :func:`sweep` makes one; by hand, with two records:

    >>> from rlmlib.book.parallel import Record, Sweep
    >>> recs = [Record({"seed": s}, 10 * s, 0.1, "w0") for s in (0, 1)]
    >>> sw = Sweep(["seed"], recs, n_workers=1, scheduler="embedded", wall_seconds=0.3,
    ...            scatter_seconds=0.1)
    >>> len(sw), sw.points, sw.result(seed=1)
    (2, [{'seed': 0}, {'seed': 1}], 10)
    """

    def __init__(self, keys, records, *, n_workers, scheduler, wall_seconds, scatter_seconds):
        self.keys = list(keys)
        self._records = list(records)
        self.n_workers = int(n_workers)
        self.scheduler = scheduler
        self.wall_seconds = float(wall_seconds)
        self.scatter_seconds = float(scatter_seconds)

    def __getitem__(self, i):
        return self._records[i]

    def __len__(self):
        return len(self._records)

    @property
    def points(self):
        return [r.point for r in self._records]

    @property
    def results(self):
        return [r.result for r in self._records]

    @property
    def seconds(self):
        return np.array([r.seconds for r in self._records])

    @property
    def workers(self):
        return sorted({r.worker for r in self._records})

    def result(self, **point):
        """The result at the grid point whose values are ``point`` (all the grid's keys).

        Raises
        ------
        KeyError
            When no grid point has these values.
        """
        if set(point) != set(self.keys):
            raise KeyError(f"give a value for each grid key {self.keys}, got {sorted(point)}")
        for r in self._records:
            if all(r.point[k] == v for k, v in point.items()):
                return r.result
        raise KeyError(f"no grid point {point}")

    def __repr__(self):
        head = (f"Sweep({len(self)} runs over {', '.join(self.keys)}; {self.n_workers} "
                f"workers ({self.scheduler}); {self.wall_seconds:.3g} s)")
        lines = [head]
        for r in self._records[:6]:
            pt = ", ".join(f"{k}={v!r}" for k, v in r.point.items())
            lines.append(f"  {pt}: {_short(r.result)}")
        if len(self) > 6:
            lines.append(f"  ... ({len(self) - 6} more)")
        return "\n".join(lines)


def _short(obj, width=60):
    s = repr(obj).replace("\n", " ")
    return s if len(s) <= width else s[:width - 3] + "..."


# ----------------------------------------------------------------------------- checks
def _check_grid(grid, fixed, solver):
    """Grid and fixed keywords checked before any cluster is touched; returns the grid's
    keys, the list of values of each key, and fixed as a dict."""
    if not callable(solver):
        raise TypeError(f"solver must be callable, got {solver!r}")
    if not isinstance(grid, Mapping):
        raise TypeError(f"grid must be a dict mapping keyword names to lists of values, "
                        f"got {type(grid).__name__}")
    if len(grid) == 0:
        raise ValueError("grid must have at least one key, got an empty dict")
    if fixed is None:
        fixed = {}
    if not isinstance(fixed, Mapping):
        raise TypeError(f"fixed must be a dict of keyword arguments or None, "
                        f"got {type(fixed).__name__}")
    fixed = dict(fixed)
    values = []
    for key, vals in grid.items():
        if not isinstance(key, str) or not key.isidentifier():
            raise TypeError(f"grid keys must be keyword names, got {key!r}")
        if isinstance(vals, np.ndarray):
            if vals.ndim != 1:
                raise ValueError(f"grid[{key!r}] must be one-dimensional, got shape "
                                 f"{vals.shape}")
            vals = vals.tolist()
        if isinstance(vals, (str, bytes, Mapping)) or not isinstance(
                vals, (Sequence, range, set, frozenset)):
            raise TypeError(f"grid[{key!r}] must be a list of values, got {vals!r}; "
                            f"for a single value use fixed={{{key!r}: ...}}")
        vals = list(vals)
        if not vals:
            raise ValueError(f"grid[{key!r}] is empty: every key needs at least one value")
        values.append(vals)
    for key in fixed:
        if not isinstance(key, str) or not key.isidentifier():
            raise TypeError(f"fixed keys must be keyword names, got {key!r}")
    both = sorted(set(grid) & set(fixed))
    if both:
        raise ValueError(f"{both} given both in grid and in fixed; give each keyword once")
    try:
        params = inspect.signature(solver).parameters
    except (TypeError, ValueError):       # no signature (some builtins): let the call tell
        params = None
    if params is not None:
        taken = [p.name for p in list(params.values())[:2]
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        clash = sorted(set(taken) & (set(grid) | set(fixed)))
        if clash:
            raise ValueError(f"{clash} are the solver's X and y, passed by sweep itself")
        if not any(p.kind == p.VAR_KEYWORD for p in params.values()):
            known = {p.name for p in params.values()
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
            unknown = sorted((set(grid) | set(fixed)) - known)
            if unknown:
                name = getattr(solver, "__name__", repr(solver))
                raise TypeError(f"{name}() has no keyword {unknown[0]!r} (from "
                                f"{'grid' if unknown[0] in grid else 'fixed'}); it takes "
                                f"{sorted(known)}")
    return list(grid), values, fixed


# ----------------------------------------------------------------------------- clusters
_lock = threading.Lock()
_embedded = None            # (LocalCluster, Client) of this process, once started
_workers_used = set()       # addresses of the workers that ran a sweep's task in this process


def _n_cores():
    """Cores this process may use: its affinity and its control group's CPU quota (a
    Binder session shows the host's cores but may use one or two)."""
    return usable_cores()


def _embedded_client():
    """The embedded LocalCluster's client, started on first use: one single-threaded worker
    process per core, numba's disk cache of this project, quiet logs. The scheduler's
    status page (Dask's dashboard when bokeh is installed) takes any free port, so that
    clusters of several processes on one machine never compete for 8787."""
    global _embedded
    with _lock:
        if _embedded is not None and _embedded[1].status == "running":
            return _embedded[1]
        from dask.distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=_n_cores(), threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=":0", silence_logs=logging.CRITICAL,  # status page: any free port
            env={"NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", ""),
                 "NUMBA_NUM_THREADS": "1"})  # the validation pass: one thread per worker
        client = Client(cluster, set_as_default=False)
        if _embedded is None:
            atexit.register(close)
        _embedded = (cluster, client)
        return client


def close():
    """Close the embedded cluster of this process, if one was started (done at exit).

    Returns
    -------
    None

    Examples
    --------
    >>> from rlmlib.book.parallel import close
    >>> close()   # no embedded cluster in this process: nothing to do
    """
    global _embedded
    with _lock:
        if _embedded is None:
            return
        cluster, client = _embedded
        _embedded = None
    logging.getLogger("distributed").setLevel(logging.CRITICAL)  # shutdown chatter
    try:
        client.close()
    finally:
        cluster.close()


def _client(scheduler):
    """(client, owned, label): the client to use, whether sweep must close it, and what to
    call the cluster in reports."""
    from dask.distributed import Client

    if scheduler is None:
        scheduler = os.environ.get(ENV) or None
    if scheduler is None:
        _check_main_guard()
        return _embedded_client(), False, "embedded"
    if isinstance(scheduler, Client):
        return scheduler, False, scheduler.scheduler.address
    if not isinstance(scheduler, str) or "://" not in scheduler:
        raise ValueError(f"scheduler must be an address like 'tcp://host:8786', a "
                         f"dask.distributed.Client or None, got {scheduler!r}")
    return Client(scheduler, set_as_default=False, timeout="20s"), True, scheduler


def cluster_info(scheduler=None):
    """The cluster a sweep with this ``scheduler`` argument would use, as a dict:
    ``scheduler`` (address or ``"embedded"``), ``n_workers`` and ``threads``.

    Parameters
    ----------
    scheduler : str, dask.distributed.Client or None
        As for :func:`sweep` (None: ``RLMLIB_SCHEDULER``, else the embedded cluster, which
        this starts if it is not running yet).

    Returns
    -------
    dict

    Examples
    --------
    >>> from rlmlib.book.parallel import cluster_info
    >>> cluster_info()["n_workers"] >= 1                 # doctest: +SKIP
    True
    """
    client, owned, label = _client(scheduler)
    try:
        workers = client.scheduler_info(n_workers=-1)["workers"]
        return dict(scheduler=label, n_workers=len(workers),
                    threads=sum(w["nthreads"] for w in workers.values()),
                    workers_used=len(_workers_used))
    finally:
        if owned:
            client.close()


# ----------------------------------------------------------------------------- the sweep
def _run(solver, X, y, fixed, point):
    """One task, on a worker: the call, timed, and the worker's address."""
    from dask.distributed import get_worker

    import warnings

    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:  # re-issued by sweep, with the point
        warnings.simplefilter("always")
        out = solver(X, y, **fixed, **point)
        if hasattr(out, "objective"):
            out.objective  # a lazy end check warns now, on the worker, where it is recorded
    seen = [(c.category, str(c.message)) for c in caught]
    return out, time.perf_counter() - t0, get_worker().address, seen


def _reissue(seen, point):
    """The warnings a grid point's run gave on its worker, issued here with the point."""
    import warnings

    where = "at grid point " + ", ".join(f"{k}={v!r}" for k, v in point.items())
    for category, msg in seen:
        try:
            w = category(f"{msg} ({where})")
        except Exception:  # a category not built from a message
            w = RuntimeWarning(f"{category.__name__}: {msg} ({where})")
        warnings.warn(w, stacklevel=3)


def _with_point(exc, point):
    """The exception a task raised, as the same type with the grid point in its message
    (or, when the type cannot be rebuilt from a message, with the point as a note)."""
    where = "at grid point " + ", ".join(f"{k}={v!r}" for k, v in point.items())
    if len(exc.args) == 1 and isinstance(exc.args[0], str):
        msg = f"{exc.args[0]} ({where})"
        try:
            new = type(exc)(msg)
        except Exception:
            new = None
        if new is not None and str(new) == msg:
            new.__dict__.update(exc.__dict__)
            return new.with_traceback(exc.__traceback__)
    exc.add_note(where)
    return exc


def _culprits(client, futures, points):
    """[(grid point, deaths)] of the runs a worker died while holding (running or queued),
    in grid order ([] when the scheduler cannot tell), from the scheduler's 'remove-worker'
    events (the client cannot fetch those events itself: they hold unpicklable worker
    states)."""
    def died_running(dask_scheduler=None, keys=()):
        # defined here, so that it travels by value: the scheduler need not import rlmlib
        keys, count = set(keys), {}
        for _, ev in dask_scheduler.get_events("all"):
            if isinstance(ev, dict) and ev.get("action") == "remove-worker" and \
                    not ev.get("expected"):
                for k in ev.get("processing-tasks", ()):
                    if k in keys:
                        count[k] = count.get(k, 0) + 1
        return count

    try:
        died = client.run_on_scheduler(died_running, keys=[f.key for f in futures])
    except Exception:  # noqa: BLE001 - a diagnosis only; the lost run is reported anyway
        return []
    return [(points[i], died[f.key]) for i, f in enumerate(futures) if f.key in died]


def _lost_run(exc, point, name, culprits=()):
    """A RuntimeError naming the grid point and the cause when Dask, not the solver, failed
    the run (its worker died, or the task was cancelled); None for the solver's own errors.
    ``culprits`` ([(point, deaths)], or a function returning them, asked only for a lost
    run: :func:`_culprits`) are the runs during which a
    worker died: the message names them, the likely cause, rather than the first run that
    happened to be lost with them."""
    from dask.distributed import CancelledError
    from distributed.scheduler import KilledWorker

    def call(p):
        return f"{name}(X, y, " + ", ".join(f"{k}={v!r}" for k, v in p.items()) + ")"

    where = ", ".join(f"{k}={v!r}" for k, v in point.items())
    if not isinstance(exc, (KilledWorker, CancelledError)):
        return None
    if callable(culprits):
        culprits = culprits()
    crash = ("(a crash inside the run: out of memory, a segmentation fault, os._exit, or "
             "the process was killed)")
    if culprits:   # most deaths first: the run that crashes its worker; the others were
        culprits = sorted(culprits, key=lambda c: -c[1])   # queued on the same worker
        runs = ", ".join(f"{call(p)} {n} time{'s' if n > 1 else ''}" for p, n in culprits)
        again = culprits[0][0]
        also = "" if any(p == point for p, _ in culprits) else (
            f"; the run {call(point)} was lost with them (a dying worker takes the results "
            f"and the scattered data it holds)")
        return RuntimeError(
            f"sweep: worker processes died while they held these runs (running or queued, "
            f"the most deaths first): {runs}: most likely a crash inside the run "
            f"{call(again)} (out of memory, a segmentation fault, os._exit, or the process "
            f"was killed){also}. Run {name}(X, y, **fixed, "
            + ", ".join(f"{k}={v!r}" for k, v in again.items())
            + ") in this process to see the error")
    if isinstance(exc, KilledWorker):
        tries = getattr(exc, "allowed_failures", None)
        return RuntimeError(
            f"sweep: the run {call(point)} never finished: the worker process "
            f"running it died{'' if tries is None else f' {tries + 1} times'} {crash}. "
            f"Run {name}(X, y, **fixed, {where}) in this process to see the error")
    reason = getattr(exc, "reason", None)
    reason = "Dask gave none" if reason in (None, "unknown") else reason
    return RuntimeError(
        f"sweep: the run {call(point)} was cancelled by Dask (reason: "
        f"{reason}): its worker died or left the cluster together with "
        f"every copy of the scattered data, or the client or scheduler shut down "
        f"during the sweep; check the cluster's workers and run the sweep again")


#: what :func:`sweep` says when a script's worker processes would run the script again
MAIN_GUARD = (
    "sweep: this script calls rlmlib.book.parallel.sweep at module level without an "
    "`if __name__ == \"__main__\":` guard. The embedded cluster starts its worker processes "
    "with multiprocessing's 'spawn', which imports the main script again in each of them; "
    "unguarded, every worker would start a cluster of its own, and none would start (Dask "
    "reports 'Nanny failed to start'). Put the script's work in a function and call it "
    "under `if __name__ == \"__main__\": main()`, or pass scheduler='tcp://host:port' of a "
    "running cluster. Notebooks need no guard.")


def _is_main_test(node):
    """Whether an ``if`` test is ``__name__ == "__main__"`` (either way round)."""
    import ast

    if not (isinstance(node, ast.Compare) and len(node.ops) == 1
            and isinstance(node.ops[0], ast.Eq)):
        return False
    sides = [node.left, node.comparators[0]]
    return any(isinstance(a, ast.Name) and a.id == "__name__" for a in sides) and any(
        isinstance(a, ast.Constant) and a.value == "__main__" for a in sides)


def _guarded(source, line):
    """Whether line ``line`` of a script lies inside a top-level ``if __name__ ==
    "__main__":`` block (None when the source does not parse or no statement holds it)."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for stmt in tree.body:
        if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            return isinstance(stmt, ast.If) and _is_main_test(stmt.test) and \
                any(b.lineno <= line <= (b.end_lineno or b.lineno) for b in stmt.body)
    return None


def _check_main_guard():
    """RuntimeError(MAIN_GUARD), before any process is started, when the main module is a
    script file whose top-level code calling this (the line of the script's module frame on
    the stack) is not inside an ``if __name__ == "__main__":`` block: spawned workers would
    run that line again. Without such a frame (a sweep from a thread, a callback), a script
    whose source has no ``__name__ == "__main__"`` test at all is refused. Also raised in a
    spawned child that is importing the main script (``__mp_main__``)."""
    import multiprocessing
    import re

    main = sys.modules.get("__main__")
    if getattr(main, "__name__", "") == "__mp_main__" or (
            "__mp_main__" in sys.modules
            and getattr(multiprocessing.current_process(), "_inheriting", False)):
        raise RuntimeError(MAIN_GUARD)
    path = getattr(main, "__file__", None)
    if path is None or not str(path).endswith(".py") or hasattr(sys, "ps1"):
        return  # a notebook, an interactive session, python -c
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except OSError:
        return
    frame = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "<module>"
                                     and frame.f_globals is vars(main)):
        frame = frame.f_back
    if frame is not None:   # the script is running its top level: is this line guarded?
        if _guarded(source, frame.f_lineno) is False:
            raise RuntimeError(MAIN_GUARD)
        return
    if not re.search(r"__name__\s*==\s*['\"]__main__['\"]|['\"]__main__['\"]\s*==\s*__name__",
                     source):
        raise RuntimeError(MAIN_GUARD)


def sweep(solver, X, y, *, grid, fixed=None, scheduler=None, progress=True):
    """Run ``solver(X, y, **fixed, **point)`` for every point of a grid on a Dask cluster.

    Parameters
    ----------
    solver : callable
        A solver such as ``rlmlib.pgs``, or any function ``f(X, y, **keywords)`` (defined in
        a module the workers can import, or in a notebook or script: then it is sent by
        value, with the globals it uses). Its runs must be independent.
    X, y : array-like
        The data, scattered to the workers once for the whole sweep.
    grid : dict of lists
        Keyword name -> values; the grid is their cross product, in the order of nested
        loops over the keys as given (the last key varies fastest). ``seed`` may be a key.
    fixed : dict, optional
        Keywords passed unchanged to every run (scattered once, like the data).
    scheduler : str, dask.distributed.Client or None
        Address of an existing cluster's scheduler (``"tcp://host:8786"``) or a client
        connected to one. None: the address in ``RLMLIB_SCHEDULER`` if set, else the
        embedded local cluster (one single-threaded worker process per core, reused by
        later sweeps of this process).
    progress : bool
        Show a progress bar (tqdm; ``TQDM_DISABLE=1`` silences it too).

    Returns
    -------
    Sweep
        A sequence of :class:`Record` ``(point, result, seconds, worker)`` in grid order,
        with ``.points``, ``.results`` and ``.seconds`` as lists/arrays in that order,
        ``.result(**point)`` to look one up, and ``.n_workers``, ``.wall_seconds``,
        ``.scatter_seconds``.

    Raises
    ------
    TypeError, ValueError
        For a bad grid or fixed (not a dict, an empty list, a single value where a list is
        expected, a key given twice or unknown to the solver), before anything runs.
    Exception
        An exception raised by the solver in any run is raised here, of the same type, its
        message followed by the grid point; the remaining runs are cancelled.
    RuntimeError
        When Dask lost a run (its worker died, or the task was cancelled), naming the grid
        point and the cause; and for a script without an ``if __name__ == "__main__":``
        guard that would start the embedded cluster (``MAIN_GUARD`` says why).

    Examples
    --------
    >>> import rlmlib
    >>> from rlmlib.book.parallel import sweep
    >>> from rlmlib.datasets.synthetic import pgs_toy
    >>> ds = pgs_toy(1000, 5, seed=0)
    >>> sw = sweep(rlmlib.pegasos, ds.X, ds.y, grid={"sigma": [1e-2, 1e-1],
    ...            "seed": range(3)}, fixed={"T": 1000}, progress=False)  # doctest: +SKIP
    >>> [p["seed"] for p in sw.points]                                  # doctest: +SKIP
    [0, 1, 2, 0, 1, 2]
    >>> sw.result(sigma=0.1, seed=2).objective                          # doctest: +SKIP
    """
    keys, values, fixed = _check_grid(grid, fixed, solver)
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True or False, got {progress!r}")
    points = [dict(zip(keys, combo)) for combo in itertools.product(*values)]
    from dask.distributed import as_completed

    t_start = time.perf_counter()
    client, owned, label = _client(scheduler)
    futures, shared = [], []
    try:
        n_workers = len(client.scheduler_info(n_workers=-1)["workers"])
        t0 = time.perf_counter()
        # [solver, X, y, fixed] -> four futures, one copy of each on as many workers as
        # there are runs (at least two, so that a dying worker does not take the only
        # copy); Dask copies them in a tree, each holder feeding two more workers
        copies = min(n_workers, max(2, len(points)))
        shared = client.scatter([solver, X, y, fixed], broadcast=copies or True, hash=False)
        scatter_seconds = time.perf_counter() - t0
        name = getattr(solver, "__name__", "solver")
        token = uuid.uuid4().hex[:12]
        futures = [client.submit(_run, *shared, point, key=f"{name}-{i}-{token}", pure=False)
                   for i, point in enumerate(points)]
        index = {f.key: i for i, f in enumerate(futures)}
        out = [None] * len(points)
        bar = None
        if progress:
            from tqdm.auto import tqdm

            bar = tqdm(total=len(points), desc=name, unit="run", file=sys.stdout)
        try:
            for fut in as_completed(futures, loop=client.loop):
                i = index[fut.key]
                try:
                    out[i] = fut.result()
                except Exception as e:
                    lost = _lost_run(e, points[i], name,
                                     lambda: _culprits(client, futures, points))
                    if lost is not None:
                        raise lost from e
                    raise _with_point(e, points[i]) from None
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        for point, (_, _, _, seen) in zip(points, out):  # a run's warnings are the user's
            _reissue(seen, point)
        records = [Record(point, res, secs, worker)
                   for point, (res, secs, worker, _) in zip(points, out)]
        _workers_used.update(r.worker for r in records)
        return Sweep(keys, records, n_workers=n_workers, scheduler=label,
                     wall_seconds=time.perf_counter() - t_start,
                     scatter_seconds=scatter_seconds)
    finally:
        if futures or shared:
            client.cancel(futures + list(shared))
        if owned:
            client.close()
