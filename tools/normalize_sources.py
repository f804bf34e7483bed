"""Rewrite the chapters in jupytext's own round-trip form, so that JupyterLab (which saves
a chapter through jupytext on every autosave) leaves an unedited chapter byte-identical.

    python tools/normalize_sources.py [--check] [files...]      (default: chapters/**/*.md)

What changes: the header gains ``jupytext_version`` (jupytext writes it); multi-line cell
metadata strings (``caption: |`` blocks) become one line, which YAML then folds at its own
width (a caption is Markdown: a line break inside it is a space); blank lines between cells
follow jupytext, which also drops blank lines at the end of a code cell.  The text of every
cell is otherwise unchanged (checked).  ``--check`` only lists the
files that are not in round-trip form (exit status 1 if any); tests/test_jupytext_roundtrip.py
runs the same check.
"""
from __future__ import annotations

import sys
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[1]
FMT = "md:myst"


def chapters(root: Path = ROOT) -> list[Path]:
    return sorted((root / "chapters").rglob("*.md"))


def is_round_trip(src: str) -> bool:
    return jupytext.writes(jupytext.reads(src, fmt=FMT), fmt=FMT) == src


def _one_line(value):
    if isinstance(value, str) and "\n" in value:
        return " ".join(part.strip() for part in value.splitlines() if part.strip())
    if isinstance(value, dict):
        return {k: _one_line(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_one_line(v) for v in value]
    return value


def normalize(src: str) -> str:
    nb = jupytext.reads(src, fmt=FMT)
    sources = [c.source.rstrip("\n") for c in nb.cells]
    for cell in nb.cells:
        cell.metadata = _one_line(dict(cell.metadata))
    out = jupytext.writes(nb, fmt=FMT)
    for _ in range(3):                     # reach the fixed point
        nxt = jupytext.writes(jupytext.reads(out, fmt=FMT), fmt=FMT)
        if nxt == out:
            break
        out = nxt
    if not is_round_trip(out):
        raise RuntimeError("no round-trip form reached")
    if [c.source.rstrip("\n") for c in jupytext.reads(out, fmt=FMT).cells] != sources:
        raise RuntimeError("normalizing changed the text of a cell")
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    files = [Path(a) for a in argv if a != "--check"] or chapters()
    bad = []
    for f in files:
        src = f.read_text(encoding="utf8")
        if is_round_trip(src):
            continue
        bad.append(f)
        if not check:
            f.write_text(normalize(src), encoding="utf8")
    for f in bad:
        print(("not in round-trip form: " if check else "normalized: ") + str(f))
    return 1 if (check and bad) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
