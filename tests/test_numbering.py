"""Figure and table numbers are the book's own and unique (conventions, "Figures"): a caption
written by hand reads "**Figure 8.2.**" or "**Table 12.1.**" with the chapter number the
table of contents gives the page, counted 1, 2, ... in order; a paper's numbers appear only
as "the paper's Fig. 3".  Sphinx numbers the captions of `mystnb` figures itself, so a page
whose figures are numbered by hand has none of those (the two counters would collide)."""
import re

import pytest
import yaml

from test_page_width import ROOT

CAPTION = re.compile(r"^\*\*(Figure|Table) (\d+)\.(\d+)\.\*\*", re.M)
# a caption numbered like a paper's: "**Figure 3.**", "**Fig. 9.**", "**Table II**"
BARE = re.compile(r"^\*\*?(?:Figure|Fig\.|Figs\.|Table) (?:[0-9]+|[IVX]+)(?![.][0-9])"
                  r"(?:[–-][0-9]+)?[.*\s]", re.M)
# a section named after a paper's figure or table, without saying whose it is
HEADING = re.compile(r"^#+ (?:Fig\.|Figs\.|Figure|Table) [0-9IVX]+", re.M)
REFERENCE = re.compile(r"\b(Figure|Table) (\d+)\.(\d+)\b")


def chapter_numbers(toc=None):
    """{page: chapter number} for the numbered parts of _toc.yml, counted through the book
    as Jupyter Book does with `use_multitoc_numbering`."""
    toc = toc or yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf8"))
    out, k = {}, 0
    for part in toc.get("parts", []):
        if not part.get("numbered"):
            continue
        for chapter in part.get("chapters", []):
            k += 1
            out[chapter["file"] + ".md"] = k
    return out


CHAPTERS = chapter_numbers()


def problems(page, chapter, text):
    bad = []
    seen = {"Figure": 0, "Table": 0}
    for m in CAPTION.finditer(text):
        kind, c, k = m.group(1), int(m.group(2)), int(m.group(3))
        if c != chapter:
            bad.append(f"{m.group(0)} on chapter {chapter}")
        if k != seen[kind] + 1:
            bad.append(f"{m.group(0)} follows {kind} {chapter}.{seen[kind]}")
        seen[kind] = k
    bad += [f"caption numbered like a paper's: {m.group(0).strip()!r}"
            for m in BARE.finditer(text)]
    bad += [f"section named like a paper's figure: {m.group(0)!r}"
            for m in HEADING.finditer(text)]
    if seen["Figure"] and re.search(r"^\s+name: fig-", text, re.M):
        bad.append("figures numbered by hand and by Sphinx on the same page")
    return bad


def test_problems_finds_each_kind():
    text = ("**Figure 7.1.** a\n\n**Figure 7.3.** b\n\n**Table 8.1.** c\n\n"
            "**Fig. 9.** d\n\n## Table 4: e\n")
    found = problems("x.md", 7, text)
    assert len(found) == 4, found
    assert problems("x.md", 7, "**Figure 7.1.** a\n\n**Table 7.1.** b\n") == []


def test_chapter_numbers_follow_the_toc():
    toc = {"parts": [{"numbered": True, "chapters": [{"file": "a"}, {"file": "b"}]},
                     {"chapters": [{"file": "api"}]},
                     {"numbered": True, "chapters": [{"file": "c"}]}]}
    assert chapter_numbers(toc) == {"a.md": 1, "b.md": 2, "c.md": 3}


@pytest.mark.parametrize("page", sorted(CHAPTERS))
def test_captions_carry_the_book_number(page):
    text = (ROOT / page).read_text(encoding="utf8")
    bad = problems(page, CHAPTERS[page], text)
    assert not bad, (f"{page} (chapter {CHAPTERS[page]}): " + "; ".join(bad)
                     + " (after a change of _toc.yml: python tools/renumber.py)")


def test_every_numbered_reference_has_its_caption():
    captions = {(m.group(1), m.group(2), m.group(3))
                for page in CHAPTERS for m in CAPTION.finditer(
                    (ROOT / page).read_text(encoding="utf8"))}
    dangling = sorted({f"{page}: {m.group(0)}" for page in CHAPTERS
                       for m in REFERENCE.finditer((ROOT / page).read_text(encoding="utf8"))
                       if m.groups() not in captions})
    assert not dangling, dangling
