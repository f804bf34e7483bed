"""The test suite under the conditions a reader's machine, a CI runner or a Binder node meets.

Each condition runs the unit tests (``pytest tests --ignore=tests/html``) and then executes
every chapter of the book from scratch (``tools/execute.py`` into a fresh execution cache;
a failing cell fails the run), in a subprocess whose environment sets the condition:

* ``busy``: two CPU-bound processes (pure Python loops) run on this machine for the whole
  run, so that every timing the suite or a page takes is disturbed;
* ``blas-<kernel>``: ``OPENBLAS_CORETYPE=<kernel>`` makes OpenBLAS run another kernel family
  (other roundings in the last bits of every BLAS and LAPACK result); the kernel actually
  taken is read with threadpoolctl and reported (OpenBLAS may fall back: ``Prescott`` runs
  as ``Katmai``);
* ``numba-1``: ``NUMBA_NUM_THREADS=1`` (the validation pass and every numba kernel on one
  thread).

    python tools/stress_suite.py                      # every condition
    python tools/stress_suite.py busy numba-1         # some of them
    python tools/stress_suite.py --unit-only busy     # the unit tests only

It prints a table (condition, kernel, wall time of each part, result) and writes it to
``_build/stress/summary.json``; the exit status is 1 when any run failed. ``make stress``
runs it; CI runs it on a schedule (``.github/workflows/stress.yml``). On two cores a full
run of every condition takes about 40 minutes.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
OUT = ROOT / "_build" / "stress"
#: the kernel families OpenBLAS can run on an x86-64 CPU with AVX2 (this one's default,
#: Haswell, is what every other run uses)
KERNELS = ("SkylakeX", "Sandybridge", "Prescott")
CONDITIONS = ("busy", *(f"blas-{k}" for k in KERNELS), "numba-1")
#: what the executed chapters see in the book's build (Makefile's BUILD_ENV)
BUILD_ENV = {"RLMLIB_EXPLORE": "static", "TQDM_DISABLE": "1",
             "MPLBACKEND": "module://matplotlib_inline.backend_inline",
             "JUPYTER_PREFER_ENV_PATH": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}


def environment(condition):
    env = dict(os.environ, **BUILD_ENV)
    if condition.startswith("blas-"):
        env["OPENBLAS_CORETYPE"] = condition[len("blas-"):]
    elif condition == "numba-1":
        env["NUMBA_NUM_THREADS"] = "1"
    elif condition != "busy":
        raise ValueError(f"condition must be one of {', '.join(CONDITIONS)}, got "
                         f"{condition!r}")
    return env


def blas_kernel(env):
    """The BLAS kernel family OpenBLAS takes under ``env`` (threadpoolctl)."""
    code = ("import numpy, threadpoolctl; i = [d for d in threadpoolctl.threadpool_info() "
            "if d['user_api'] == 'blas']; print(i[0].get('architecture') if i else '?')")
    out = subprocess.run([PY, "-c", code], env=env, capture_output=True, text=True)
    return out.stdout.strip() or "?"


def busy_processes(n=2):
    """``n`` CPU-bound processes, to be terminated by the caller."""
    return [subprocess.Popen([PY, "-c", "while True:\n    pass"]) for _ in range(n)]


def run(cmd, env, log):
    t = time.perf_counter()
    with open(log, "w") as f:
        rc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=f,
                            stderr=subprocess.STDOUT).returncode
    return rc, time.perf_counter() - t


def tail(path, n=3):
    lines = Path(path).read_text(errors="replace").strip().splitlines()
    return " | ".join(lines[-n:])


def one(condition, unit_only=False):
    env = environment(condition)
    OUT.mkdir(parents=True, exist_ok=True)
    row = {"condition": condition, "kernel": blas_kernel(env),
           "load_before": os.getloadavg()[0]}
    hogs = busy_processes() if condition == "busy" else []
    try:
        log = OUT / f"{condition}-unit.log"
        rc, sec = run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                       "--ignore=tests/html"], env, log)
        row["unit"] = {"rc": rc, "seconds": round(sec, 1), "tail": tail(log, 1)}
        if not unit_only:
            cache = OUT / f"{condition}-cache"
            subprocess.run(["rm", "-rf", str(cache)], check=True)
            log = OUT / f"{condition}-pages.log"
            rc, sec = run([PY, "tools/execute.py", ".", "--cache", str(cache)], env, log)
            row["pages"] = {"rc": rc, "seconds": round(sec, 1), "tail": tail(log, 2)}
    finally:
        for h in hogs:
            h.terminate()
        for h in hogs:
            h.wait()
    row["passed"] = all(row[k]["rc"] == 0 for k in ("unit", "pages") if k in row)
    return row


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("conditions", nargs="*", default=list(CONDITIONS),
                    help=f"some of {', '.join(CONDITIONS)} (default: all)")
    ap.add_argument("--unit-only", action="store_true", help="skip the chapters")
    args = ap.parse_args(argv)
    for c in args.conditions:
        environment(c)                     # a bad name fails before anything runs
    rows = []
    for c in args.conditions:
        print(f"[stress] {c} ...", flush=True)
        rows.append(one(c, args.unit_only))
        r = rows[-1]
        print(f"[stress] {c}: kernel {r['kernel']}, unit {r['unit']['seconds']:.0f} s "
              f"(rc {r['unit']['rc']}: {r['unit']['tail']})"
              + (f", pages {r['pages']['seconds']:.0f} s (rc {r['pages']['rc']})"
                 if "pages" in r else "") + (" PASSED" if r["passed"] else " FAILED"),
              flush=True)
        (OUT / "summary.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(f"\n{'condition':18s} {'BLAS kernel':12s} {'unit s':>7s} {'pages s':>8s}  result")
    for r in rows:
        pages = f"{r['pages']['seconds']:8.0f}" if "pages" in r else f"{'-':>8s}"
        print(f"{r['condition']:18s} {r['kernel']:12s} {r['unit']['seconds']:7.0f} {pages}  "
              + ("passed" if r["passed"] else "FAILED"))
    return 0 if all(r["passed"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
