"""Seconds per pass of rlmlib.svmsgd2 and rlmlib.sgdqn against Bottou and Bordes's own C++
programs (``svm/old/svmsgd2.cpp`` and ``svm/old/svmsgdqn.cpp`` of the public ``bottou-sgd``
snapshot), on the same RCV1-like data, in storage order, alternately.

    .venv/bin/python benchmarks/bench_sgdqn_cpp.py --src /path/to/bottou-sgd [--rows 200000]
    (without --src or $BOTTOU_SGD_SRC it prints that it was skipped, so `make bench` passes)

Nothing of their code enters this repository: the script compiles each program from its own
source (their old Makefile links svmsgdqn against svmsgd2.o) into a temporary directory, with
``-O2 -DLOSS=SQUAREDHINGELOSS``, once with their default CPU-time clock (``std::clock``) and
once with ``-DUSE_REALTIME_CLOCK`` (wall clock), and writes the data as svmlight text
(``*.dat.gz``, which their programs read). Their programs store the data in single precision
and train in storage order; rlmlib runs in double precision with ``order='cyclic'``. Both
wall-clock and CPU-time ratios are printed (on a loaded machine they differ a lot).
"""
import argparse
import gzip
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import rlmlib
from rlmlib.datasets import synthetic


def build(src, out):
    lib = Path(src) / "lib"
    progs = {}
    for name in ("svmsgd2", "svmsgdqn"):
        for clock, flag in (("cpu", []), ("wall", ["-DUSE_REALTIME_CLOCK"])):
            exe = Path(out) / f"{name}_{clock}"
            subprocess.run(["g++", "-O2", "-DLOSS=SQUAREDHINGELOSS", *flag, f"-I{lib}", "-o",
                            str(exe), str(Path(src) / "svm" / "old" / f"{name}.cpp"),
                            str(lib / "vectors.cpp"), str(lib / "gzstream.cpp"),
                            str(lib / "timer.cpp"), "-lz", "-lm"], check=True)
            progs[name, clock] = exe
    return progs


def cpp_pass(exe, data, epochs, extra=()):
    out = subprocess.run([str(exe), "-lambda", "1e-4", "-epochs", str(epochs), *extra,
                          str(data)], capture_output=True, text=True, check=True).stdout
    return float(re.findall(r"Total training time ([0-9.e+-]+)", out)[-1]) / epochs


def ours_pass(f, X, y, epochs, **kw):
    c = time.process_time()
    res = f(X, y, sigma=1e-4, epochs=epochs, t0=1e5, order="cyclic", **kw)
    return res.trace.seconds[-1] / epochs, (time.process_time() - c) / epochs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", default=os.environ.get("BOTTOU_SGD_SRC"),
                    help="a checkout of the bottou-sgd snapshot (or $BOTTOU_SGD_SRC)")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=3)
    a = ap.parse_args()
    if not a.src:
        print("bench_sgdqn_cpp: skipped (pass --src or set BOTTOU_SGD_SRC to a checkout of "
              "the bottou-sgd snapshot)")
        return
    from sklearn.datasets import dump_svmlight_file

    tmp = Path(tempfile.mkdtemp(prefix="bench_sgdqn_cpp_"))
    progs = build(a.src, tmp)
    d = synthetic.rcv1_like(m=a.rows, seed=0)
    data = tmp / "rcv1like.dat.gz"
    with gzip.open(data, "wb", compresslevel=1) as fh:
        dump_svmlight_file(d.X, d.y.astype(int), fh, zero_based=False)
    X, y = d.X, d.y
    ours_pass(rlmlib.svmsgd2, X[:1000], y[:1000], 1)        # warm-up (numba cache)
    ours_pass(rlmlib.sgdqn, X[:1000], y[:1000], 1)
    t = {k: [] for k in ("svmsgd2 wall", "svmsgd2 cpu", "sgdqn wall", "sgdqn cpu",
                         "C++ svmsgd2 wall", "C++ svmsgd2 cpu", "C++ svmsgdqn wall",
                         "C++ svmsgdqn cpu")}
    for _ in range(a.reps):
        for name, f in (("svmsgd2", rlmlib.svmsgd2), ("sgdqn", rlmlib.sgdqn)):
            w, c = ours_pass(f, X, y, a.epochs)
            t[f"{name} wall"].append(w)
            t[f"{name} cpu"].append(c)
        for clock in ("wall", "cpu"):
            t[f"C++ svmsgd2 {clock}"].append(cpp_pass(progs["svmsgd2", clock], data, a.epochs))
            t[f"C++ svmsgdqn {clock}"].append(cpp_pass(progs["svmsgdqn", clock], data,
                                                       a.epochs, ("-t0", "1e5")))
    med = {k: float(np.median(v)) for k, v in t.items()}
    print(f"RCV1-like {X.shape[0]:,} x {X.shape[1]:,}, {X.nnz:,} non-zeros, storage order, "
          f"median of {a.reps}")
    for k, v in med.items():
        print(f"  {k:20s} {v * 1e3:8.2f} ms per pass")
    for clock in ("wall", "cpu"):
        print(f"{clock}: rlmlib.svmsgd2 / C++ svmsgd2 "
              f"{med[f'svmsgd2 {clock}'] / med[f'C++ svmsgd2 {clock}']:.2f}; "
              f"rlmlib.sgdqn / C++ svmsgdqn "
              f"{med[f'sgdqn {clock}'] / med[f'C++ svmsgdqn {clock}']:.2f}; "
              f"C++ svmsgdqn / C++ svmsgd2 "
              f"{med[f'C++ svmsgdqn {clock}'] / med[f'C++ svmsgd2 {clock}']:.2f}")


if __name__ == "__main__":
    main()
