"""Every chapter opens with its learning objectives and prerequisites and closes with a
summary and further reading (conventions, "Chapter apparatus").  The notation page, a
reference table, is exempt."""
import re
from pathlib import Path

import pytest

from test_page_width import ROOT, _pages

EXEMPT = {"chapters/foundations/notation.md",   # reference pages, not chapters
          "chapters/appendix/paper_items.md"}
CHAPTERS = [p for p in _pages() if p.startswith("chapters/") and p not in EXEMPT]


def apparatus(text):
    """Where the four pieces are: the position of each marker, or -1."""
    find = lambda pattern: (m.start() if (m := re.search(pattern, text, re.M)) else -1)
    return {"objectives": find(r"\*\*Learning objectives"),
            "prerequisites": find(r"\*\*Prerequisites"),
            "summary": find(r"^#+ Summary|^\*\*Summary"),
            "further reading": find(r"\*\*Further reading|^#+ Further reading")}


def test_apparatus_finds_a_gap():
    text = "# T\n\n**Learning objectives.** x\n\n**Prerequisites.** y\n\n## Summary\n\nz\n"
    assert apparatus(text)["further reading"] == -1
    assert min(v for k, v in apparatus(text).items() if k != "further reading") >= 0


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_opens_and_closes_with_its_apparatus(page):
    text = (ROOT / page).read_text(encoding="utf8")
    where = apparatus(text)
    missing = [k for k, v in where.items() if v < 0]
    assert not missing, f"{page}: no {', '.join(missing)}"
    first_section = re.search(r"^## ", text, re.M)
    start = first_section.start() if first_section else len(text)
    assert where["objectives"] < start and where["prerequisites"] < start, \
        f"{page}: objectives and prerequisites belong before the first section"
    assert where["further reading"] > where["summary"] > start, \
        f"{page}: the summary and further reading belong at the end"
