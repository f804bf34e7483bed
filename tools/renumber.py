"""Renumber the hand-written figure and table captions after the table of contents changed.

    python tools/renumber.py            # rewrite chapters/**/*.md in place
    python tools/renumber.py --check    # exit 1 (listing them) if a number is out of date

A caption reads "**Figure 8.2.**" or "**Table 12.1.**": the chapter number _toc.yml gives the
page (numbered parts counted through the book, as Jupyter Book does) and the caption's rank
on its page. When a part is inserted or moved, every caption gets its page's new number and
every "Figure C.k" / "Table C.k" in the text of any page follows its caption (the old numbers
are unique, so the old-to-new map is well defined). tests/test_numbering.py checks the result.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CAPTION = re.compile(r"^\*\*(Figure|Table) (\d+)\.(\d+)\.\*\*", re.M)
REFERENCE = re.compile(r"\b(Figure|Table) (\d+)\.(\d+)\b")


def chapter_numbers(root: Path = ROOT) -> dict[str, int]:
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf8"))
    out, k = {}, 0
    for part in toc.get("parts", []):
        if part.get("numbered"):
            for chapter in part.get("chapters", []):
                k += 1
                out[chapter["file"] + ".md"] = k
    return out


def renumber(root: Path = ROOT, write: bool = True) -> list[str]:
    """The pages whose numbers changed (rewritten when ``write``).

    A page's references to its own captions follow them; a reference to another page's
    caption follows it when its old number names one caption in the book. Two pages may
    carry the same old number after parts were inserted on two branches: each page then
    keeps the meaning of its own, and a reference from a third page to such a number is an
    error."""
    numbers = chapter_numbers(root)
    local, everywhere = {}, {}
    for page, chapter in numbers.items():
        seen = {"Figure": 0, "Table": 0}
        own = local.setdefault(page, {})
        for m in CAPTION.finditer((root / page).read_text(encoding="utf8")):
            kind = m.group(1)
            seen[kind] += 1
            old = (kind, m.group(2), m.group(3))
            if old in own:
                raise SystemExit(f"{page}: {kind} {old[1]}.{old[2]} is captioned twice")
            own[old] = (chapter, seen[kind])
            everywhere.setdefault(old, set()).add((chapter, seen[kind]))

    changed = []
    for path in sorted((root / "chapters").rglob("*.md")):
        own = local.get(str(path.relative_to(root)), {})

        def new(m):
            key = (m.group(1), m.group(2), m.group(3))
            if key in own:
                c, k = own[key]
            elif len(everywhere.get(key, ())) == 1:
                c, k = next(iter(everywhere[key]))
            elif key in everywhere:
                raise SystemExit(f"{path.relative_to(root)}: {m.group(0)} names captions "
                                 "of several pages")
            else:
                return m.group(0)
            return f"{m.group(1)} {c}.{k}"

        text = path.read_text(encoding="utf8")
        out = REFERENCE.sub(new, text)
        if out != text:
            changed.append(str(path.relative_to(root)))
            if write:
                path.write_text(out, encoding="utf8")
    return changed


if __name__ == "__main__":
    check = "--check" in sys.argv[1:]
    pages = renumber(write=not check)
    for p in pages:
        print(("out of date: " if check else "renumbered: ") + p)
    sys.exit(1 if (check and pages) else 0)
