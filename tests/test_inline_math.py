"""No inline formula is cut by a list marker: in Markdown a line that starts with "- ",
"+ ", "* " or "1. " opens a list even in the middle of a paragraph, so an inline formula
$...$ whose source wraps before a minus or plus sign (``$a\n- b$``) renders as a bullet with
the formula's TeX as text and every later $ of the paragraph paired wrongly.  Found on the
built pages (22 places, exercises among them); this checks every page's source."""
import re

import pytest

from test_page_width import FENCE, ROOT, _pages

MARKER = re.compile(r"^\s*([-+*]|\d+[.)])(\s|$)")


def _dollars(line):
    """The single dollar signs of a prose line (escaped ones, $$ and code spans excluded)."""
    line = re.sub(r"`[^`]*`", "", line.replace("\\$", ""))
    return line.replace("$$", "").count("$")


def list_markers_in_formulas(text):
    """(line number, line) of the lines that start with a list marker while an inline
    formula opened on an earlier line of the same paragraph is still open; code cells and
    literal code blocks are skipped, display math ($$ ... $$) too."""
    out, stack, display, open_inline = [], [], False, False
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if stack and s == stack[-1][0]:
            stack.pop()
            open_inline = False
            continue
        if stack and stack[-1][1]:
            continue
        m = FENCE.match(s)
        if m:
            directive = (m.group(2) or "").strip("{}")
            stack.append((m.group(1), directive in ("", "code-cell", "code-block", "code")))
            open_inline = False
            continue
        if s.startswith("$$"):
            if not (len(s) > 2 and s.endswith("$$")):
                display = not display
            open_inline = False
            continue
        if display:
            continue
        if not s:
            open_inline = False
            continue
        if open_inline and MARKER.match(line):
            out.append((i, line))
        if _dollars(line) % 2:
            open_inline = not open_inline
    return out


def test_the_check_finds_a_cut_formula():
    text = ("Text $a\n- b$ and $c$.\n\n- a real list item $x$\n\n```{code-cell} ipython3\n"
            "x = '$'\n- 1\n```\n\n$$\na\n- b\n$$\n\n:::{prf:proof}\nSo $u\n+ v$.\n:::\n")
    assert [n for n, _ in list_markers_in_formulas(text)] == [2, 18]


@pytest.mark.parametrize("page", _pages())
def test_no_formula_is_cut_by_a_list_marker(page):
    bad = list_markers_in_formulas((ROOT / page).read_text(encoding="utf8"))
    assert not bad, (f"{page}: {len(bad)} inline formulas wrap onto a line that starts a "
                     f"list (move the sign to the end of the line before):\n"
                     + "\n".join(f"  line {n}: {line.strip()[:70]}" for n, line in bad))
