"""The student edition: the same book with every solution removed.

    python tools/student.py SRC_ROOT DEST_ROOT    # write a filtered copy of the book sources
    python tools/student.py --strip FILE          # print FILE with its solutions removed
    python tools/student.py --tree SRC_ROOT DEST  # the student branch: every tracked file,
                                                  # Markdown without solutions

Where students open the chapters: the CI workflow (.github/workflows/book.yml) writes the
`--tree` copy of main to the branch `student` on every push to main, and the student
edition's launch buttons (Binder) point at that branch (`repository.branch: student` in its
_config.yml), so a student who launches a chapter gets it without solutions.

sphinx-exercise's `hide_solutions` fails on gated solutions, so instead the sources are
copied with both kinds of solution cut out of every Markdown page:

* a `{solution}` directive (backtick or colon fence), up to its closing fence;
* a gated solution: from the `{solution-start}` directive to the closing fence of the
  `{solution-end}` directive, code cells in between included.

and with what else would show an answer, or describe the wrong edition, changed:

* the instructors' material is left out: `instructors/` (reference answers, hidden
  grading tests, typical mistakes), `requirements-instructors.txt`, the tools that import
  it (tools/assignments.py), and `tests/` (the library's tests transcribe answers in NumPy
  as references: soft thresholding, the mirror map, ...);
* after every code exercise (one that names a checker `rlmlib.book.checkers...check_*`) an
  empty answer cell, marked `# YOUR ANSWER`, where the student writes the function and runs
  its checker;
* text written for one edition: between `<!-- edition:main -->` and `<!-- edition:student`
  the main edition's text, then (inside that HTML comment, invisible in the main edition)
  the student edition's text up to `edition:end -->`; the student copy keeps the second;
* api.md loses the entries of library functions that compute an exercise's answer
  (instructors.exercises.API_HIDDEN; this tool imports the instructors' material for it,
  so, like tools/assignments.py, it is itself left out of the student tree);
* README.md and DESIGN.md keep the student text of their `edition:` blocks (DESIGN.md's
  hidden-grading design is main-edition text).

`make book-student` builds the copy with the normal strict build.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from pathlib import Path

FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}")


def _closing(line: str, fence: str) -> bool:
    s = line.strip()
    return len(s) >= len(fence) and set(s) == {fence[0]}


def _skip_directive(lines: list[str], i: int, fence: str) -> int:
    """Index just after the directive opened on line i (its closing fence included)."""
    j = i + 1
    while j < len(lines) and not _closing(lines[j], fence):
        j += 1
    if j == len(lines):
        raise ValueError(f"unclosed directive opened on line {i + 1}: {lines[i].strip()!r}")
    return j + 1


def strip_solutions(text: str, name: str = "<text>") -> str:
    """Return `text` with every `{solution}` and every gated solution range removed."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m["name"] == "solution":
            i = _skip_directive(lines, i, m["fence"])
            continue
        if m and m["name"] == "solution-start":
            j = _skip_directive(lines, i, m["fence"])
            while j < len(lines):
                e = FENCE.match(lines[j])
                if e and e["name"] == "solution-end":
                    j = _skip_directive(lines, j, e["fence"])
                    break
                if e and e["name"] == "solution-start":
                    raise ValueError(f"{name}: line {j + 1}: solution-start inside an open "
                                     f"gated solution (opened on line {i + 1})")
                j += 1
            else:
                raise ValueError(f"{name}: gated solution opened on line {i + 1} has no "
                                 "{solution-end}")
            i = j
            continue
        if m and m["name"] == "solution-end":
            raise ValueError(f"{name}: line {i + 1}: solution-end without solution-start")
        out.append(lines[i])
        i += 1
    return "".join(out)


STUDENT_BRANCH = "student"

#: what the student edition leaves out (paths relative to the root; a directory drops all it
#: holds) and, besides, every tracked .py file that imports the instructors' material
LEFT_OUT = ("instructors/", "requirements-instructors.txt",
            "tests/")   # the library's tests transcribe answers (soft thresholding ...)
IMPORTS_INSTRUCTORS = re.compile(r"^\s*(from|import)\s+instructors\b", re.M)

EDITION = re.compile(r"^<!-- edition:main -->\n(?P<main>.*?)^<!-- edition:student\n"
                     r"(?P<student>.*?)^edition:end -->\n", re.M | re.S)
CHECKER = re.compile(r"rlmlib\.book\.checkers\.(?:(\w+)\.)?(check_\w+)")


def left_out(rel: str, text: str | None = None) -> bool:
    """Whether the student edition leaves the tracked file `rel` out."""
    if any(rel == p or (p.endswith("/") and rel.startswith(p)) for p in LEFT_OUT):
        return True
    return rel.endswith(".py") and text is not None and bool(IMPORTS_INSTRUCTORS.search(text))


def student_editions(text: str) -> str:
    """Keep the student edition's text of every `edition:` block."""
    return EDITION.sub(lambda m: m["student"], text)


def _answer_cell(label: str, body: str) -> str:
    names = []
    for module, check in dict.fromkeys(CHECKER.findall(body)):
        if check == "check_":
            continue
        names.append((module or "", check))
    if not names:
        return ""
    lines = [f"# YOUR ANSWER to exercise {label}: write your function here, then run"]
    for module, check in names:
        mod = f"rlmlib.book.checkers{'.' + module if module else ''}"
        lines += [f"#   from {mod} import {check}", f"#   print({check}(<your function>))"]
    return "```{code-cell} ipython3\n" + "\n".join(lines) + "\n```\n\n"


def add_answer_cells(text: str) -> str:
    """After every code exercise (one naming a checker) an empty answer cell, marked."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m["name"] == "exercise":
            j = _skip_directive(lines, i, m["fence"])
            body = "".join(lines[i:j])
            out.extend(lines[i:j])
            label = next((ln.split(":", 2)[2].strip() for ln in lines[i:j]
                          if ln.strip().startswith(":label:")), "")
            cell = _answer_cell(label, body)
            if cell:
                out.append("\n" + cell)
            i = j
            continue
        out.append(lines[i])
        i += 1
    return "".join(out)


def hide_api_entries(text: str) -> str:
    """api.md without the entries of the library functions that compute an exercise's
    answer (``API_HIDDEN`` of the instructors' material: the list itself would point at
    the answers, so it is not in this file, and this file is not in the student tree)."""
    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    from instructors.exercises import API_HIDDEN

    keep = []
    for line in text.splitlines(keepends=True):
        s = line.strip()
        if s.startswith(".. autofunction::") and s.split("::", 1)[1].strip() in API_HIDDEN:
            continue
        keep.append(line)
    return "".join(keep)


def student_page(text: str, name: str) -> str:
    """A Markdown page of the student edition."""
    text = strip_solutions(text, name)
    text = student_editions(text)
    text = add_answer_cells(text)
    if Path(name).name == "api.md":
        text = hide_api_entries(text)
    return text


def student_config(text: str) -> str:
    """_config.yml of the student edition: its title says so, and its launch buttons point
    at the student branch (the sources without solutions), not at main."""
    text = re.sub(r'^title:\s*"?(.*?)"?\s*$', r'title: "\1 (student edition)"', text,
                  count=1, flags=re.M)
    text, n = re.subn(r"^(\s+branch:\s*)\S+\s*$", lambda m: m.group(1) + STUDENT_BRANCH,
                      text, count=1, flags=re.M)
    if n != 1:
        raise ValueError("_config.yml: no `repository: branch:` entry to point at the "
                         "student branch")
    return text


def make_student_tree(src: Path, dest: Path) -> list[Path]:
    """Copy every file git tracks in `src` to `dest` (the content of the student branch),
    with the solutions cut out of every Markdown page and the student _config.yml; return
    the Markdown files written."""
    import subprocess

    src, dest = src.resolve(), dest.resolve()
    files = subprocess.run(["git", "-C", str(src), "ls-files", "-z"], check=True,
                           capture_output=True, text=True).stdout.split("\0")
    written = []
    for rel in filter(None, files):
        s, d = src / rel, dest / rel
        if not s.is_file():
            continue
        text = s.read_text(encoding="utf8", errors="replace") if rel.endswith(".py") else None
        if left_out(rel, text):
            continue
        d.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".md") and rel not in ("README.md", "DESIGN.md"):
            d.write_text(student_page(s.read_text(encoding="utf8"), rel), encoding="utf8")
            written.append(d)
        elif rel in ("README.md", "DESIGN.md"):
            d.write_text(student_editions(s.read_text(encoding="utf8")), encoding="utf8")
        elif rel == "_config.yml":
            d.write_text(student_config(s.read_text(encoding="utf8")), encoding="utf8")
        else:
            shutil.copy2(s, d)
    return written


#: copied (Markdown filtered), with every top-level page; what else the build needs is symlinked
COPIED = ["_config.yml", "_toc.yml", "references.bib", "chapters", "_static", "course.yml"]
LINKED = ["tools", "data", "rlmlib", "benchmarks"]


def make_student_sources(src: Path, dest: Path) -> list[Path]:
    """Write the filtered copy of the book at `dest`; return the Markdown files written."""
    src, dest = src.resolve(), dest.resolve()
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    written = []
    pages = [p.name for p in src.glob("*.md") if p.name not in ("README.md", "DESIGN.md")]
    for entry in COPIED + pages:
        s = src / entry
        if s.is_dir():
            shutil.copytree(s, dest / entry, ignore=shutil.ignore_patterns(
                "_build", ".ipynb_checkpoints", "__pycache__"))
        elif s.is_file():
            shutil.copy2(s, dest / entry)
    for md in sorted(dest.rglob("*.md")):
        md.write_text(student_page(md.read_text(encoding="utf8"), str(md)), encoding="utf8")
        written.append(md)
    for entry in LINKED:
        if (src / entry).exists():
            os.symlink(src / entry, dest / entry)
    cfg = dest / "_config.yml"
    text = cfg.read_text(encoding="utf8")
    text = student_config(text)
    # share the main execution cache: unchanged chapters are not executed twice
    text = re.sub(r"^(\s*cache:\s*).*$", lambda m: m.group(1) + str(src / "_build" / ".jupyter_cache"),
                  text, count=1, flags=re.M)
    cfg.write_text(text, encoding="utf8")
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strip", metavar="FILE")
    ap.add_argument("--tree", action="store_true",
                    help="write the student branch's content (every tracked file) to DEST")
    ap.add_argument("src", nargs="?")
    ap.add_argument("dest", nargs="?")
    args = ap.parse_args(argv)
    if args.strip:
        sys.stdout.write(strip_solutions(Path(args.strip).read_text(encoding="utf8"), args.strip))
        return 0
    if not (args.src and args.dest):
        ap.error("give SRC_ROOT DEST_ROOT or --strip FILE")
    if args.tree:
        files = make_student_tree(Path(args.src), Path(args.dest))
        print(f"[student] branch content written to {args.dest} ({len(files)} Markdown "
              "files without solutions)")
        return 0
    files = make_student_sources(Path(args.src), Path(args.dest))
    print(f"[student] {len(files)} Markdown files written to {args.dest} without solutions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
