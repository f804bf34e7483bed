"""Claims about time, made on a recorded measurement and never on this build's own clock.

A page that says "storage order is the cheapest epoch" measures it with a function of the
library and calls :func:`measure`. The build shows its own figures beside the recorded ones,
labelled as this build's, and asserts the claim on the recorded figures only: a build on a
busy or slower machine (a CI runner, a Binder node) cannot fail because of its clock.

The records are made by ``make record-timings`` (``RLMLIB_RECORD_TIMINGS=1``), which
executes the pages that time code one after another on a quiet machine; :func:`measure`
then also writes ``data/recorded/timings/<name>.json`` with the commit, the machine (CPU
model, cores, BLAS kernel) and the load average before and after the measurement. A
recording on a loaded machine is refused (``RLMLIB_RECORD_MAX_LOAD``, default 1.5: the
page being executed is one process of load), after waiting up to ``RLMLIB_RECORD_WAIT``
seconds (default 0; ``make record-timings`` waits 600) for the load to fall.
"""
import json
import os
import platform
import time
from dataclasses import dataclass

from rlmlib.book import records

#: where the timing records are kept
TIMINGS_DIR = records.RECORDED_DIR / "timings"
#: the environment variable that makes :func:`measure` write its record
RECORD_ENV = "RLMLIB_RECORD_TIMINGS"


def recording():
    """Whether this run records timings (``RLMLIB_RECORD_TIMINGS=1``, as ``make
    record-timings`` sets it).

    Returns
    -------
    bool

    Examples
    --------
    >>> import os
    >>> from rlmlib.book.timings import recording
    >>> recording() == (os.environ.get("RLMLIB_RECORD_TIMINGS") == "1")
    True
    """
    return os.environ.get(RECORD_ENV) == "1"


def max_load():
    """The largest 1-minute load average at which a recording is accepted
    (``RLMLIB_RECORD_MAX_LOAD``, default 1.5).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When ``RLMLIB_RECORD_MAX_LOAD`` is not a number.

    Examples
    --------
    >>> import os
    >>> from rlmlib.book.timings import max_load
    >>> max_load() == float(os.environ.get("RLMLIB_RECORD_MAX_LOAD", "1.5"))
    True
    """
    raw = os.environ.get("RLMLIB_RECORD_MAX_LOAD", "1.5")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"RLMLIB_RECORD_MAX_LOAD must be a number, got {raw!r}") from None
    return value


def cpu_model():
    """The CPU's model name (from /proc/cpuinfo; ``platform.processor()`` elsewhere).

    Returns
    -------
    str

    Examples
    --------
    >>> from rlmlib.book.timings import cpu_model
    >>> isinstance(cpu_model(), str)
    True
    """
    try:
        with open("/proc/cpuinfo", encoding="utf8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _blas():
    try:
        from threadpoolctl import threadpool_info
        info = [i for i in threadpool_info() if i.get("user_api") == "blas"]
        return {k: info[0].get(k) for k in ("internal_api", "architecture", "num_threads")
                } if info else {}
    except Exception:               # threadpoolctl missing or failing: not essential
        return {}


def path_of(name):
    """``data/recorded/timings/<name>.json``.

    Parameters
    ----------
    name : str
        Letters, digits, ``-`` and ``_``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        For any other name.

    Examples
    --------
    >>> from rlmlib.book.timings import path_of
    >>> path_of("order-epoch-costs").name
    'order-epoch-costs.json'
    """
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise ValueError(f"name must be letters, digits, '-' and '_', got {name!r}")
    return TIMINGS_DIR / f"{name}.json"


def _shown(path):
    """``path`` relative to the repository where it lies inside it."""
    try:
        return path.relative_to(records.REPO)
    except ValueError:
        return path


@dataclass(frozen=True)
class Timed:
    """A timing measured by this build (``live``) and the recorded one (``recorded``).

    ``live`` and ``recorded`` have the form of the measuring function's result in plain
    JSON (tuples become lists, keys strings). Assert on ``recorded``; show ``live``.

    Attributes
    ----------
    name : str
        The record's name.
    live : object
        This build's measurement.
    recorded : object
        The recorded measurement.
    provenance : dict
        Where and when it was recorded: ``date``, ``commit``, ``rlmlib_modified``, ``cpu``,
        ``cores``, ``blas``, ``load_before``, ``load_after`` ...

    Examples
    --------
    >>> from rlmlib.book.timings import Timed, load
    >>> result, provenance = load("order-epoch-costs")
    >>> t = Timed("order-epoch-costs", result, result, provenance)
    >>> t.describe().startswith("recorded ")
    True
    """
    name: str
    live: object
    recorded: object
    provenance: dict

    def describe(self):
        """One line: where and when the recorded figures were measured."""
        import textwrap

        pv = self.provenance
        return textwrap.fill(f"recorded {pv['date']} on {pv['cpu']} ({pv['cores']} cores, BLAS "
                f"{pv.get('blas', {}).get('architecture', '?')}), load average "
                f"{pv['load_before']:.2f} before, {pv['load_after']:.2f} after, rlmlib at "
                f"{pv['commit'][:10]}" + (" with local changes" if pv["rlmlib_modified"]
                                          else ""), width=70)


def load(name):
    """The recorded timing ``name``: ``(result, provenance)``.

    Parameters
    ----------
    name : str
        The record's name.

    Returns
    -------
    tuple
        The measurement (plain JSON) and its provenance (a dict).

    Raises
    ------
    FileNotFoundError
        With the command that makes it, when the record is missing.

    Examples
    --------
    >>> from rlmlib.book.timings import load
    >>> result, provenance = load("order-epoch-costs")
    >>> result["sgd cyclic"][0] > 0 and len(provenance["commit"]) == 40
    True
    """
    path = path_of(name)
    if not path.exists():
        raise FileNotFoundError(f"no recorded timing {_shown(path)}: "
                                "run `make record-timings` on a quiet machine")
    rec = json.loads(path.read_text())
    return rec["result"], rec["provenance"]


def measure(name, func, *args, **kwargs):
    """Run ``func(*args, **kwargs)`` (this build's measurement) and pair it with the
    recorded measurement ``name``.

    Parameters
    ----------
    name : str
        The record's name (``data/recorded/timings/<name>.json``).
    func : callable
        Returns the measurement: numbers in dicts, lists or tuples.
    *args, **kwargs
        Passed to ``func``.

    Returns
    -------
    Timed

    Raises
    ------
    RuntimeError
        When recording on a machine whose load average is above ``max_load()``.
    FileNotFoundError
        When not recording and the record is missing.

    Examples
    --------
    >>> from rlmlib.book import timings
    >>> t = timings.measure("order-epoch-costs", lambda: {"sgd cyclic": (1.5, 2.5)})
    >>> t.live                               # this build's (here: made up)
    {'sgd cyclic': [1.5, 2.5]}
    >>> t.recorded["sgd cyclic"] == timings.load("order-epoch-costs")[0]["sgd cyclic"]
    True
    """
    path = path_of(name)
    load_before = os.getloadavg()[0]
    if recording():              # wait up to RLMLIB_RECORD_WAIT seconds for a quiet moment
        deadline = time.monotonic() + float(os.environ.get("RLMLIB_RECORD_WAIT", "0"))
        while load_before > max_load() and time.monotonic() < deadline:
            time.sleep(10)
            load_before = os.getloadavg()[0]
    if recording() and load_before > max_load():
        raise RuntimeError(
            f"load average {load_before:.2f} > {max_load():g}: a timing record must be made "
            "on a quiet machine (stop other jobs, or set RLMLIB_RECORD_MAX_LOAD)")
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    live = records.plain(func(*args, **kwargs))
    if recording():
        import numba
        import numpy
        from rlmlib.core.cpus import usable_cores
        provenance = dict(
            date=started, commit=records.git("rev-parse", "HEAD"),
            rlmlib_modified=bool(records.git("status", "--porcelain", "rlmlib")),
            cpu=cpu_model(), cores=usable_cores(), machine=platform.machine(),
            python=platform.python_version(), numpy=numpy.__version__,
            numba=numba.__version__, blas=_blas(), load_before=load_before,
            max_load=max_load(),
            load_after=os.getloadavg()[0])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"name": name, "result": live,
                                    "provenance": provenance}, indent=1) + "\n")
        print(f"recorded timing saved to {_shown(path)}")
    recorded, provenance = load(name)
    return Timed(name, live, recorded, provenance)
