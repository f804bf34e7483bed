"""tools/measure_first_figure.py: its options, and the record --record writes (every chapter
cold and warm, through rlmlib.book.timings, with its provenance), in the form the page "How
the book is built" reads.  The kernels are replaced by a stand-in: the real measurement
takes minutes and is made on a quiet machine (make record-first-figure)."""
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rlmlib.book import timings

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "measure_first_figure.py"


@pytest.fixture
def tool():
    spec = importlib.util.spec_from_file_location("measure_first_figure", TOOL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("args, message", [
    (["--record", "chapters/vr/experiments.md"], "--record measures every chapter"),
    (["--record", "--warm-only"], "--record measures every chapter"),
    (["--bogus"], r"unknown option\(s\) \['--bogus'\]"),
    (["chapters/vr/no_such_page.md"], "no such page"),
])
def test_bad_arguments_are_refused_with_the_reason(args, message):
    out = subprocess.run([sys.executable, str(TOOL), *args], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 2
    assert re.search(message, out.stderr), out.stderr


def test_every_chapter_with_code_is_measured(tool):
    pages = tool.chapter_pages()
    names = {p.relative_to(ROOT).as_posix() for p in pages}
    assert {"chapters/foundations/sgd.md", "chapters/sgdqn/experiments.md"} <= names
    assert all("{code-cell}" in p.read_text(encoding="utf8") for p in pages)


def test_record_holds_cold_and_warm_seconds_of_every_chapter(tool, tmp_path, monkeypatch):
    pages = tool.chapter_pages()[:3]
    caches, warmed = [], []

    def fake_first_figure(md, cache):           # cold: an empty cache of its own
        caches.append(cache)
        if md == pages[1]:
            raise RuntimeError(f"{md}: no figure")
        return (9.0 if cache not in warmed else 2.0), pages.index(md)

    def fake_warm(cache, pages_warmed, tmp):     # postBuild's warming, of a fresh cache
        assert pages_warmed is None              # every chapter: postBuild's command
        warmed.append(cache)

    monkeypatch.setattr(tool, "chapter_pages", lambda: pages)
    monkeypatch.setattr(tool, "first_figure", fake_first_figure)
    monkeypatch.setattr(tool, "warm_cache", fake_warm)
    monkeypatch.setattr(timings, "TIMINGS_DIR", tmp_path)
    monkeypatch.setattr(timings.os, "getloadavg", lambda: (0.3, 0.3, 0.3))
    monkeypatch.setenv(timings.RECORD_ENV, "0")     # main sets it; restored after
    assert tool.main(["--record"]) == 0
    rec = json.loads((tmp_path / "first_figure.json").read_text())
    names = [p.relative_to(ROOT).as_posix() for p in pages]
    assert rec["result"]["chapters"] == {
        names[0]: {"cell": 0, "cold": 9.0, "warm": 2.0},
        names[2]: {"cell": 2, "cold": 9.0, "warm": 2.0}}
    assert rec["result"]["no_figure"] == [names[1]]
    assert rec["result"]["warming_seconds"] >= 0
    assert len(set(caches[:3])) == 3 and warmed[0] not in caches[:3]   # empty each
    pv = rec["provenance"]
    assert len(pv["commit"]) == 40 and pv["load_before"] == 0.3 and pv["cpu"]


def test_a_loaded_machine_is_refused_before_anything_runs(tool, tmp_path, monkeypatch):
    ran = []
    monkeypatch.setattr(tool, "first_figure", lambda *a: ran.append(a))
    monkeypatch.setattr(timings, "TIMINGS_DIR", tmp_path)
    monkeypatch.setattr(timings.os, "getloadavg", lambda: (6.0, 6.0, 6.0))
    monkeypatch.setenv(timings.RECORD_ENV, "0")
    monkeypatch.delenv("RLMLIB_RECORD_WAIT", raising=False)
    monkeypatch.delenv("RLMLIB_RECORD_MAX_LOAD", raising=False)
    with pytest.raises(RuntimeError, match="quiet machine"):
        tool.main(["--record"])
    assert not ran and not (tmp_path / "first_figure.json").exists()
