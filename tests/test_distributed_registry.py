"""The registry-wide checks for the solvers of kind "distributed" (``rlmlib.DISTRIBUTED``,
``DISTRIBUTED_TABLE`` in tests/solver_table.py), run on a LocalCluster of two worker
processes: the same Result/trace contract as every registered solver, the serial
registry's bad inputs refused with the same messages before the cluster is touched, and
one worker/one partition equal to the serial solver the algorithm reduces to. A solver
registered as "distributed" is covered the day it is registered (it needs a table entry).
"""
import inspect
import os
import re

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import rlmlib  # noqa: E402
from solver_table import DISTRIBUTED_TABLE  # noqa: E402
# the serial registry's bad inputs and their problem (its messages name 50 rows, 5 columns)
from test_hardening import SPOILED, data  # noqa: E402,F401

SIGMA = 0.1


@pytest.fixture
def client(dask_client):
    """The session's two worker processes (tests/conftest.py), the default client, which
    the registered solvers use when they get no ``client=``."""
    return dask_client


class Untouchable:
    """A client that fails on any use: the checks must come before the cluster."""

    def __getattr__(self, name):
        raise AssertionError(f"the cluster was used ({name}) before the input was checked")


def dcall(name, X, y, **over):
    kw = dict(sigma=SIGMA, **DISTRIBUTED_TABLE[name]["kwargs"])
    kw.update(over)
    return rlmlib.DISTRIBUTED[name](X, y, **kw)


def test_the_registry_lists_them_and_the_table_says_how_to_call_them():
    assert set(rlmlib.DISTRIBUTED) == set(DISTRIBUTED_TABLE), "add them to solver_table"
    assert not set(rlmlib.DISTRIBUTED) & set(rlmlib.SOLVERS)
    assert rlmlib.SOLVER_KINDS == {**dict.fromkeys(rlmlib.SOLVERS, "serial"),
                                   **dict.fromkeys(rlmlib.DISTRIBUTED, "distributed")}
    for name, f in rlmlib.DISTRIBUTED.items():
        params = inspect.signature(f).parameters
        assert list(params)[:2] == ["X", "y"], name
        assert params["sigma"].kind is inspect.Parameter.KEYWORD_ONLY, name
        entry = DISTRIBUTED_TABLE[name]
        assert set(entry["kwargs"]) | set(entry["one"]) <= set(params), name
        assert entry["steps"] in params, name
        assert entry["serial"][0] in rlmlib.SOLVERS, name


def test_the_cluster_has_two_worker_processes(client):
    pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids


@pytest.mark.parametrize("name", rlmlib.DISTRIBUTED)
def test_result_and_trace_contract(client, data, name):
    X, y = data
    labels = np.where(y > 0, "yes", "no")
    kw = dict(DISTRIBUTED_TABLE[name]["kwargs"], loss="logistic", seed=3)
    res = dcall(name, X, labels, **kw)
    m, n = X.shape
    assert isinstance(res, rlmlib.Result) and res.solver == name
    assert res.w.dtype == np.float64 and res.w.shape == (n,) and np.all(np.isfinite(res.w))
    tr = res.trace
    k = len(tr.iteration)
    assert k >= 2 and all(len(a) == k for a in (tr.epoch, tr.seconds, tr.objective))
    assert tr.iteration[0] == 0 and tr.iteration[-1] == kw["epochs"] * m
    assert np.all(np.diff(tr.iteration) > 0)
    assert np.allclose(tr.epoch, tr.iteration / m, rtol=0, atol=1e-12)
    assert tr.seconds[0] == 0 and np.all(np.diff(tr.seconds) >= 0)
    F0 = rlmlib.objective(X, y, np.zeros(n), sigma=SIGMA, loss="logistic")
    F = rlmlib.objective(X, y, res.w, sigma=SIGMA, loss="logistic")
    assert tr.objective[0] == pytest.approx(F0, rel=1e-12)
    assert res.objective == pytest.approx(F, rel=1e-12) and F < F0
    assert res.classes.tolist() == ["no", "yes"]
    assert np.mean(res.predict(X) == labels) > 0.8
    for key, v in dict(kw, sigma=SIGMA).items():
        assert res.params[key] == v, (key, res.params[key], v)
    assert res.info["check_seconds"] >= 0
    if name != "hogwild":   # threads > 1: reproducible in distribution only
        again = dcall(name, X, labels, **kw)
        assert np.array_equal(res.w, again.w)
        assert res.info["partitions"] == kw["partitions"]


@pytest.mark.parametrize("arg,spoil,exc,pattern", SPOILED, ids=[
    f"{a}-{i}" for i, (a, *_) in enumerate(SPOILED)])
@pytest.mark.parametrize("name", rlmlib.DISTRIBUTED)
def test_an_input_the_serial_solvers_reject_is_rejected_alike(data, name, arg, spoil, exc,
                                                              pattern):
    X, y = data
    f = rlmlib.DISTRIBUTED[name]
    params = inspect.signature(f).parameters
    if arg not in params and arg not in ("X", "y", "lam"):
        pytest.skip(f"{name} has no argument {arg}")
    serial, serial_kw = DISTRIBUTED_TABLE[name]["serial"]
    kw = dict(X=X, y=y, sigma=SIGMA, **DISTRIBUTED_TABLE[name]["kwargs"])
    if "client" in params:
        kw["client"] = Untouchable()
    kw.update(spoil(X, y))
    with pytest.raises(exc) as err:
        f(kw.pop("X"), kw.pop("y"), **kw)
    msg = str(err.value).replace(name, "<solver>")
    assert re.match(pattern, msg), (name, msg)
    if arg in ("loss", "order"):     # the allowed sets differ by solver; the shape does not
        return
    skw = dict(X=X, y=y, sigma=SIGMA, epochs=2, loss=params["loss"].default,
               **{k: X.shape[0] if v == "m" else v for k, v in serial_kw.items()})
    skw.update(spoil(X, y))
    with pytest.raises(exc) as ref:
        rlmlib.SOLVERS[serial](skw.pop("X"), skw.pop("y"), **skw)
    assert msg == str(ref.value).replace(serial, "<solver>")


@pytest.mark.parametrize("name,bad,pattern", [
    ("local_sgd", dict(partitions=0), r"partitions must be an integer in \[1, 50\], got 0"
     ),
    ("cocoa", dict(partitions=51), r"partitions must be an integer in \[1, 50\], got 51"
     ),
    ("local_sgd", dict(epochs=3, local_epochs=2),
     r"epochs must be a multiple of local_epochs=2 \(each round makes local_epochs "
     r"passes\), got 3"),
    ("local_svrg", dict(epochs=3), r"epochs must be a multiple of local_epochs \+ 1 = 2 "),
    ("local_svrg", dict(step=0.0), r"step must be"),
    ("cocoa", dict(gamma=1.5), r"gamma must be in \(0, 1\], got 1.5"),
    ("cocoa", dict(sigma_prime=0.5), r"sigma_prime must be >= gamma \* K = 2 \(the safe "
     r"bound\), got 0.5"),
    ("local_sgd", dict(t0=-1.0), r"t0 must be"),
    ("hogwild", dict(threads=0), r"threads must be an integer >= 1, got 0"),
])
def test_their_own_arguments_are_named_before_the_cluster_is_used(data, name, bad,
                                                                   pattern):
    X, y = data
    kw = {} if name == "hogwild" else {"client": Untouchable()}
    with pytest.raises(ValueError, match="^" + pattern):
        dcall(name, X, y, **kw, **bad)


ONE = [(name, loss) for name, e in DISTRIBUTED_TABLE.items()
       for loss in e.get("losses", ("hinge", "logistic"))]


@pytest.mark.parametrize("name,loss", ONE)
def test_one_worker_is_the_serial_solver(client, data, name, loss):
    X, y = data                   # dense rows: every feature in every support
    entry = DISTRIBUTED_TABLE[name]
    serial, serial_kw = entry["serial"]
    serial_kw = {k: X.shape[0] if v == "m" else v for k, v in serial_kw.items()}
    kw = dict(entry["kwargs"], **entry["one"], epochs=4, loss=loss, seed=7)
    res = dcall(name, X, y, **kw)
    ref = rlmlib.SOLVERS[serial](X, y, sigma=SIGMA, epochs=4, loss=loss, seed=7,
                                 **serial_kw)
    scale = np.abs(ref.w).max()
    assert scale > 0
    assert np.abs(res.w - ref.w).max() <= 1e-10 * scale, (name, loss)
    assert res.objective == pytest.approx(ref.objective, rel=1e-10)


def test_a_registered_solver_runs_on_a_worker_process(client, data):
    # hogwild's threads run where it is called: here in a worker process
    X, y = data
    f = rlmlib.DISTRIBUTED["hogwild"]
    there = client.submit(f, X, y, sigma=SIGMA, epochs=2, threads=1, pure=False).result()
    here = f(X, y, sigma=SIGMA, epochs=2, threads=1)
    assert np.array_equal(there.w, here.w)
