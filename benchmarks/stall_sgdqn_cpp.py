"""The corrected SGD-QN's stall on breast cancer, in the authors' own C++ program.

    .venv/bin/python benchmarks/stall_sgdqn_cpp.py --src /path/to/bottou-sgd
    (without --src or $BOTTOU_SGD_SRC it prints that it was skipped)

Builds ``svm/old/svmsgdqn.cpp`` of the public ``bottou-sgd`` snapshot with
``bench_sgdqn_cpp.build`` (into a temporary directory; none of its code enters this
repository), writes standardized breast cancer as svmlight text (``*.dat.gz``), runs 200
epochs in storage order for each sigma and t0, and prints the relative gap of the C++ primal
to the certified optimum of ``rlmlib.lbfgs`` beside ``rlmlib.sgdqn`` in the same order with
the same ``skip``: ``variant='corrected_code'`` (the program's clipping [0.1 sigma,
100 sigma]) and the default ``'corrected'`` ([sigma, 100 sigma]). The program computes in
single precision, so the runs are close, not identical. The chapter quotes this output.
"""
import argparse
import gzip
import os
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import rlmlib


def build(src, out):
    """The C++ svmsgdqn (CPU-time clock), compiled as bench_sgdqn_cpp compiles it."""
    try:
        from benchmarks.bench_sgdqn_cpp import build as build_all
    except ImportError:          # run as a script from benchmarks/
        from bench_sgdqn_cpp import build as build_all
    return build_all(src, out)["svmsgdqn", "cpu"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.environ.get("BOTTOU_SGD_SRC"),
                    help="a checkout of the bottou-sgd snapshot (or $BOTTOU_SGD_SRC)")
    ap.add_argument("--epochs", type=int, default=200)
    a = ap.parse_args()
    if not a.src:
        print("stall_sgdqn_cpp: skipped (pass --src or set BOTTOU_SGD_SRC to a checkout of "
              "the bottou-sgd snapshot)")
        return
    from sklearn.datasets import dump_svmlight_file

    tmp = Path(tempfile.mkdtemp(prefix="stall_sgdqn_cpp_"))
    exe = build(a.src, tmp)
    ds = rlmlib.load_dataset("breast_cancer", standardize=True)
    X, y = ds.X, ds.y
    data = tmp / "breast_cancer.dat.gz"
    for sigma in (0.1, 30.0):
        ref = rlmlib.lbfgs(X, y, sigma=sigma, loss="squared_hinge")
        yy = np.where(y == ref.classes[1], 1, -1)
        with gzip.open(data, "wb") as fh:
            dump_svmlight_file(X, yy, fh, zero_based=False)
        print(f"sigma = {sigma:g}, {a.epochs} epochs, storage order; relative gap to the "
              f"L-BFGS optimum")
        for t0 in (1e2, 1e3):
            out = subprocess.run([str(exe), "-lambda", str(sigma), "-t0", str(t0),
                                  "-epochs", str(a.epochs), str(data)],
                                 capture_output=True, text=True, check=True).stdout
            cost = float(re.findall(r"train: Cost: (\S+)", out)[-1].rstrip("."))
            skip = int(re.findall(r"skip: (\d+)", out)[0])
            gap = {"C++ svmsgdqn": (cost - ref.objective) / ref.objective}
            for v in ("corrected_code", "corrected"):
                r = rlmlib.sgdqn(X, y, sigma=sigma, epochs=a.epochs, t0=t0, skip=skip,
                                 order="cyclic", variant=v)
                gap[f"rlmlib {v}"] = (r.objective - ref.objective) / ref.objective
            print(f"  t0 = {t0:.0e}, skip = {skip}: "
                  + ", ".join(f"{k} {g:.2e}" for k, g in gap.items()))


if __name__ == "__main__":
    main()
