"""Numbered tables computed by a page: the book's one caption system for them.

Every figure and table of the book is numbered by Sphinx (``numfig``), never by hand: a
figure drawn by a code cell carries its caption and label in the cell's metadata
(``mystnb: figure: {caption, name: fig-...}``), a table typed in Markdown sits in MyST's
``{table}`` directive (``:name: tbl-...``), and a table computed by a code cell is shown by
``table``, which writes the same ``{table}`` directive around the computed Markdown
(the book renders a cell's Markdown output as MyST).  The text cites them with
``{numref}`` (tests/test_numbering.py keeps it so).
"""
from __future__ import annotations

import re

_NAME = re.compile(r"^tbl-[a-z0-9]+(?:-[a-z0-9]+)*$")


def markdown_table(header, rows, align=None) -> str:
    """A Markdown pipe table.

    Parameters
    ----------
    header : sequence
        The column titles.
    rows : sequence of sequences
        One list of cells per row, any type (``str()`` of each is written).
    align : str, optional
        One of ``"l"``, ``"r"``, ``"c"`` per column (default: left for the first column,
        right for the others).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        A row whose length is not the header's, or a bad ``align``.

    Examples
    --------
    >>> print(markdown_table(["a", "b"], [[1, 2.5]]))
    | a | b |
    | :-- | --: |
    | 1 | 2.5 |
    """
    header = [str(h) for h in header]
    rows = [[str(c) for c in row] for row in rows]
    for i, row in enumerate(rows):
        if len(row) != len(header):
            raise ValueError(f"markdown_table: row {i} has {len(row)} cells, expected "
                             f"{len(header)} (the header's)")
    if align is None:
        align = "l" + "r" * (len(header) - 1)
    if len(align) != len(header) or set(align) - set("lrc"):
        raise ValueError(f"markdown_table: align={align!r}: expected one of 'l', 'r', "
                         f"'c' per column ({len(header)} columns)")
    rule = {"l": ":--", "r": "--:", "c": ":-:"}

    def line(cells):
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    return "\n".join([line(header), "| " + " | ".join(rule[a] for a in align) + " |"]
                     + [line(r) for r in rows])


def table_source(markdown: str, *, name: str, caption: str) -> str:
    """The MyST source of a numbered table.

    Parameters
    ----------
    markdown : str
        A Markdown pipe table (``markdown_table``).
    name : str
        Its label, ``tbl-`` and lower-case words joined by ``-`` (cited with
        ``{numref}``).
    caption : str
        One paragraph of Markdown (line breaks become spaces).

    Returns
    -------
    str
        ``markdown`` inside a ``{table}`` directive with the caption and the label.

    Raises
    ------
    ValueError
        A bad label, an empty caption, or ``markdown`` that is not a pipe table.

    Examples
    --------
    >>> src = table_source(markdown_table(["a"], [[1]]), name="tbl-x", caption="One cell.")
    >>> src.splitlines()[:2]
    ['::::{table} One cell.', ':name: tbl-x']
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"table: name={name!r}: expected a label 'tbl-' followed by "
                         "lower-case words joined by '-'")
    caption = " ".join(str(caption).split())
    if not caption:
        raise ValueError("table: caption='' : every table of the book has a caption")
    lines = markdown.strip().splitlines()
    if len(lines) < 2 or not all(ln.lstrip().startswith("|") for ln in lines):
        raise ValueError(f"table: markdown={markdown[:60]!r}...: expected a Markdown pipe "
                         "table (every line starting with '|', a header and its rule)")
    fence = ":" * 4
    return (f"{fence}{{table}} {caption}\n:name: {name}\n\n"
            + "\n".join(lines) + f"\n{fence}\n")


def table(markdown: str, *, name: str, caption: str):
    """A numbered table for a page to ``display``.

    Parameters
    ----------
    markdown, name, caption
        As for ``table_source``.

    Returns
    -------
    IPython.display.Markdown
        The MyST source of ``table_source``, which the book renders as MyST.

    Examples
    --------
    >>> t = table(markdown_table(["a"], [[1]]), name="tbl-x", caption="One cell.")
    >>> t.data.startswith("::::{table} One cell.")
    True
    """
    from IPython.display import Markdown

    return Markdown(table_source(markdown, name=name, caption=caption))
