"""Time from starting a fresh Jupyter kernel to the first figure of a chapter, with numba's
disk cache empty (cold: what a Binder reader paid before postBuild warmed the cache) and
after `tools/warm_numba_cache.py --chapters` (as postBuild runs it) filled it (warm: what
the image now ships).

    .venv/bin/python tools/measure_first_figure.py [--warm-only] [PAGE.md ...]
    .venv/bin/python tools/measure_first_figure.py --record   # quiet machine

Named pages are warmed by executing just them (every chapter: postBuild's command).

The first figure is the first output holding a PNG, an explorable (static HTML) or a live
widget.  Prints one line per chapter; nothing asserts on these times (they depend on the
machine and its load).  With --record (every chapter, cold and warm; `make
record-first-figure`) the times are also written to
data/recorded/timings/first_figure.json through `rlmlib.book.timings.measure`, with the
commit, the machine and the load average before and after (refused above
RLMLIB_RECORD_MAX_LOAD, after waiting up to RLMLIB_RECORD_WAIT seconds for the load to
fall); the page "How the book is built" (chapters/implementation/index.md) shows it.
"""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the timing record --record writes (data/recorded/timings/first_figure.json)
RECORD_NAME = "first_figure"
FIGURE = ("image/png", "application/vnd.jupyter.widget-view+json")


def cells(md: Path) -> list[str]:
    import jupytext

    nb = jupytext.read(md)
    return [c.source for c in nb.cells if c.cell_type == "code"]


class NoReply(RuntimeError):
    """A cell whose end never arrived (its idle status and its shell reply both lost)."""


def first_figure(md: Path, cache: str, timeout: float = 120.0) -> tuple[float, int]:
    """(seconds from kernel start to the first figure, index of that code cell)."""
    from jupyter_client.manager import KernelManager

    env = dict(os.environ, NUMBA_CACHE_DIR=cache, TQDM_DISABLE="1",
               MPLBACKEND="module://matplotlib_inline.backend_inline")
    t0 = time.perf_counter()
    from jupyter_client.kernelspec import KernelSpec

    km = KernelManager()
    # this interpreter's ipykernel, whatever kernel is installed as "python3"
    km._kernel_spec = KernelSpec(
        argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        display_name="rlmlib", language="python")
    km.start_kernel(env=env, cwd=str(md.parent))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        for k, src in enumerate(cells(md)):
            msg_id = kc.execute(src)
            replied, waited = False, 0.0
            while True:
                try:
                    msg = kc.get_iopub_msg(timeout=5)
                except queue.Empty:
                    # an iopub message can be lost while the channel connects (ZMQ's slow
                    # joiner): the cell has ended once its shell reply is there
                    waited += 5
                    while not replied and kc.shell_channel.msg_ready():
                        replied = (kc.get_shell_msg()["parent_header"].get("msg_id")
                                   == msg_id)
                    if replied:
                        break
                    if waited > timeout:
                        raise NoReply(f"{md}: cell {k}: no reply in {timeout:.0f} s")
                    continue
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "error":
                    raise RuntimeError(f"{md}: cell {k}: {content['ename']}: "
                                       f"{content['evalue']}")
                if kind in ("display_data", "execute_result"):
                    data = content.get("data", {})
                    if any(m in data for m in FIGURE) or "rlm-explore" in str(
                            data.get("text/html", "")):
                        return time.perf_counter() - t0, k
                if kind == "status" and content["execution_state"] == "idle":
                    break
        raise RuntimeError(f"{md}: no figure")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def warm_cache(cache: str, pages: list[Path] | None, tmp: str) -> None:
    """Fill the numba cache ``cache`` as Binder's postBuild does
    (`warm_numba_cache.py --chapters`: every solver, then every chapter executed); with
    ``pages``, by executing just those pages, one after another, in the build's
    environment (a page loads only the kernels it compiles itself, so its warm time is
    the same; a test of a few pages then costs minutes, not a whole book)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    env.pop("RLMLIB_RECORD_TIMINGS", None)   # the warming pages' own timings record nothing
    if pages is None:
        subprocess.run([sys.executable, str(ROOT / "tools/warm_numba_cache.py"),
                        "--chapters"], env=env, check=True, stdout=subprocess.DEVNULL)
        return
    env.update(RLMLIB_EXPLORE="static", TQDM_DISABLE="1",   # the Makefile's BUILD_ENV
               MPLBACKEND="module://matplotlib_inline.backend_inline")
    jupytext = Path(sys.executable).with_name("jupytext")
    for md in pages:
        subprocess.run([str(jupytext), "--to", "notebook", "--execute", str(md), "-o",
                        str(Path(tmp) / f"warm-{md.stem}.ipynb")], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def first_figure_retried(md: Path, cache, tries: int = 3) -> tuple[float, int]:
    """:func:`first_figure` in a new kernel again when a cell's end was lost (a page with no
    figure raises at once); ``cache`` is a path, or a function giving a new one (a cold
    run starts again from an empty cache)."""
    for i in range(tries):
        try:
            return first_figure(md, cache() if callable(cache) else cache)
        except NoReply as e:
            if i == tries - 1:
                raise
            print(f"[first-figure] {e}; measuring it again", flush=True)


def measure(pages: list[Path], warm_only: bool = False, every: bool = False) -> dict:
    """Cold and warm seconds to the first figure of each page (as plain JSON, for a
    record): ``{"chapters": {path: {"cell", "cold", "warm"}}, "no_figure": [...],
    "warming_seconds": ...}``; cold and warming are missing with ``warm_only``.  The
    warming runs postBuild's command when ``every`` (``pages`` are all the chapters),
    else it executes the pages (:func:`warm_cache`)."""
    out = {"chapters": {}, "no_figure": []}
    with tempfile.TemporaryDirectory(prefix="rlm-numba-") as tmp:
        cold, warm = {}, {}
        if warm_only:
            import rlmlib  # noqa: F401  (sets NUMBA_CACHE_DIR to the build's cache)
            cache = os.environ["NUMBA_CACHE_DIR"]
        else:
            for md in pages:   # each cold run starts from an empty cache
                try:
                    cold[md] = first_figure_retried(md, lambda: tempfile.mkdtemp(dir=tmp))
                except RuntimeError as e:          # a page without a figure
                    print(f"[first-figure] {md.relative_to(ROOT)}: {e}", flush=True)
                else:
                    print(f"[first-figure] {str(md.relative_to(ROOT)):45s} cell "
                          f"{cold[md][1]:2d}, cold {cold[md][0]:5.1f} s", flush=True)
            cache = tempfile.mkdtemp(dir=tmp)
            t = time.perf_counter()
            warm_cache(cache, None if every else pages, tmp)
            out["warming_seconds"] = time.perf_counter() - t
            print("[first-figure] warming the cache took "
                  f"{out['warming_seconds']:.1f} s")
        for md in pages:
            try:
                warm[md] = first_figure_retried(md, cache)
            except RuntimeError as e:          # a page without a figure
                print(f"[first-figure] {md.relative_to(ROOT)}: {e}", flush=True)
        for md in pages:
            name = str(md.relative_to(ROOT))
            if md not in warm:
                out["no_figure"].append(name)
                continue
            w, k = warm[md]
            out["chapters"][name] = dict(cell=k, warm=w)
            if md in cold:
                out["chapters"][name]["cold"] = cold[md][0]
            c = f"cold {cold[md][0]:5.1f} s, " if md in cold else ""
            print(f"[first-figure] {name:45s} cell {k:2d}, {c}warm {w:5.1f} s")
    return out


def main(argv: list[str]) -> int:
    """``measure_first_figure.py [--warm-only | --record] [PAGE ...]``: every chapter
    when no page is named.  --warm-only skips the cold runs and the warming, and uses
    the cache a build (`make book`, which executes every chapter) left in .numba_cache/:
    the same kernels postBuild compiles.  --record measures every chapter cold and warm
    and writes data/recorded/timings/first_figure.json (quiet machine: see above)."""
    warm_only, record = "--warm-only" in argv, "--record" in argv
    argv = [a for a in argv if a not in ("--warm-only", "--record")]
    if unknown := [a for a in argv if a.startswith("-")]:
        print(f"measure_first_figure.py: unknown option(s) {unknown}; usage: "
              "[--warm-only | --record] [PAGE.md ...]", file=sys.stderr)
        return 2
    if record and (warm_only or argv):
        print("measure_first_figure.py: --record measures every chapter cold and "
              f"warm: name no page and no --warm-only (got {sys.argv[1:]})",
              file=sys.stderr)
        return 2
    pages = [Path(a).resolve() for a in argv] or chapter_pages()
    if missing := [str(p) for p in pages if not p.is_file()]:
        print(f"measure_first_figure.py: no such page(s): {missing}", file=sys.stderr)
        return 2
    if not record:
        measure(pages, warm_only, every=not argv)
        return 0
    sys.path.insert(0, str(ROOT))
    from rlmlib.book import timings

    os.environ[timings.RECORD_ENV] = "1"     # timings.measure writes the record
    timings.measure(RECORD_NAME, measure, pages, every=True)
    return 0


def chapter_pages() -> list[Path]:
    """Every page of the table of contents that runs code."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for p in toc["parts"] for c in p["chapters"]]
    out = []
    for f in files:
        md = (ROOT / f).with_suffix(".md")
        if md.is_file() and "{code-cell}" in md.read_text(encoding="utf8"):
            out.append(md)
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
