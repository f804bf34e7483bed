"""A page teaches; plumbing hides (conventions, "A page teaches; plumbing hides").

A code cell the reader sees (no `remove-cell`, `remove-input`, `hide-input` or `hide-cell`
tag) neither sets warning filters, nor calls the record and timing plumbing
(`rlmlib.book.records`, `timings.measure`, `glue`), nor asserts: the assertions that keep
a page honest run in hidden cells (or in the library).  Checked on the parsed code, so a
word in a string or a comment does not count."""
import ast

import jupytext
import pytest

from test_page_width import ROOT

HIDDEN = {"remove-cell", "remove-input", "hide-input", "hide-cell", "remove_cell",
          "remove_input", "hide_input", "hide_cell"}
WARNING_CALLS = {"simplefilter", "filterwarnings", "catch_warnings", "resetwarnings"}
PAGES = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "chapters").rglob("*.md"))


def plumbing(source):
    """The plumbing lines of a cell's code: [(line, what)]."""
    try:
        tree = ast.parse(source)
    except SyntaxError:          # IPython magics: not the book's plumbing
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            found.append((node.lineno, "assert"))
        elif isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            last = name.rsplit(".", 1)[-1]
            if name.startswith("warnings.") and last in WARNING_CALLS:
                found.append((node.lineno, f"{name}(...): a warning filter"))
            elif name.split(".")[-2:-1] == ["records"] or name.endswith("timings.measure") \
                    or last == "glue":
                found.append((node.lineno, f"{name}(...): record plumbing"))
    return sorted(found)


def reader_plumbing(text):
    out = []
    for k, cell in enumerate(jupytext.reads(text, fmt="md:myst").cells):
        if cell.cell_type != "code" or HIDDEN & set(cell.metadata.get("tags", [])):
            continue
        out += [(k, line, what) for line, what in plumbing(cell.source)]
    return out


def test_planted_plumbing_is_found():
    seen = ("```{code-cell} ipython3\nx = 1\n%s\n```\n")
    hidden = ("```{code-cell} ipython3\n:tags: [hide-input]\n\nx = 1\n%s\n```\n")
    for line in ["assert x == 1", "for i in range(2):\n    assert i < 2",
                 'warnings.simplefilter("ignore")',
                 "with warnings.catch_warnings():\n    pass",
                 'rec = records.load("name")', "rlmlib.book.records.save(rec)",
                 't = timings.measure("name", f)', 'glue("key", x)']:
        assert reader_plumbing(seen % line), line
        assert reader_plumbing(hidden % line) == [], line
    assert reader_plumbing(seen % 'print("assert records.load( here")  # assert') == []


@pytest.mark.parametrize("page", PAGES)
def test_reader_facing_cells_hold_no_plumbing(page):
    found = reader_plumbing((ROOT / page).read_text(encoding="utf8"))
    assert not found, f"{page}: " + "; ".join(
        f"cell {k}, line {line}: {what}" for k, line, what in found)
