"""The book's figure and table numbers, as Sphinx will give them (nothing to rewrite).

    python tools/renumber.py            # list every label with its number, page by page
    python tools/renumber.py --check    # exit 1 (listing them) on a typed caption or number
    python tools/renumber.py --outputs NB.ipynb ...   # exit 1 on a table an executed
                                        # notebook shows without a number (printed as text,
                                        # a DataFrame, a Markdown table outside {table})

Figures and tables are numbered by Sphinx (numfig) and cited with {numref}: a figure drawn
by a code cell has `mystnb: figure: {caption, name: fig-...}` in the cell's metadata, a
Markdown table sits in `:::{table} caption` with `:name: tbl-...`, a computed table is shown
by `rlmlib.book.captions.table(markdown, name="tbl-...", caption=...)`.  So a change of
_toc.yml or an inserted figure renumbers everything by itself; this tool shows the result
and runs the checks of tests/test_numbering.py (which also compares the student edition).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]

from test_numbering import (CHAPTERS, PAGES, notebook_printed_tables,  # noqa: E402
                            numbered, problems)


def outputs(paths: list[str]) -> int:
    import json

    bad = 0
    for path in paths:
        for k, what, first in notebook_printed_tables(json.loads(Path(path).read_text())):
            print(f"{path} cell {k}: {what}: {first[:70]!r}")
            bad += 1
    return 1 if bad else 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--outputs"]:
        return outputs(argv[1:])
    check, bad = "--check" in argv, 0
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf8")
        found = problems(text)
        bad += len(found)
        for p in found:
            print(f"{page}: {p}")
        if not check and page in CHAPTERS:
            for label, number in numbered(text, CHAPTERS[page]).items():
                print(f"{number:12s} {label:36s} {page}")
    return 1 if (check and bad) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
