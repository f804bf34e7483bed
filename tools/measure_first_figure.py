"""Time from starting a fresh Jupyter kernel to the first figure of a chapter, with numba's
disk cache empty (cold: what a Binder reader paid before postBuild warmed the cache) and
after `tools/warm_numba_cache.py --chapters` (as postBuild runs it) filled it (warm: what
the image now ships).

    .venv/bin/python tools/measure_first_figure.py [--warm-only] [PAGE.md ...]

The first figure is the first output holding a PNG, an explorable (static HTML) or a live
widget.  Prints one line per chapter; nothing asserts on these times (they depend on the
machine and its load).
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
FIGURE = ("image/png", "application/vnd.jupyter.widget-view+json")


def cells(md: Path) -> list[str]:
    import jupytext

    nb = jupytext.read(md)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def first_figure(md: Path, cache: str, timeout: float = 600.0) -> tuple[float, int]:
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
                        raise RuntimeError(f"{md}: cell {k}: no reply in {timeout:.0f} s")
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


def main(argv: list[str]) -> int:
    """``measure_first_figure.py [--warm-only] [PAGE ...]``: every chapter when no page is
    named.  --warm-only skips the cold runs and the warming, and uses the cache a build
    (`make book`, which executes every chapter) left in .numba_cache/: the same kernels
    postBuild compiles."""
    warm_only = "--warm-only" in argv
    argv = [a for a in argv if a != "--warm-only"]
    pages = [Path(a).resolve() for a in argv] or chapter_pages()
    with tempfile.TemporaryDirectory(prefix="rlm-numba-") as tmp:
        cold, warm = {}, {}
        if warm_only:
            import rlmlib  # noqa: F401  (sets NUMBA_CACHE_DIR to the build's cache)
            cache = os.environ["NUMBA_CACHE_DIR"]
        else:
            for md in pages:   # each cold run starts from an empty cache
                empty = tempfile.mkdtemp(dir=tmp)
                cold[md] = first_figure(md, empty)
            cache = tempfile.mkdtemp(dir=tmp)
            t = time.perf_counter()
            subprocess.run([sys.executable, str(ROOT / "tools/warm_numba_cache.py"),
                            "--chapters"],
                           env=dict(os.environ, NUMBA_CACHE_DIR=cache), check=True,
                           stdout=subprocess.DEVNULL)
            print(f"[first-figure] warming the cache took {time.perf_counter() - t:.1f} s")
        for md in pages:
            try:
                warm[md] = first_figure(md, cache)
            except RuntimeError as e:          # a page without a figure
                print(f"[first-figure] {md.relative_to(ROOT)}: {e}", flush=True)
        for md in pages:
            if md not in warm:
                continue
            w, k = warm[md]
            c = f"cold {cold[md][0]:5.1f} s, " if md in cold else ""
            print(f"[first-figure] {str(md.relative_to(ROOT)):45s} cell {k:2d}, {c}"
                  f"warm {w:5.1f} s")
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
