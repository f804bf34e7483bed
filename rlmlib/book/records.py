"""Saved paper-sized runs and their provenance, one copy for every experiments page.

A page builds a ``record`` (a dict) of what its run found. With ``RLMLIB_FULL=1`` (``make
record``) the run is paper-sized and :func:`save` writes the record, with the commit it ran
and the machine, to ``data/recorded/<name>.json``; a default build reads it back with
:func:`load` and shows it beside its own numbers. Pages call these in hidden cells.
"""
import json
import os
import platform
import subprocess
import textwrap
import time
from pathlib import Path

import numpy as np

#: the repository root (rlmlib/book/records.py -> three levels up)
REPO = Path(__file__).resolve().parents[2]
#: where the paper-sized runs are kept
RECORDED_DIR = REPO / "data" / "recorded"


def full_run():
    """Whether this is a paper-sized run (``RLMLIB_FULL=1``, as ``make record`` sets it).

    Returns
    -------
    bool

    Examples
    --------
    >>> import os
    >>> from rlmlib.book.records import full_run
    >>> full_run() == (os.environ.get("RLMLIB_FULL") == "1")
    True
    """
    return os.environ.get("RLMLIB_FULL") == "1"


def git(*args):
    """Output of a git command run in the repository ('' outside a git checkout).

    Parameters
    ----------
    *args : str
        The git command's arguments, e.g. ``"rev-parse", "HEAD"``.

    Returns
    -------
    str
        Its standard output, stripped ('' when git or the checkout is missing).

    Examples
    --------
    >>> from rlmlib.book.records import git
    >>> isinstance(git("rev-parse", "HEAD"), str)
    True
    """
    try:
        out = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True,
                             text=True, check=False)
    except OSError:
        return ""
    return out.stdout.strip()


def start():
    """A new record: whether the run is paper-sized, and the library it runs (the commit and
    whether ``rlmlib`` has local changes), read now (a paper-sized run takes long).

    Returns
    -------
    dict
        ``{"full": bool, "started": {"date", "commit", "rlmlib_modified"}}``; the page adds
        its results and passes it to :func:`save`.

    Examples
    --------
    >>> from rlmlib.book.records import start
    >>> sorted(start()["started"])
    ['commit', 'date', 'rlmlib_modified']
    """
    return {"full": full_run(), "_t0": time.perf_counter(),
            "started": dict(date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            commit=git("rev-parse", "HEAD"),
                            rlmlib_modified=bool(git("status", "--porcelain", "rlmlib")))}


def plain(obj):
    """A JSON-ready copy: numpy scalars and arrays to floats, ints and lists, keys to strings.

    Parameters
    ----------
    obj : object
        Nested dicts, lists, tuples, arrays and numbers.

    Returns
    -------
    object
        The same structure with plain Python values.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.records import plain
    >>> plain({1: np.float64(0.5), "a": (np.int64(2), True)})
    {'1': 0.5, 'a': [2, True]}
    """
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items() if not str(k).startswith("_")}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [plain(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (np.integer, int)):
        return int(obj)
    if isinstance(obj, (np.floating, float)):
        return float(obj)
    return obj


def path_of(name):
    """``data/recorded/<name>.json``.

    Parameters
    ----------
    name : str
        The record's name, e.g. ``"pegasos_experiments_full"``.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> from rlmlib.book.records import path_of
    >>> path_of("x").name
    'x.json'
    """
    return RECORDED_DIR / f"{name}.json"


def save(record, name, **provenance):
    """Write ``record`` to ``data/recorded/<name>.json`` when the run is paper-sized.

    The record gets the page's run time and its provenance (finish time, Python, machine,
    cores, numba, and the keyword arguments, e.g. the Dask cluster the sweeps ran on).

    Parameters
    ----------
    record : dict
        Made by :func:`start`, with the page's results added.
    name : str
        The record's name.
    **provenance
        More provenance to keep.

    Returns
    -------
    dict
        The record as it is (or would be) saved, in plain JSON form; on a default build
        nothing is written.

    Raises
    ------
    ValueError
        When ``record`` was not made by :func:`start`.

    Examples
    --------
    >>> from rlmlib.book.records import save, start
    >>> rec = start(); rec["answer"] = 42
    >>> save(rec, "example")["answer"]      # a default build writes nothing
    42
    """
    if "started" not in record or "full" not in record:
        raise ValueError("record must be made by rlmlib.book.records.start()")
    record["seconds_page"] = time.perf_counter() - record.get("_t0", time.perf_counter())
    if record["full"]:
        record["provenance"] = dict(
            finished=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            python=platform.python_version(), machine=platform.machine(),
            cpus=os.cpu_count(), numba=__import__("numba").__version__, **provenance)
        out = plain(record)
        path = path_of(name)
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(out, indent=1) + "\n")
        print(f"this is a paper-sized run; saved to {path.relative_to(REPO)}")
        return out
    return plain(record)


def load(name):
    """The saved paper-sized run ``data/recorded/<name>.json``.

    Parameters
    ----------
    name : str
        The record's name.

    Returns
    -------
    dict

    Raises
    ------
    FileNotFoundError
        When no such record was saved.
    ValueError
        When the file does not hold a paper-sized run.

    Examples
    --------
    >>> from rlmlib.book.records import load
    >>> load("pegasos_experiments_full")["full"]
    True
    """
    rec = json.loads(path_of(name).read_text())
    if not rec.get("full"):
        raise ValueError(f"data/recorded/{name}.json must hold a paper-sized run "
                         f"(RLMLIB_FULL=1)")
    return rec


def describe(rec):
    """Lines saying when, where and at which commit a saved run ran, and which parts were
    re-run later, when and at which commit (``rec['updates']``: its problems or input
    forms; lines of at most 88 characters).

    Parameters
    ----------
    rec : dict
        A record from :func:`load`.

    Returns
    -------
    str

    Examples
    --------
    >>> from rlmlib.book.records import describe, load
    >>> describe(load("pegasos_experiments_full")).startswith("recorded run: started")
    True
    >>> rec = dict(load("pegasos_experiments_full"), updates=[{"forms": ["CSR float32"],
    ...     "date": "2026-11-29T10:00:00Z", "commit": "0123456789abcdef",
    ...     "rlmlib_modified": False}])
    >>> describe(rec).splitlines()[-1]
    'CSR float32 re-run 2026-11-29T10:00:00Z at commit 0123456789'
    """
    st, pv = rec["started"], rec["provenance"]
    workers = (f", {pv['cluster']['workers_used']} Dask workers" if "cluster" in pv
               else "")
    return (f"recorded run: started {st['date']}, finished {pv['finished']}\n"
            f"{rec['seconds_page'] / 60:.0f} minutes on {pv['cpus']} cores "
            f"({pv['machine']}{workers}, Python {pv['python']}, numba {pv['numba']})\n"
            f"rlmlib at commit {st['commit'][:10]}"
            + (" with local changes" if st["rlmlib_modified"] else "")
            + "".join("\n" + textwrap.fill(
                f"{', '.join(u.get('problems') or u.get('forms') or ())} re-run "
                f"{u['date']} at commit {u['commit'][:10]}"
                + (" with local changes" if u["rlmlib_modified"] else ""), width=88,
                subsequent_indent="  ") for u in rec.get("updates", ())))
