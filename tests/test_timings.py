"""Claims about time rest on recorded measurements (rlmlib.book.timings): recording writes
the measurement with its provenance and refuses a loaded machine; a build reads the record
back beside its own figures; every record a page uses exists and names a commit of this
repository; and no page asserts on this build's own clock."""
import ast
import json
import re
import subprocess
from pathlib import Path

import pytest

from rlmlib.book import records, timings

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(ROOT.glob("chapters/*/*.md"))
MEASURED = re.compile(r"timings\.measure\(\s*(?:#[^\n]*\n\s*)?\"([\w-]+)\"")
# records a page only reads (made by a tool: tools/measure_first_figure.py --record)
LOADED = re.compile(r"timings\.load\(\s*\"([\w-]+)\"")


@pytest.fixture
def tmp_timings(tmp_path, monkeypatch):
    monkeypatch.setattr(timings, "TIMINGS_DIR", tmp_path)
    return tmp_path


def test_recording_writes_the_measurement_and_its_provenance(tmp_timings, monkeypatch):
    monkeypatch.setenv(timings.RECORD_ENV, "1")
    monkeypatch.setattr(timings.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    t = timings.measure("x", lambda a, b=0: {"a": a, "pair": (b, 2.5)}, 1.0, b=3)
    assert t.live == t.recorded == {"a": 1.0, "pair": [3, 2.5]}
    rec = json.loads((tmp_timings / "x.json").read_text())
    pv = rec["provenance"]
    assert rec["result"] == t.live and pv["load_before"] == 0.2
    assert len(pv["commit"]) == 40 and pv["cores"] >= 1 and pv["cpu"]
    assert "recorded" in t.describe() and pv["commit"][:10] in t.describe()


def test_a_build_shows_its_own_figures_beside_the_recorded_ones(tmp_timings, monkeypatch):
    monkeypatch.setenv(timings.RECORD_ENV, "1")
    monkeypatch.setattr(timings.os, "getloadavg", lambda: (0.1, 0.1, 0.1))
    timings.measure("y", lambda: [1.0, 2.0])
    monkeypatch.delenv(timings.RECORD_ENV)
    t = timings.measure("y", lambda: [7.0, 9.0])            # a slower machine
    assert t.live == [7.0, 9.0] and t.recorded == [1.0, 2.0]
    assert json.loads((tmp_timings / "y.json").read_text())["result"] == [1.0, 2.0]


def test_recording_is_refused_on_a_loaded_machine(tmp_timings, monkeypatch):
    monkeypatch.setenv(timings.RECORD_ENV, "1")
    monkeypatch.setattr(timings.os, "getloadavg", lambda: (3.0, 3.0, 3.0))
    called = []
    with pytest.raises(RuntimeError, match=r"load average 3\.00 > 1\.5: .*quiet machine"):
        timings.measure("z", lambda: called.append(1))
    assert not called and not (tmp_timings / "z.json").exists()
    monkeypatch.setenv("RLMLIB_RECORD_MAX_LOAD", "4")
    timings.measure("z", lambda: 1.0)
    monkeypatch.setenv("RLMLIB_RECORD_MAX_LOAD", "quiet")
    with pytest.raises(ValueError, match="RLMLIB_RECORD_MAX_LOAD must be a number"):
        timings.max_load()


def test_a_missing_record_names_the_command_that_makes_it(tmp_timings, monkeypatch):
    monkeypatch.delenv(timings.RECORD_ENV, raising=False)
    with pytest.raises(FileNotFoundError, match="make record-timings"):
        timings.measure("missing", lambda: 1.0)
    with pytest.raises(ValueError, match="name must be"):
        timings.path_of("../etc")


def _used_records():
    used = {}
    for page in PAGES:
        for name in MEASURED.findall(page.read_text()):
            used.setdefault(name, []).append(page.relative_to(ROOT).as_posix())
    return used


def test_every_record_a_page_uses_exists_and_names_a_commit_here():
    used = _used_records()
    assert len(used) >= 10, used               # the pages that time code use them
    for name, pages in used.items():
        path = timings.path_of(name)
        assert path.exists(), f"{pages} use {name}: run make record-timings"
        pv = json.loads(path.read_text())["provenance"]
        out = subprocess.run(["git", "-C", str(records.REPO), "cat-file", "-e",
                              pv["commit"] + "^{commit}"], capture_output=True)
        assert out.returncode == 0, f"{name}: unknown commit {pv['commit']}"
        assert not pv["rlmlib_modified"], name
        # the load is printed on the page (describe()); make record-timings refused any
        # recording above the largest load it allowed, which the record keeps
        assert pv["load_before"] <= pv["max_load"], (name, pv)


def test_no_record_is_left_over():
    used = set(_used_records()) | {"explorable-latency"}    # the browser test's
    used |= {n for page in PAGES
             for n in LOADED.findall(page.read_text())}
    kept = {p.stem for p in timings.TIMINGS_DIR.glob("*.json")}
    assert kept <= used, kept - used


#: what a page's own clock gives; an assertion may not read it
CLOCKS = re.compile(r"\.live\b|perf_counter|thread_time|process_time|cpu_seconds|cpu_pass|"
                    r"cpu_difference|\.seconds\b|getloadavg")


def _asserts(page):
    """(line, source) of every assert statement in the page's code cells."""
    text = page.read_text()
    out = []
    for m in re.finditer(r"```\{code-cell\}[^\n]*\n(.*?)\n```", text, re.S):
        body = m.group(1)
        lines = body.split("\n")
        if lines and lines[0] == "---":                 # a YAML header
            lines = lines[lines.index("---", 1) + 1:]
        code = "\n".join(ln for ln in lines if not ln.startswith((":tags:", "%", "!")))
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue
        first = text[:m.start()].count("\n") + 2
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert):
                out.append((first + node.lineno, ast.get_source_segment(code, node)))
    return out


def test_no_page_asserts_on_its_own_clock():
    bad = [f"{p.relative_to(ROOT)}:{line}: {src}" for p in PAGES
           for line, src in _asserts(p) if CLOCKS.search(src)]
    assert not bad, "\n".join(bad)


def test_the_clock_check_catches_an_assertion_on_this_build(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("```{code-cell} ipython3\nt = timed.live\nassert t < 2\n"
                    "assert timed.live['a'] < 1.0\n```\n")
    found = [src for _, src in _asserts(page) if CLOCKS.search(src)]
    assert found == ["assert timed.live['a'] < 1.0"]
