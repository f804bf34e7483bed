"""The appendix of paper items is generated from its data file and names only labels that
the chapters define (tools/paper_items.py)."""
import sys

import pytest

from test_page_width import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import paper_items  # noqa: E402


def test_the_page_is_the_generators_output():
    text = paper_items.render(paper_items.load(), paper_items.labels())
    assert paper_items.PAGE.read_text(encoding="utf8") == text, (
        "run .venv/bin/python tools/paper_items.py")


def test_every_label_is_defined_by_a_page():
    known = paper_items.labels()
    rows = paper_items.load()
    assert rows
    assert not [r["where"] for r in rows if r["where"] not in known]


def test_the_page_is_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf8")
    assert "file: chapters/appendix/paper_items\n" in toc


def test_an_unknown_label_is_an_error():
    row = dict(paper="P", item="i", where="no-such-label", status="open", reason="r")
    with pytest.raises(ValueError, match="no-such-label"):
        paper_items.render([row], paper_items.labels())


def test_a_bad_status_is_an_error(tmp_path):
    bad = tmp_path / "items.yml"
    bad.write_text("- {paper: P, item: i, where: x, status: done, reason: r}\n")
    with pytest.raises(ValueError, match="'done'"):
        paper_items.load(bad)


def test_the_labels_found_include_each_kind():
    known = paper_items.labels()
    assert known["sec-qn-asymptotics"] == "ref"
    assert known["thm-pegasos-rate"] == "prf:ref"
    assert known["fig-pgs-toy"] == "numref"
