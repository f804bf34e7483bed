"""The PDF editions (`make pdf`): opened with poppler's pdfinfo / pdftotext and checked
against the HTML build of the same sources.

- every chapter of the table of contents is in the PDF, under its title;
- every numbered theorem, lemma, algorithm, figure, table and exercise of the HTML edition
  is in the PDF under the same number (the PDF numbers its chapters as the HTML does);
- no unresolved reference ("??"), no citation left as a key, no glyph missing from the font;
- the bibliography is there; the student edition has the exercises but no solution.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EDITIONS = {
    "main": (ROOT / "_build/latex", ROOT / "_build/html"),
    "student": (ROOT / "_build/student/_build/latex", ROOT / "_build/student/_build/html"),
}
KINDS = {"Fig.": ("Fig.", "Figure")}    # HTML caption word -> the PDF's (either)

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                reason="poppler-utils not installed (make pdf installs it)")


def _pdf(edition: str) -> Path:
    path = EDITIONS[edition][0] / "book.pdf"
    if not path.is_file():
        pytest.fail(f"no PDF at {path}: run `make pdf`")
    return path


@cache
def text(edition: str) -> str:
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(_pdf(edition)), "-"],
                         check=True, capture_output=True, text=True).stdout
    # LaTeX sets ' and ` as typographic quotes: compare with the sources' plain ones
    out = out.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"',
                                       "\u201d": '"'}))
    return re.sub(r"\s+", " ", out)


def pages(edition: str) -> int:
    info = subprocess.run(["pdfinfo", str(_pdf(edition))], check=True, capture_output=True,
                          text=True).stdout
    return int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))


def chapter_titles() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    titles = []
    for part in toc["parts"]:
        for ch in part["chapters"]:
            src = (ROOT / ch["file"]).with_suffix(".md").read_text(encoding="utf8")
            titles.append(re.search(r"^# (.+)$", src, re.M).group(1).strip())
    return titles


def numbered_captions(html_root: Path) -> set[tuple[tuple[str, ...], str]]:
    found = set()
    for page in html_root.rglob("*.html"):
        if "_static" in page.parts:
            continue
        for kind, number in re.findall(r'class="caption-number">(\w+\.?) (\d+\.\d+)',
                                       page.read_text(encoding="utf8")):
            found.add((KINDS.get(kind, (kind,)), number))
    return found


def plain(title: str) -> str:
    """A title as pdftotext gives it back: no MyST markup or maths markup."""
    title = re.sub(r"\{[a-z]+\}`([^`<]*)(<[^>]*>)?`", r"\1", title)
    return re.sub(r"[`*$\\]", "", title).strip()


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_pdf_opens_and_has_the_book(edition):
    assert pages(edition) >= 200
    t = text(edition)
    missing = [c for c in chapter_titles() if plain(c)[:40] not in t]
    assert not missing, f"{edition}: chapters not in the PDF: {missing[:5]}"
    assert "Bibliography" in t and "Shalev-Shwartz" in t


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_every_part_opens_with_its_caption(edition):
    """Each part of _toc.yml is a LaTeX part ("Part I" and its caption, in order), and the
    table of contents lists it."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    captions = [p["caption"] for p in toc["parts"]]
    roman = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII",
             "XIII", "XIV", "XV"]
    t = text(edition)
    at = [t.find(f"Part {roman[k]} {c}") for k, c in enumerate(captions)]
    assert all(i >= 0 for i in at), (
        f"{edition}: parts missing: "
        f"{[c for c, i in zip(captions, at) if i < 0][:4]}")


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_every_number_of_the_html_is_in_the_pdf(edition):
    pdf_root, html_root = EDITIONS[edition]
    if not html_root.is_dir():
        pytest.fail(f"no HTML at {html_root}: run `make book book-student` first")
    captions = numbered_captions(html_root)
    assert len(captions) > 100
    t = text(edition)
    absent = sorted(f"{kinds[0]} {n}" for kinds, n in captions
                    if not any(f"{k} {n}" in t for k in kinds))
    assert not absent, f"{edition}: {len(absent)} numbered items not in the PDF: {absent[:8]}"


@pytest.mark.parametrize("edition", list(EDITIONS))
def test_no_unresolved_reference_or_missing_glyph(edition):
    t = text(edition)
    assert "??" not in t, re.findall(r".{60}\?\?.{20}", t)[:5]
    log = (EDITIONS[edition][0] / "book.log").read_text(encoding="utf8", errors="replace")
    assert "Missing character" not in log, re.findall(r"Missing character.*", log)[:5]
    assert "undefined references" not in log and "Citation" not in re.sub(
        r"Package .*", "", "".join(re.findall(r"LaTeX Warning: Citation.*", log)))


def test_student_pdf_has_exercises_but_no_solutions():
    def solutions(edition):
        tex = (EDITIONS[edition][0] / "book.tex").read_text(encoding="utf8")
        return tex.count(r"\begin{sphinxadmonition}{note}{Solution")

    assert "Exercise 3.1" in text("student")
    assert solutions("student") == 0
    assert solutions("main") > 100
