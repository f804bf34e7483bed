"""Execute the book's chapters in parallel into the jupyter-cache, before the Sphinx pass.

    python tools/execute.py [BOOK_ROOT] [--cache PATH] [--reuse-from MAIN_ROOT]

Reads the chapters listed in BOOK_ROOT/_toc.yml (root included), registers each MyST
notebook in the jupyter-cache with myst-nb's own reader (so the Sphinx pass, which reads the
notebooks the same way, finds them by the same hash), and executes every notebook whose
cached copy is missing or stale with jupyter-cache's `local-parallel` executor: one process
per core, each notebook in its own directory as working directory (as myst-nb would run it);
the pages listed in TIMED, which measure times, run afterwards one at a time (with
--timed-in-parallel, as `make test` runs it, in the same parallel batch).
A failing notebook is reported with its traceback and the script exits non-zero.

jupyter-cache only hashes a notebook's own code.  The outputs also depend on `rlmlib/`,
`data/` and the pins, so their fingerprint is kept in the cache directory: when it changes the
cache is cleared (every chapter runs again) and `_build/.sphinx-stale` tells the Makefile to
re-render every page (Sphinx would otherwise only re-read pages whose source changed).

The student edition (`--reuse-from MAIN_ROOT`, as `make book-student` runs it) is the same
book with the solutions cut out and empty answer cells (comments only) added. A student page
whose cut cells all come after every kept cell that runs code executes exactly as the main
edition's page does up to that point, so its outputs are the main edition's, already in the
cache: they are copied into the student page's cache entry instead of running it again
(`student_outputs`). A page where a kept cell follows a cut one, or whose code differs
otherwise, is executed.

The execution environment is the caller's: `make book` exports RLMLIB_EXPLORE=static (the
explorable figures are precomputed for the HTML), TQDM_DISABLE=1 and NUMBA_CACHE_DIR.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import os
import sys
import time
from pathlib import Path

import yaml
from jupyter_cache import get_cache
from jupyter_cache.executors import load_executor

READER = {"name": "myst_nb_md", "type": "plugin"}
#: the repository (also for the student edition's copy, whose tools/ is a symlink here)
REPO = Path(__file__).resolve().parents[1]
#: what executed outputs depend on besides the notebooks' own code (which jupyter-cache hashes)
#: (chapters/foundations/symbols.yml: the notation page's tables are generated from it)
DEPENDS = ["rlmlib", "data", "benchmarks", "requirements.txt", "pyproject.toml",
           "chapters/foundations/symbols.yml"]
#: environment variables that change what the chapters compute (sizes, figure mode)
ENV_DEPENDS = ["RLMLIB_FULL", "RLMLIB_EXPLORE"]
#: pages that time code and state results about the times: executed one at a time, after
#: the others (in parallel with another notebook, or with a page's Dask workers, a timing on
#: the two-core machine measures the neighbour, not the code)
TIMED = ["chapters/foundations/order.md", "chapters/pegasos/experiments.md",
         "chapters/sgdqn/experiments.md", "chapters/fiol/experiments.md",
         "chapters/precond/experiments.md", "chapters/implementation/benchmarks.md",
         "chapters/implementation/cluster.md"]
#: marker telling the Makefile to re-render every page (`jupyter-book build --all`)
STALE_MARKER = Path("_build") / ".sphinx-stale"


def fingerprint(root: Path = REPO) -> str:
    """Hash of the library, the data, the benchmark scripts, the pins and the environment
    variables that set the chapters' sizes: jupyter-cache only hashes a notebook's code, so a
    change here must invalidate every cached notebook."""
    h = hashlib.sha256()
    for entry in DEPENDS:
        base = root / entry
        files = [base] if base.is_file() else sorted(
            p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and p.suffix not in (".pyc", ".nbi", ".nbc")) if base.exists() else []
        for f in files:
            h.update(f.relative_to(root).as_posix().encode() + b"\0")
            h.update(f.read_bytes())
            h.update(b"\0")
    for var in ENV_DEPENDS:
        h.update(f"{var}={os.environ.get(var, '')}\0".encode())
    return h.hexdigest()


def toc_files(root: Path) -> list[Path]:
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)

    walk(toc)
    out = []
    for f in files:
        p = root / f
        if p.suffix == "":
            p = p.with_suffix(".md")
        if not p.is_file():
            sys.exit(f"_toc.yml lists {f!r} but {p} does not exist")
        out.append(p.resolve())
    return out


def is_notebook(path: Path) -> bool:
    """A MyST notebook carries a jupytext/kernelspec header; plain pages are not executed."""
    head = path.read_text(encoding="utf8")[:2000]
    return head.startswith("---") and "kernelspec:" in head


def inert(source: str) -> bool:
    """A code cell that runs nothing: blank lines and comments only (the student edition's
    answer cells)."""
    return all(not ln.strip() or ln.lstrip().startswith("#") for ln in source.splitlines())


def student_outputs(student_nb, main_executed):
    """``student_nb`` (a notebook) with each code cell's outputs and execution count taken
    from ``main_executed`` (the main edition's executed notebook), or None when the two
    would not execute alike. The student page's code cells must be the main page's in
    order, minus cut cells, plus inert cells (:func:`inert`); and every cut cell must come
    after every kept cell that runs code, so that the kept cells run in the same state."""
    main = [c for c in main_executed.cells if c.cell_type == "code"]
    mine = [c for c in student_nb.cells if c.cell_type == "code"]
    match, j, cut = {}, 0, []
    for k, cell in enumerate(main):
        while j < len(mine) and mine[j].source != cell.source and inert(mine[j].source):
            j += 1  # an answer cell of the student edition
        if j < len(mine) and mine[j].source == cell.source:
            match[j] = k
            j += 1
        else:
            cut.append(k)
    if any(i not in match and not inert(c.source) for i, c in enumerate(mine)):
        return None
    if cut and any(k > cut[0] and not inert(main[k].source) for k in match.values()):
        return None
    out = copy.deepcopy(student_nb)
    # the kernel's language_info (the lexer: ipython3) as the main page has it
    if "language_info" in main_executed.metadata:
        out.metadata["language_info"] = copy.deepcopy(main_executed.metadata["language_info"])
    code = [c for c in out.cells if c.cell_type == "code"]
    for i, cell in enumerate(code):
        src = main[match[i]] if i in match else None
        cell.outputs = copy.deepcopy(src.outputs) if src is not None else []
        cell.execution_count = src.execution_count if src is not None else None
    return out


def reuse_main_outputs(cache, records, root: Path, main_root: Path) -> list[str]:
    """Cache the student pages among ``records`` (project records not yet executed) whose
    outputs :func:`student_outputs` can take from the main edition's cached page; returns
    their paths relative to ``root``."""
    from jupyter_cache.base import CacheBundleIn

    reused = []
    for rec in records:
        rel = Path(rec.uri).relative_to(root)
        main_rec = cache.get_cached_project_nb(str(main_root / rel))
        if main_rec is None:
            continue
        nb = student_outputs(cache.get_project_notebook(rec.uri).nb,
                             cache.get_cache_bundle(main_rec.pk).nb)
        if nb is None:
            continue
        cache.cache_notebook_bundle(
            CacheBundleIn(nb, rec.uri, data={"outputs_of": str(main_root / rel)}),
            check_validity=False, overwrite=True)
        reused.append(str(rel))
    return reused


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default=".")
    ap.add_argument("--cache", default=None, help="cache path (default ROOT/_build/.jupyter_cache)")
    ap.add_argument("--timeout", type=int, default=1200, help="seconds per cell")
    ap.add_argument("--reuse-from", default=None, metavar="MAIN_ROOT",
                    help="the main edition's root: student pages take its cached outputs "
                         "when they execute alike (see the module's docstring)")
    ap.add_argument("--timed-in-parallel", action="store_true",
                    help="run the TIMED pages in the parallel batch too (`make test`: their "
                         "claims rest on the recorded timings, so a test build does not need "
                         "their own figures measured on an otherwise idle machine)")
    args = ap.parse_args(argv)
    root = Path(args.root).resolve()
    cache_path = Path(args.cache) if args.cache else root / "_build" / ".jupyter_cache"
    cache_path.parent.mkdir(parents=True, exist_ok=True)
    cache = get_cache(str(cache_path))
    # kept inside the cache directory, so a restored cache (CI) carries its fingerprint
    fp_file = cache_path / "inputs.sha256"
    fp = fingerprint()
    if not fp_file.is_file() or fp_file.read_text() != fp:
        if fp_file.is_file():
            print("[execute] rlmlib, data or requirements changed: every chapter is executed "
                  "again and every page rendered again", flush=True)
        cache.clear_cache()
        cache_path.mkdir(parents=True, exist_ok=True)
        fp_file.write_text(fp)  # a failing chapter then does not clear the cache again
        (root / STALE_MARKER).parent.mkdir(parents=True, exist_ok=True)
        (root / STALE_MARKER).touch()

    notebooks = [p for p in toc_files(root) if is_notebook(p)]
    pks = []
    for p in notebooks:
        rec = cache.add_nb_to_project(str(p), read_data=READER)
        pks.append(rec.pk)
    stale = [r for r in cache.list_unexecuted() if r.pk in pks]
    if args.reuse_from and stale:
        reused = reuse_main_outputs(cache, stale, root, Path(args.reuse_from).resolve())
        print(f"[execute] {len(reused)} pages take the main edition's outputs (their cut "
              f"cells come after every kept one): {', '.join(reused) or 'none'}", flush=True)
        stale = [r for r in cache.list_unexecuted() if r.pk in pks]
    print(f"[execute] {len(notebooks)} notebooks, {len(stale)} to execute "
          f"(cache: {cache_path})", flush=True)
    if not stale:
        return 0
    t0 = time.perf_counter()
    timed = set() if args.timed_in_parallel else {(root / t).resolve() for t in TIMED}
    batches = [("local-parallel", [r for r in stale if Path(r.uri) not in timed]),
               ("local-serial", [r for r in stale if Path(r.uri) in timed])]
    bad = []
    user_blas = os.environ.get("OPENBLAS_NUM_THREADS")
    for kind, recs in batches:
        if not recs:
            continue
        # one BLAS thread per notebook when they run side by side (one per core): threaded
        # BLAS would make them wait on each other; the serial batch gets the machine's default
        if user_blas is None:
            if kind == "local-parallel":
                os.environ["OPENBLAS_NUM_THREADS"] = "1"
            else:
                os.environ.pop("OPENBLAS_NUM_THREADS", None)
        executor = load_executor(kind, cache=cache)
        result = executor.run_and_cache(filter_pks=[r.pk for r in recs],
                                        timeout=args.timeout, allow_errors=False)
        print(f"[execute] {kind}: {len(result.succeeded)} succeeded, {len(result.errored)} "
              f"failed, {len(result.excepted)} excepted ({time.perf_counter() - t0:.1f} s "
              "since the start)", flush=True)
        bad += list(result.errored) + list(result.excepted)
    for uri in bad:
        rec = cache.get_project_record(uri)
        print(f"\n[execute] FAILED: {uri}\n{rec.traceback or '(no traceback)'}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
