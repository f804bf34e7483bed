"""JupyterLab saves a chapter through jupytext on every autosave: an unedited chapter must
come back byte-identical, i.e. every chapter is in jupytext's round-trip form
(tools/normalize_sources.py puts it there)."""
import sys
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import normalize_sources  # noqa: E402

CHAPTERS = normalize_sources.chapters(ROOT)


def test_there_are_chapters():
    assert len(CHAPTERS) >= 10


@pytest.mark.parametrize("path", CHAPTERS, ids=[str(p.relative_to(ROOT)) for p in CHAPTERS])
def test_chapter_survives_jupytext_round_trip(path):
    src = path.read_text(encoding="utf8")
    out = jupytext.writes(jupytext.reads(src, fmt="md:myst"), fmt="md:myst")
    assert out == src, (f"{path.relative_to(ROOT)} is not in jupytext's round-trip form: "
                        "run `python tools/normalize_sources.py`")


def test_normalize_joins_a_literal_caption_and_keeps_the_code():
    src = ROOT.joinpath("chapters/implementation/explorable.md").read_text(encoding="utf8")
    bad = src.replace("```{code-cell} ipython3\nimport numpy as np\n",
                      "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    caption: |\n"
                      "      two\n      lines\n---\n\nimport numpy as np\n\n\n", 1)
    assert bad != src and not normalize_sources.is_round_trip(bad)
    out = normalize_sources.normalize(bad)
    assert normalize_sources.is_round_trip(out)
    cells = jupytext.reads(out, fmt="md:myst").cells
    captioned = [c for c in cells if "mystnb" in c.metadata]
    assert captioned[0].metadata["mystnb"]["figure"]["caption"] == "two lines"
    assert captioned[0].source.startswith("import numpy as np")
