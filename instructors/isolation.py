"""The trusted side of the hidden grading: a submission's functions run in another process
(instructors/worker.py), the graders of instructors/grading run here.

``Submission(setup, cells, allowed, twins)`` starts the worker, executes the submission's
answer cells there, and ``.function(name, cell)`` gives a ``Remote``: a callable that
sends its arguments to the worker, returns the decoded result and writes the worker's view of the arguments after
the call back into the caller's arrays and lists (so the graders' check that inputs are
left unmodified sees what the submission did). Whatever the submission does in its own
process (replace a checker, a grader or a module attribute, import a reference answer),
the graders, the references, the seed and the expected values live in this process: the
only thing it can influence is the values its function returns.
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from instructors.worker import ANSWER_FILE, Unencodable, decode, encode

WORKER = Path(__file__).with_name("worker.py")
#: seconds a single call of the submission's function may take
CALL_TIMEOUT = 20.0
#: seconds the set-up and answer cells may take (imports included)
START_TIMEOUT = 60.0


class Submission:
    """One submission's code, executed in a worker process."""

    def __init__(self, setup: str, cells, allowed=(), twins=()):
        self.setup = setup
        self.cells = [cells] if isinstance(cells, str) else list(cells)
        self.answer = "\n\n".join(self.cells)
        self.allowed, self.twins = [list(a) for a in allowed], list(twins)
        self._start()

    def _start(self):
        self._dir = tempfile.TemporaryDirectory(prefix="grading-")
        self._err = open(Path(self._dir.name) / "stderr.txt", "w+b")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(WORKER)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._err, cwd=self._dir.name, env=env)
        rep = self._ask({"setup": self.setup, "answer": self.cells,
                         "allowed": self.allowed, "twins": self.twins}, START_TIMEOUT)
        self.errors = {int(k): v for k, v in rep.get("errors", {}).items()}
        self.names = rep.get("names", [])

    def _ask(self, req, timeout):
        if self.proc.poll() is not None:
            raise AssertionError("the process running your code has ended (exit code "
                                 f"{self.proc.returncode}){self._stderr_tail()}")
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError as e:
            raise AssertionError("the process running your code has ended") from e
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.close()
            what = "your answer cells" if "setup" in req else "your function"
            raise AssertionError(f"{what} did not return within {timeout:g} s")
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise AssertionError("the process running your code has ended (exit code "
                                 f"{self.proc.returncode}){self._stderr_tail()}")
        return json.loads(line)

    def _stderr_tail(self):
        try:
            self._err.seek(0)
            tail = self._err.read()[-500:].decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return f"; it wrote: {tail}" if tail else ""

    def function(self, name, cell=None):
        """The submission's ``name`` (defined in answer cell ``cell``, whose error, if it
        raised, is reported by every call)."""
        return Remote(self, name, cell)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass
        self._err.close()
        self._dir.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Remote:
    """The submission's function ``name`` as a callable of the grading process."""

    def __init__(self, submission: Submission, name: str, cell=None):
        self.submission, self.name, self.cell = submission, name, cell
        self.__name__ = name

    @property
    def source(self):
        return self.submission.answer

    def __call__(self, *args):
        sub = self.submission
        if self.cell in sub.errors:
            raise RuntimeError(f"your answer cell raised {sub.errors[self.cell]}")
        if sub.proc.poll() is not None:     # a timeout or a crash: a fresh process
            sub.close()
            sub._start()
        rep = sub._ask({"call": self.name, "args": [encode(a) for a in args]},
                       CALL_TIMEOUT)
        if "missing" in rep:
            raise NameError(f"your answer defines no function {self.name}")
        for a, new in zip(args, rep.get("args", [])):
            _write_back(a, decode(new))
        if "raised" in rep:
            kind, msg = rep["raised"]
            raise _raised(kind, msg)
        return _decode_result(rep["result"], args)

    def __repr__(self):
        return f"<the submission's {self.name}, run in a separate process>"


def _raised(kind, msg):
    """The submission's exception, with its type's name (a fresh class: nothing of the
    submission's process is unpickled here)."""
    return type(str(kind)[:80] or "Exception", (Exception,), {})(msg)


def _decode_result(x, args):
    """``decode``, with a reference to an argument (the submission returned its input
    itself) resolved to the caller's own argument object."""
    if isinstance(x, dict) and x.get("t") == "arg":
        i = x.get("i")
        return args[i] if isinstance(i, int) and 0 <= i < len(args) else \
            Unencodable("bad reference")
    if isinstance(x, dict) and x.get("t") in ("tuple", "list"):
        v = [_decode_result(e, args) for e in x["v"]]
        return v if x["t"] == "list" else tuple(v)
    return decode(x)


def _write_back(arg, new):
    """What the submission did to a mutable argument, done to the caller's argument."""
    if isinstance(arg, np.ndarray) and isinstance(new, np.ndarray) and \
            new.shape == arg.shape:
        np.copyto(arg, new, casting="unsafe")
    elif isinstance(arg, list) and isinstance(new, list):
        arg[:] = new
