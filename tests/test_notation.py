"""The notation page and the book's letters (issue 23, item 4: one meaning per symbol per part).

The notation page lists the book-wide letters in one table and every other letter in one
table per part.  These tests check the page (no dagger, a section per part, no book-wide
letter redefined in a part's table, no symbol twice in one part's table) and, heuristically,
the chapters: the uses of book-wide letters the book has had to rename must not come back,
every standalone ``s`` in mathematics sits next to the scaled vector it scales, and the
sigmoid is always written sgm.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "chapters" / "foundations" / "notation.md"
CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```\s*$", re.S | re.M)
MATH = re.compile(r"\$\$.+?\$\$|\$[^$]+?\$", re.S)


def _prose(text: str) -> str:
    """The Markdown of a page without its code cells (prose, captions, exercises)."""
    return CODE_CELL.sub("", text)


def _chapters() -> list[Path]:
    return sorted(p for p in (ROOT / "chapters").rglob("*.md") if p != PAGE)


def _sections(text: str) -> dict[str, list[list[str]]]:
    """'## title' -> the table's rows (cells) under it."""
    out: dict[str, list[list[str]]] = {}
    title = None
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
            out[title] = []
        elif title and line.startswith("|") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if cells[0] != "symbol":
                out[title].append(cells)
    return out


def _keys(cell: str) -> list[str]:
    """The symbols a table's first cell defines: each $...$ up to '=' or '\\in'."""
    keys = []
    for m in re.finditer(r"\$([^$]+)\$", cell):
        key = re.split(r"\s*(?:=|\\in\b|\\ge\b)\s*", m.group(1))[0]
        keys.append(re.sub(r"\s+", "", key))
    return keys


def test_no_dagger():
    assert "†" not in PAGE.read_text(encoding="utf-8")


def test_one_section_per_numbered_part_and_the_dictionary():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    parts = [p["caption"] for p in toc["parts"] if p.get("numbered")]
    sections = _sections(PAGE.read_text(encoding="utf-8"))
    assert "Book-wide letters" in sections
    for caption in parts:
        assert caption in sections, f"no notation table for the part {caption!r}"
        assert sections[caption], f"empty notation table for {caption!r}"
    text = PAGE.read_text(encoding="utf-8")
    assert "$\\lambda$ is our\n$\\sigma$" in text or "$\\lambda$ is our $\\sigma$" in text


def test_book_wide_letters_are_not_redefined_by_a_part_table():
    sections = _sections(PAGE.read_text(encoding="utf-8"))
    book = {k for row in sections.pop("Book-wide letters") for k in _keys(row[0])}
    for must in ("m", "n", "d", "k", "T", "t", "\\sigma", "s_t", "R"):
        assert must in book, f"{must} is not listed as book-wide"
    for title, rows in sections.items():
        seen: dict[str, str] = {}
        for row in rows:
            for key in _keys(row[0]):
                assert key not in book, f"{title}: book-wide {key} redefined ({row[1]})"
                assert key not in seen, f"{title}: {key} listed twice ({seen[key]}; {row[1]})"
                seen[key] = row[1]


# Uses of book-wide letters that the book has renamed (issue 23 item 4): each pattern with
# an example of the old text it must catch, so that the check itself is tested.
FORBIDDEN = [
    (r"\$s_t \\in \\partial|\$s \\in \\partial|s\^\\star", "$s \\in \\partial\\ell(g(s))$",
     "FIOL's scalar is xi (s is the scale)"),
    (r"\(s_k, y_k\)|\$s_k = w_", "pairs $(s_k, y_k)$", "oLBFGS's pair is (Delta w, Delta g)"),
    (r"sample size (?:is )?\$s\$|\(m/s\)|\\frac ms", "the sample size is $s$",
     "the preconditioner's sample size is m-hat"),
    (r"\$s\$ the sigmoid|\\sigma\(u\)|\$s\(u\)", "($s$ the sigmoid)", "the sigmoid is sgm"),
    (r"k = \\mathrm\{nnz\}|coordinate \$k\$|stored pairs \$k\$|Phase \$k\$",
     "with $k = \\mathrm{nnz}(x)$", "k is the mini-batch size"),
    (r"\$r\(w\) = \\sigma", "$r(w) = \\sigma\\|w\\|_1$", "r is the regularizer without weight"),
    (r"\\tfrac2r", "B_{ii} + \\tfrac2r(", "SGD-QN's counter is N (r is the regularizer)"),
    (r"\[-R, R\]|bound \$R\$ on the margins|(?<!mathcal )R_T\(u\)", "$Z = [-R, R]$",
     "R is the largest row norm"),
    (r"\$t = sy\$|steps\s+\$t_0, \\dots", "steps\n$t_0, \\dots, t - 1$",
     "t is the step counter, t_0 the schedule's offset"),
    (r"\$s_1 \\ge s_2", "Let $s_1 \\ge s_2 \\ge 0$ be", "eigenvalues are c_j"),
]


@pytest.mark.parametrize("pattern,bad,why", FORBIDDEN, ids=[f[2] for f in FORBIDDEN])
def test_renamed_uses_do_not_come_back(pattern, bad, why):
    assert re.search(pattern, bad), "the pattern misses the text it is meant to catch"
    hits = []
    for path in _chapters():
        for m in re.finditer(pattern, _prose(path.read_text(encoding="utf-8"))):
            hits.append(f"{path.relative_to(ROOT)}: {m.group(0)!r}")
    assert not hits, f"{why}: {hits}"


def _standalone_s_without_scale(text: str) -> list[str]:
    """Math containing a standalone s whose paragraph (or the one before) has no v/scale."""
    bad = []
    paragraphs = re.split(r"\n\s*\n", _prose(text))
    for i, para in enumerate(paragraphs):
        context = (paragraphs[i - 1] if i else "") + para
        for m in MATH.finditer(para):
            if re.search(r"(?<![A-Za-z\\])s(?![A-Za-z])", m.group(0)) and not re.search(
                    r"(?<![A-Za-z\\])v(?![A-Za-z])|v_|scale", context):
                bad.append(m.group(0)[:60])
    return bad


def test_s_is_the_scale_everywhere():
    assert _standalone_s_without_scale("The sample size is $s$.")       # the check works
    assert not _standalone_s_without_scale("Store $w = s\\,v$ and shrink $s$.")
    bad = {str(p.relative_to(ROOT)): b for p in _chapters()
           if (b := _standalone_s_without_scale(p.read_text(encoding="utf-8")))}
    assert not bad, f"s used for something other than the scale of w = s v: {bad}"


def test_sigmoid_is_written_sgm():
    for path in _chapters():
        for para in re.split(r"\n\s*\n", _prose(path.read_text(encoding="utf-8"))):
            if "sigmoid" in para:
                assert "sgm" in para, f"{path.relative_to(ROOT)}: sigmoid without sgm"
