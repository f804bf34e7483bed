"""Every registered solver over every combination of its categorical options (loss x order
x shrinking x schedule x ..., the choices read from the solvers by
tests/solver_options.py), on dense and CSR rows, in runs of one epoch and of several epochs
cut into checkpoint segments, plus each integer option that decides positions (k, memory,
inner, average_start, n_checkpoints, ...) at its edges in every order. Meant to run with
numba's bounds checking on (an out-of-bounds index then raises IndexError instead of
reading or writing outside an array):

    NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$(mktemp -d) PYTHONPATH=.:tests \\
        nice -n 19 .venv/bin/python tests/bounds_sweep.py [--solvers sdca,sag] [--quick]

tests/test_bounds.py runs it in a subprocess (``--quick``: each option's choices, each
with every order, instead of the whole product; RLMLIB_BOUNDS_SWEEP=full for the product).
A call may refuse a combination with a named error (ValueError, TypeError,
FloatingPointError with a message); any other exception is a failure, listed at the end
(exit status 1). Prints "ok <calls> calls, <refusals> refusals" when none failed.
"""
import argparse
import inspect
import itertools
import sys
import warnings

import numpy as np
import scipy.sparse as sp

import rlmlib
from solver_options import choices, integer_options
from solver_table import call

NAMED = (ValueError, TypeError, FloatingPointError)


def _steps(params):
    """The run lengths: one short run without checkpoints, one long cut in segments."""
    if "T" in params:
        return (dict(T=1), dict(T=40, n_checkpoints=7))
    if "epochs" in params:
        return (dict(epochs=1), dict(epochs=3, n_checkpoints=7))
    return ({},)


def combos(name, quick):
    """The keyword sets to call solver ``name`` with (besides the run length)."""
    ch = choices(name)
    if not ch:
        yield {}
        return
    keys = sorted(ch)
    if not quick:
        for vals in itertools.product(*(ch[k] for k in keys)):
            yield dict(zip(keys, vals))
    else:  # every choice of every option, each with every order (the walker's cases)
        orders = ch.get("order", (None,))
        for k in keys:
            for v in ch[k]:
                for o in orders:
                    kw = {k: v}
                    if o is not None and k != "order":
                        kw["order"] = o
                    yield kw
    for opt, vals in integer_options(name).items():
        for v in vals:
            for o in ch.get("order", (None,)):
                yield {opt: v} if o is None else {opt: v, "order": o}


def sweep(names, quick=False):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 6))
    y = np.where(X[:, 0] > 0, 1, -1)
    Xs = sp.random(30, 50, density=0.2, format="csr", random_state=1)
    n_calls, refusals, failures = 0, {}, []
    for name in names:
        params = inspect.signature(rlmlib.SOLVERS[name]).parameters
        extra = [{}]
        if "precondition" in params:  # the preconditioned paths of sag and svrg
            extra.append("precondition")
        for kw in combos(name, quick):
            for steps in _steps(params):
                for A in (X, Xs):
                    for ex in extra:
                        args = dict(kw, **steps)
                        n_calls += 1
                        try:
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                if ex == "precondition":  # refuses the losses it lacks
                                    args["precondition"] = rlmlib.precondition(
                                        A, sigma=0.1, beta=0.25,
                                        loss=args.get("loss", "logistic"))
                                call(name, A, y, **args)
                        except NAMED as e:
                            if not str(e):
                                failures.append((name, args, repr(e)))
                            key = f"{name}: {str(e)[:70]}"
                            refusals[key] = refusals.get(key, 0) + 1
                        except Exception as e:  # IndexError from the bounds checks
                            failures.append((name, {k: v for k, v in args.items()
                                                    if k != "precondition"}, repr(e)))
        print(f"{name}: {n_calls} calls so far", flush=True)
    return n_calls, refusals, failures


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--solvers", default=",".join(rlmlib.SOLVERS))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--refusals", action="store_true", help="list the refusals")
    a = ap.parse_args(argv)
    n, refusals, failures = sweep(a.solvers.split(","), a.quick)
    if a.refusals:
        for k, c in sorted(refusals.items()):
            print(f"  refused {c:4d}x  {k}")
    for f in failures:
        print("FAILED", *f)
    if failures:
        sys.exit(1)
    print(f"ok {n} calls, {sum(refusals.values())} refusals")


if __name__ == "__main__":
    main()
