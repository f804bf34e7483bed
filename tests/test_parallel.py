"""rlmlib.book.parallel.sweep: results identical to a serial loop on the embedded cluster and on
a real scheduler with worker processes (one of which is killed mid-sweep), data scattered
once, errors named by grid point, bad grids rejected before anything runs."""
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
import scipy.sparse as sp

import rlmlib
from rlmlib.book import parallel
from rlmlib.book.parallel import Sweep, sweep
from rlmlib.core.cpus import usable_cores

from conftest import make_binary

REPO = Path(rlmlib.__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def no_scheduler_env_and_close_embedded():
    """The tests choose their cluster themselves; the embedded one is closed (and its worker
    processes gone) when the module is done."""
    saved = os.environ.pop(parallel.ENV, None)
    yield
    # multiprocessing's resource tracker lives as long as this interpreter: not a worker
    before = {p.pid for p in psutil.Process().children(recursive=True)
              if "resource_tracker" not in " ".join(p.cmdline())}
    parallel.close()
    if saved is not None:
        os.environ[parallel.ENV] = saved
    # they exit on their own after close (a loaded machine may take a moment: waited for,
    # up to 60 s, not a fixed sleep that a busy CI runner outlasts)
    procs = []
    for pid in before:
        try:
            procs.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(procs, timeout=60)
    alive = [p for p in alive if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not alive, [p.cmdline() for p in alive]


def same_result(a, b):
    """Bitwise identical runs (the timings aside)."""
    return (np.array_equal(a.w, b.w) and a.params == b.params
            and np.array_equal(a.trace.objective, b.trace.objective)
            and np.array_equal(a.trace.iteration, b.trace.iteration)
            and a.objective == b.objective)


# ----------------------------------------------------------------------------- embedded
def test_embedded_default_is_identical_to_serial_and_in_grid_order():
    X, y = make_binary(m=300, n=10, seed=3)
    Xs = sp.csr_matrix(X)
    grid = {"sigma": [1e-2, 1e-1], "seed": [0, 1, 2]}
    fixed = dict(p=1.8, T=3000, loss="logistic", n_checkpoints=4)
    sw = sweep(rlmlib.pgs, Xs, y, grid=grid, fixed=fixed, progress=False)
    assert isinstance(sw, Sweep) and len(sw) == 6
    assert sw.scheduler == "embedded" and sw.n_workers == usable_cores()
    # grid order: nested loops over the keys as given, the last one fastest
    assert sw.points == [{"sigma": s, "seed": k} for s in grid["sigma"] for k in grid["seed"]]
    for point, res in zip(sw.points, sw.results):
        assert same_result(res, rlmlib.pgs(Xs, y, **fixed, **point)), point
    assert sw.result(sigma=1e-1, seed=2) is sw.results[5]
    assert np.all(sw.seconds > 0) and sw.wall_seconds >= sw.scatter_seconds > 0
    # the embedded cluster is reused by the next sweep of the process
    client = parallel._embedded[1]
    sw2 = sweep(rlmlib.pgs, X, y, grid={"seed": range(2)}, fixed=dict(fixed, sigma=0.1),
                progress=False)
    assert parallel._embedded[1] is client
    assert same_result(sw2.results[1], rlmlib.pgs(X, y, **fixed, sigma=0.1, seed=1))


def where_numba_caches():
    """A task reporting numba's cache directory; defined in a function, so that it is sent
    by value (workers of the external cluster cannot import this test module)."""
    def numba_cache_dir(X, y, *, seed):
        import numba

        return numba.config.CACHE_DIR

    return numba_cache_dir


def test_embedded_workers_use_the_projects_numba_cache():
    X, y = make_binary(m=20, n=3)
    sw = sweep(where_numba_caches(), X, y, grid={"seed": range(4)}, progress=False)
    assert set(sw.results) == {os.environ["NUMBA_CACHE_DIR"]}
    assert len(sw.workers) >= 1


def test_lazy_end_objective_comes_back_settled_and_equal():
    """With n_checkpoints=None the end objective is computed on first access; a result that
    travelled from a worker has it settled, equal to the serial run's."""
    X, y = make_binary(m=150, n=5, seed=4)
    fixed = dict(p=2.0, sigma=0.1, T=500, loss="logistic")
    sw = sweep(rlmlib.pgs, X, y, grid={"seed": [0, 1]}, fixed=fixed, progress=False)
    for point, res in zip(sw.points, sw.results):
        assert not res.trace.lazy
        assert same_result(res, rlmlib.pgs(X, y, **fixed, **point))


def test_data_are_scattered_once_not_shipped_with_every_task():
    """Every task on a worker sees the same X object (a copy shipped with each task would be
    a new object each time; the list keeps them alive, so ids cannot be reused)."""
    X, y = make_binary(m=50, n=4)
    kept = []

    def where_is_X(X, y, *, seed):
        kept.append(X)
        return os.getpid(), id(X)

    sw = sweep(where_is_X, X, y, grid={"seed": range(12)}, progress=False)
    ids = {}
    for pid, ident in sw.results:
        ids.setdefault(pid, set()).add(ident)
    assert pid != os.getpid() and all(len(v) == 1 for v in ids.values()), ids


# ----------------------------------------------------------------------------- errors
def test_solver_errors_come_back_as_their_own_type_with_the_grid_point():
    X, y = make_binary(m=40, n=3)
    with pytest.raises(ValueError, match=r"p must be in .*got 2\.5 \(at grid point "
                                         r"p=2\.5, seed=1\)"):
        sweep(rlmlib.pgs, X, y, grid={"p": [2.0, 2.5], "seed": [1]},
              fixed=dict(sigma=0.1, T=10), progress=False)


class Diverged(ArithmeticError):
    """A solver's own exception type (importable by the workers: this module is)."""


def test_errors_that_cannot_take_a_message_carry_the_point_as_a_note():
    X, y = make_binary(m=40, n=3)

    def fails_at_three(X, y, *, seed):
        if seed == 3:
            raise KeyError(seed)
        return seed

    with pytest.raises(KeyError) as info:
        sweep(fails_at_three, X, y, grid={"seed": range(5)}, progress=False)
    assert info.value.args == (3,) and "at grid point seed=3" in info.value.__notes__

    def diverges(X, y, *, sigma):
        raise Diverged(f"sigma={sigma} too small")

    with pytest.raises(Diverged, match=r"too small \(at grid point sigma=1e-09\)"):
        sweep(diverges, X, y, grid={"sigma": [1e-9]}, progress=False)


def test_a_runs_warnings_reach_the_caller_with_its_point():
    """A diverging grid point's ConvergenceWarning (its end above F(0)) is issued by sweep
    with the point, not swallowed on the worker; a quiet point issues nothing."""
    import warnings

    X, y = make_binary(m=40, n=3)

    def run(X, y, *, t0):
        return rlmlib.sgd(30 * X, y, sigma=1.0, epochs=1, t0=t0)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sweep(run, X, y, grid={"t0": [1e-3, 1e6]}, progress=False)
    msgs = [str(c.message) for c in caught if issubclass(c.category, RuntimeWarning)]
    assert msgs and all("(at grid point t0=0.001)" in m for m in msgs), msgs


# ----------------------------------------------------------------------------- bad input
X0, Y0 = make_binary(m=20, n=3)
F = dict(sigma=0.1, T=10)


@pytest.mark.parametrize("kwargs, exc, msg", [
    (dict(grid=[("seed", [1])], fixed=F), TypeError, "grid must be a dict"),
    (dict(grid={}, fixed=F), ValueError, "at least one key"),
    (dict(grid={"seed": 3}, fixed=F), TypeError,
     r"grid\['seed'\] must be a list of values, got 3; for a single value use fixed"),
    (dict(grid={"loss": "hinge"}, fixed=F), TypeError, r"grid\['loss'\] must be a list"),
    (dict(grid={"seed": {"a": 1}}, fixed=F), TypeError, r"grid\['seed'\] must be a list"),
    (dict(grid={"seed": []}, fixed=F), ValueError, r"grid\['seed'\] is empty"),
    (dict(grid={"seed": np.zeros((2, 2))}, fixed=F), ValueError, "one-dimensional"),
    (dict(grid={1: [1]}, fixed=F), TypeError, "grid keys must be keyword names"),
    (dict(grid={"seed": [1]}, fixed=dict(F, seed=2)), ValueError,
     r"\['seed'\] given both in grid and in fixed"),
    (dict(grid={"sigmaa": [1]}, fixed=dict(T=10)), TypeError,
     r"pgs\(\) has no keyword 'sigmaa' \(from grid\)"),
    (dict(grid={"seed": [1]}, fixed=dict(F, tt=1)), TypeError,
     r"no keyword 'tt' \(from fixed\)"),
    (dict(grid={"X": [1]}, fixed=F), ValueError, "the solver's X and y"),
    (dict(grid={"seed": [1]}, fixed=[1]), TypeError, "fixed must be a dict"),
    (dict(grid={"seed": [1]}, fixed=F, progress="yes"), TypeError,
     "progress must be True or False"),
    (dict(grid={"seed": [1]}, fixed=F, scheduler="localhost:8786"), ValueError,
     "scheduler must be an address like 'tcp://host:8786'"),
])
def test_bad_grid_input_is_rejected_before_anything_runs(monkeypatch, kwargs, exc, msg):
    def no_cluster(*a, **k):
        raise AssertionError("a cluster was started for a bad input")

    monkeypatch.setattr(parallel, "_embedded_client", no_cluster)
    with pytest.raises(exc, match=msg):
        sweep(rlmlib.pgs, X0, Y0, **kwargs)


def test_solver_must_be_callable():
    with pytest.raises(TypeError, match="solver must be callable, got 3"):
        sweep(3, X0, Y0, grid={"seed": [1]})


# ----------------------------------------------------------------------------- a real cluster
def _process_groups_alive(pgids):
    """Processes (not zombies) still in one of these process groups."""
    left = []
    for p in psutil.process_iter(["pid", "status"]):
        try:
            if os.getpgid(p.info["pid"]) in pgids and p.info["status"] != psutil.STATUS_ZOMBIE:
                left.append(p.info["pid"])
        except (ProcessLookupError, psutil.Error):
            pass
    return left


def test_real_scheduler_and_workers_survive_a_killed_worker(tmp_path):
    """`dask scheduler` and two `dask worker` processes on 127.0.0.1; one worker is killed
    (SIGKILL) while it is executing a task; every result still comes back, identical to the
    serial runs, and no process is left behind."""
    X, y = make_binary(m=200, n=6, seed=5)
    fixed = dict(p=1.8, sigma=0.05, T=2000, loss="logistic", n_checkpoints=3)
    seeds = list(range(10))

    def slow_pgs(X, y, **kw):               # a run long enough to be caught in the middle
        time.sleep(0.3)
        return rlmlib.pgs(X, y, **kw)

    env = dict(os.environ, PYTHONPATH=str(REPO), DASK_LOGGING__DISTRIBUTED="error")
    env.pop("NUMBA_CACHE_DIR", None)     # the workers' `import rlmlib` sets the project's
    sched_file = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    procs = []

    def start(args, name):
        log = open(tmp_path / f"{name}.log", "w")
        procs.append(subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT,
                                      start_new_session=True, cwd=tmp_path))
        log.close()

    try:
        start(dask + ["scheduler", "--host", "127.0.0.1", "--port", "0",
                      "--dashboard-address", ":0", "--scheduler-file", str(sched_file),
                      "--idle-timeout", "120s"], "scheduler")
        deadline = time.monotonic() + 30
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sched_file.exists(), (tmp_path / "scheduler.log").read_text()
        for i in range(2):
            start(dask + ["worker", "--scheduler-file", str(sched_file), "--host", "127.0.0.1",
                          "--nthreads", "1", "--no-nanny", "--no-dashboard",
                          "--death-timeout", "30", "--name", f"w{i}"], f"worker{i}")
        from dask.distributed import Client

        with Client(scheduler_file=str(sched_file), timeout="30s") as client:
            client.wait_for_workers(2, timeout=30)
            address = client.scheduler.address
            workers = client.scheduler_info(n_workers=-1)["workers"]
            victim = next(a for a, w in workers.items() if w["name"] == "w1")
            victim_pid = client.run(os.getpid, workers=[victim])[victim]
            assert victim_pid == procs[2].pid

            out = {}

            def run():
                try:
                    out["sweep"] = sweep(slow_pgs, X, y, grid={"seed": seeds}, fixed=fixed,
                                         scheduler=address, progress=False)
                except BaseException as e:  # noqa: BLE001 (re-raised below)
                    out["error"] = e

            th = threading.Thread(target=run, daemon=True)
            th.start()
            executing = []
            deadline = time.monotonic() + 30
            while not executing and time.monotonic() < deadline and th.is_alive():
                try:
                    executing = client.run(
                        lambda dask_worker: [t.key for t in dask_worker.state.executing],
                        workers=[victim])[victim]
                except Exception:           # the worker is between tasks
                    pass
                time.sleep(0.05)
            assert executing, "the victim never ran a task"
            os.killpg(victim_pid, signal.SIGKILL)      # dies in the middle of a run
            th.join(timeout=60)
            assert not th.is_alive(), "the sweep did not finish within a minute"
            if "error" in out:
                raise out["error"]
            sw = out["sweep"]
            client.wait_for_workers(1)
            assert len(client.scheduler_info(n_workers=-1)["workers"]) == 1
        assert sw.n_workers == 2 and sw.scheduler == address and len(sw) == len(seeds)
        killed = [r for r in sw if r.point["seed"] in
                  {int(k.split("-")[1]) for k in executing}]
        assert killed and all(r.worker != victim for r in killed)  # run again elsewhere
        for r in sw:
            assert same_result(r.result, rlmlib.pgs(X, y, **fixed, seed=r.point["seed"]))
        cache = sweep(where_numba_caches(), X, y, grid={"seed": [0, 1]}, scheduler=address,
                      progress=False)
        assert set(cache.results) == {rlmlib._numba_cache_dir()}
    finally:
        pgids = [p.pid for p in procs]
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in procs:
            p.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _process_groups_alive(pgids) and time.monotonic() < deadline:
            time.sleep(0.1)
    assert not _process_groups_alive(pgids), "scheduler or worker processes left behind"
