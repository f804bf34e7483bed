"""The first call of every registered solver in a fresh process: with an empty numba
cache (what a reader of a new Binder session pays: every kernel compiled) and with the
cache that call filled (a returning reader: kernels loaded from disk).

    .venv/bin/python benchmarks/bench_cold_start.py
    .venv/bin/python benchmarks/bench_cold_start.py --solvers fiol sgd

Each solver runs in its own new Python process (``import rlmlib`` timed apart), on a small
sparse problem (200 x 50 CSR) of its smallest test call (``tests/solver_table.py``'s
arguments, repeated here), first with ``NUMBA_CACHE_DIR`` an empty directory, then again
with the same directory. The machine is shared: the load average is printed beside.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

#: the smallest call of each solver (as tests/solver_table.py)
CALLS = {
    "sgd": dict(epochs=2), "pegasos": dict(T=50), "pgs": dict(p=1.5, T=50),
    "svmsgd2": dict(epochs=2, t0=100.0), "sgdqn": dict(epochs=2, t0=100.0),
    "olbfgs": dict(epochs=2, t0=100.0),
    "fiol": dict(eta=0.1, epochs=2, loss="logistic"),
    "comid": dict(eta=0.1, epochs=2, loss="logistic"),
    "isgd": dict(eta=0.1, epochs=2, loss="logistic"),
    "sgd_l1": dict(eta=0.1, epochs=2, loss="logistic"),
    "sag": dict(epochs=2, loss="logistic"), "svrg": dict(epochs=2, loss="logistic"),
    "saga": dict(epochs=2, loss="logistic"), "sdca": dict(epochs=2, loss="hinge"),
    "lbfgs": dict(loss="logistic"), "asgd": dict(epochs=2),
    "sgd_momentum": dict(epochs=2, loss="logistic"),
    "catalyst": dict(epochs=2, loss="logistic"), "adagrad": dict(epochs=2),
    "adam": dict(epochs=2, step=0.01), "katyusha": dict(epochs=2, loss="logistic"),
}

_CHILD = """
import json, sys, time
t = time.perf_counter()
import numpy as np, scipy.sparse as sp
import rlmlib
t_import = time.perf_counter() - t
rng = np.random.default_rng(0)
X = sp.random(200, 50, density=0.2, format="csr", random_state=rng)
y = np.where(rng.standard_normal(200) > 0, 1.0, -1.0)
name, kw = sys.argv[1], json.loads(sys.argv[2])
t = time.perf_counter()
rlmlib.SOLVERS[name](X, y, sigma=0.1, **kw)
first = time.perf_counter() - t
t = time.perf_counter()
rlmlib.SOLVERS[name](X, y, sigma=0.1, **kw)
print(json.dumps({"import": t_import, "first": first, "second": time.perf_counter() - t}))
"""


def first_call(name, cache_dir):
    """{'import', 'first', 'second'} seconds of a fresh process running solver ``name``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", _CHILD, name, json.dumps(CALLS[name])],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(names):
    """{name: {'cold': {...}, 'warm': {...}, 'load': float}}."""
    res = {}
    for name in names:
        with tempfile.TemporaryDirectory() as cache:
            cold = first_call(name, cache)
            warm = first_call(name, cache)
        res[name] = {"cold": cold, "warm": warm, "load": os.getloadavg()[0]}
        print(f"{name:8s} empty cache: import {cold['import']:5.2f} s, first call "
              f"{cold['first']:6.2f} s | filled cache: import {warm['import']:5.2f} s, "
              f"first call {warm['first']:5.2f} s (second {warm['second']:.3f} s) | load "
              f"{res[name]['load']:.1f}", flush=True)
    return res


def rows(rec):
    """The recorded run as (header, rows) for :func:`rlmlib.book.captions.markdown_table`:
    per solver, seconds of ``import rlmlib`` and of the first call with an empty numba cache
    and with the filled one, and the load average while it ran.

    Parameters
    ----------
    rec : dict
        ``data/recorded/bench_cold_start.json`` (its ``'solvers'`` as :func:`measure`
        returns them).

    Returns
    -------
    (list of str, list of list of str)

    Examples
    --------
    >>> one = {"import": 0.3, "first": 2.25, "second": 0.001}
    >>> rec = {"solvers": {"sgd": {"cold": one, "warm": dict(one, first=0.16),
    ...                            "load": 0.3}}}
    >>> rows(rec)[1]
    [['sgd', '0.30', '2.25', '0.30', '0.16', '0.3']]
    """
    head = ["solver", "import, empty cache (s)", "first call, empty cache (s)",
            "import, filled cache (s)", "first call, filled cache (s)", "load"]
    return head, [[k, f"{v['cold']['import']:.2f}", f"{v['cold']['first']:.2f}",
                   f"{v['warm']['import']:.2f}", f"{v['warm']['first']:.2f}",
                   f"{v['load']:.1f}"] for k, v in rec["solvers"].items()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--solvers", nargs="*", default=list(CALLS))
    ap.add_argument("--record", action="store_true",
                    help="save to data/recorded/bench_cold_start.json")
    a = ap.parse_args(argv)
    from rlmlib.book import records

    missing = sorted(set(__import__("rlmlib").SOLVERS) - set(CALLS))
    if missing:
        raise SystemExit(f"no smallest call for the registered solver(s) {missing}; add "
                         f"them to CALLS")
    rec = records.start()
    rec["full"] = a.record
    rec["solvers"] = measure(a.solvers)
    return records.save(rec, "bench_cold_start", what="issue 38 item 5: first call of "
                        "each solver in a fresh process, numba cache empty and filled",
                        load_average=os.getloadavg())


if __name__ == "__main__":
    main()
