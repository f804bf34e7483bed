"""The book's symbol table (``chapters/foundations/symbols.yml``) and the notation page's
tables, generated from it when the book is built.

A row of the table is a mapping with the keys

``part``
    ``Book-wide letters`` or the caption of a numbered part of ``_toc.yml``;
``symbol``
    the symbols the row defines, each in ``$...$`` (``'$\\mu$, $L$'``);
``meaning``
    what they mean, in the order of ``symbol``;
``where``
    the page, and where there is one the label, that defines them: ``{doc}`` (with an
    optional section title in brackets), ``{prf:ref}``, ``{eq}`` or ``{ref}`` targets,
    written as on the notation page (relative to ``chapters/foundations``);
``same_as`` (optional)
    for a row of a part: the book-wide symbols it denotes, one per symbol of the row;
``rename`` (optional)
    the rename the one-notation rule implies, pending in the owning part's pages.

``tests/test_notation.py`` checks the table against the pages and the rules (one meaning
per letter in a part; a book-wide letter means the same thing everywhere).
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

BOOK = "Book-wide letters"
TABLE = Path("chapters") / "foundations" / "symbols.yml"
_MATH = re.compile(r"\$([^$]+)\$")


def _symbols_path(start: Path | str | None = None) -> Path:
    """The symbol table: ``symbols.yml`` beside the notation page when run from its folder
    (as the book's execution does), otherwise found from ``start`` (default: the current
    folder) upwards as ``chapters/foundations/symbols.yml``."""
    start = Path(start or Path.cwd()).resolve()
    if (start / "symbols.yml").is_file():
        return start / "symbols.yml"
    for folder in (start, *start.parents):
        if (folder / TABLE).is_file():
            return folder / TABLE
    raise FileNotFoundError(f"no symbols.yml beside or above {start}")


def load(path: Path | str | None = None) -> list[dict]:
    """The rows of the symbol table, checked for their fields.

    Parameters
    ----------
    path : path-like, optional
        The table; by default ``symbols.yml`` in the current folder (the notation page's,
        when the book executes it) or ``chapters/foundations/symbols.yml`` above it.

    Returns
    -------
    list of dict
        One mapping per row, with the fields of the module docstring.

    Raises
    ------
    ValueError
        For a row without ``part``, ``symbol``, ``meaning`` or ``where``, a symbol cell
        without ``$...$``, an unknown field, or a ``same_as`` with another number of
        symbols than ``symbol``.
    FileNotFoundError
        When no table is found.

    Examples
    --------
    >>> rows = load(_symbols_path(Path(__file__).parents[2]))
    >>> rows[0]["part"], rows[0]["symbol"]
    ('Book-wide letters', '$m$')
    """
    path = Path(path) if path else _symbols_path()
    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    allowed = {"part", "symbol", "meaning", "where", "same_as", "rename"}
    for k, row in enumerate(rows):
        missing = {"part", "symbol", "meaning", "where"} - set(row)
        if missing or set(row) - allowed:
            raise ValueError(f"symbols.yml row {k} ({row.get('symbol')!r}): fields must be "
                             f"{sorted(allowed)} with part, symbol, meaning, where; got "
                             f"{sorted(row)}")
        if not keys(row["symbol"]) and "`" not in row["symbol"]:
            raise ValueError(f"symbols.yml row {k}: symbol must hold $...$ (or a `name` of "
                             f"the code), got {row['symbol']!r}")
        if "same_as" in row and len(row["same_as"].split(", ")) != len(keys(row["symbol"])):
            raise ValueError(f"symbols.yml row {k} ({row['symbol']!r}): same_as must name "
                             f"one book-wide symbol per symbol, got {row['same_as']!r}")
    return rows


def keys(cell: str) -> list[str]:
    r"""The symbols a symbol cell defines: each ``$...$`` up to ``=``, ``\in`` or ``\ge``,
    in one spelling (no braces or spaces, ``\epsilon`` read as ``\varepsilon``).

    Parameters
    ----------
    cell : str
        The ``symbol`` field of a row.

    Returns
    -------
    list of str
        The symbols, in the order of the cell.

    Examples
    --------
    >>> keys(r"$q = p/(p-1)$, $L_{\max}$, $\epsilon$")
    ['q', 'L_\\max', '\\varepsilon']
    """
    out = []
    for m in _MATH.finditer(cell):
        key = re.split(r"\s*(?:=|\\in\b|\\ge\b)\s*", m.group(1))[0]
        out.append(_norm(key))
    return out


def _norm(tex: str) -> str:
    """A symbol's TeX in one spelling: no braces or spaces (one space kept after a
    command followed by a letter), ``\\epsilon`` read as ``\\varepsilon`` (one letter)."""
    tex = tex.replace("\\epsilon", "\\varepsilon").replace("\\rm ", "\\mathrm ")
    tex = re.sub(r"\\[lr]Vert|\\\|", r"\\Vert ", tex)             # one spelling of the norm
    tex = re.sub(r"(\\[A-Za-z]+)\{", r"\1 ", tex)        # \hat{x} -> \hat x
    tex = tex.replace("{", "").replace("}", "")
    tex = re.sub(r"(\\[A-Za-z]+)\s+(?=[A-Za-z])", r"\1 ", tex)
    return re.sub(r"(?<![A-Za-z])\s+|\s+(?![A-Za-z])", "", tex)


def _base(key: str) -> str:
    """The letter of a symbol: without a trailing argument ``(...)``, a power ``^2``,
    subscripts and superscripts (``L_\\max`` -> ``L``, ``\\kappa(C)`` -> ``\\kappa``)."""
    key = re.sub(r"(?<=[A-Za-z'])\(.*\)$", "", key)
    key = re.sub(r"\^2$", "", key)
    return re.split(r"[_^]", key)[0] if not key.startswith("(") else key


def _decorated(key: str) -> bool:
    """A symbol with a subscript or superscript other than a power 2 (``\\eta_0``,
    ``r^*``, ``w^+``): a symbol of its own, not its letter."""
    key = re.sub(r"(?<=[A-Za-z'])\(.*\)$", "", key)
    return bool(re.search(r"[_^]", re.sub(r"\^2$", "", key)))


def parts(rows: list[dict]) -> list[str]:
    """The parts of the table in their order, the book-wide letters first.

    Parameters
    ----------
    rows : list of dict
        The rows of the table (:func:`load`).

    Returns
    -------
    list of str
        ``'Book-wide letters'`` and the parts' captions.

    Examples
    --------
    >>> parts([{"part": "Foundations"}, {"part": "Implementation"}])
    ['Book-wide letters', 'Foundations', 'Implementation']
    """
    seen = [BOOK]
    for row in rows:
        if row["part"] not in seen:
            seen.append(row["part"])
    return seen


def table(part: str, rows: list[dict] | None = None) -> str:
    """The Markdown table of one part (or of the book-wide letters) for the notation page.

    Parameters
    ----------
    part : str
        ``'Book-wide letters'`` or a part's caption.
    rows : list of dict, optional
        The rows of the table; read by :func:`load` when not given.

    Returns
    -------
    str
        The table: symbol, meaning, and where it is introduced.

    Raises
    ------
    ValueError
        When the table has no row for ``part``.

    Examples
    --------
    >>> row = {"part": "Foundations", "symbol": "$C$", "meaning": "second moment",
    ...        "where": "{doc}`index`"}
    >>> print(table("Foundations", [row]))
    | symbol | meaning | introduced in |
    |---|---|---|
    | $C$ | second moment | {doc}`index` |
    """
    rows = load() if rows is None else rows
    mine = [r for r in rows if r["part"] == part]
    if not mine:
        raise ValueError(f"part must be one of {parts(rows)}, got {part!r}")
    lines = ["| symbol | meaning | introduced in |", "|---|---|---|"]
    lines += [f"| {r['symbol']} | {r['meaning']} | {r['where']} |" for r in mine]
    return "\n".join(lines)
