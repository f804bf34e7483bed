"""Time from starting a fresh Jupyter kernel to the first figure of a chapter, with numba's
disk cache empty (cold: what a Binder reader paid before postBuild warmed the cache) and
after tools/warm_numba_cache.py filled it (warm: what the image now ships).

    .venv/bin/python tools/measure_first_figure.py chapters/foundations/sgd.md [...]

The first figure is the first output holding a PNG, an explorable (static HTML) or a live
widget.  Prints one line per chapter; nothing asserts on these times (they depend on the
machine and its load).
"""
from __future__ import annotations

import os
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
            while True:
                msg = kc.get_iopub_msg(timeout=timeout)
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
    pages = [Path(a).resolve() for a in argv] or [ROOT / "chapters/foundations/sgd.md"]
    with tempfile.TemporaryDirectory(prefix="rlm-numba-") as tmp:
        cold, warm = {}, {}
        for md in pages:   # each cold run starts from an empty cache
            empty = tempfile.mkdtemp(dir=tmp)
            cold[md] = first_figure(md, empty)
        cache = tempfile.mkdtemp(dir=tmp)
        t = time.perf_counter()
        subprocess.run([sys.executable, str(ROOT / "tools/warm_numba_cache.py")],
                       env=dict(os.environ, NUMBA_CACHE_DIR=cache), check=True,
                       stdout=subprocess.DEVNULL)
        print(f"[first-figure] warming the cache took {time.perf_counter() - t:.1f} s")
        for md in pages:
            warm[md] = first_figure(md, cache)
        for md in pages:
            (c, k), (w, _) = cold[md], warm[md]
            print(f"[first-figure] {md.relative_to(ROOT)}: cell {k}, cold {c:.1f} s, "
                  f"warm {w:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
