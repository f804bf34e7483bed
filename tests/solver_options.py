"""The documented choices of every registered solver's categorical options, read from the
solvers themselves: each option is called once with a value it cannot take and the
choices are parsed from its refusal ("loss must be one of 'hinge', ...; got ...",
"loss must be 'squared' or 'logistic', got ...", "shrinking must be True or False, ...").
A new option or a new choice is then swept and fuzzed without editing a list by hand
(tests/bounds_sweep.py, tests/fuzz_solvers.py); an option whose refusal cannot be parsed
fails tests/test_bounds.py.
"""
import inspect
import re

import numpy as np

#: the keyword arguments that are categorical options (strings or flags) where present
CATEGORICAL = ("loss", "order", "method", "schedule", "variant", "snapshot", "penalty",
               "averaging", "shrinking", "nesterov", "amsgrad", "lazy", "project")
#: integer options that decide positions in arrays, with values around their edges
#: (1, small, beyond the 30-row problems of the sweep); n_checkpoints cuts runs in segments
INTEGER = {"k": (1, 5, 64), "memory": (1, 3), "skip": (1, 3), "inner": (1, 45),
           "average_start": (0, 5, 1000), "pair_batch": (1, 4), "pair_every": (1, 3),
           "n_checkpoints": (1, 7)}
_BAD = "no-such-choice"


def _parse(msg, opt):
    if re.match(rf"{opt} must be True or False\b", msg):
        return (False, True)
    m = re.match(rf"{opt} must be one of (.*?)[;,] got", msg) or \
        re.match(rf"{opt} must be ('[^']*'(?: or '[^']*')+)", msg)
    if not m:
        return None
    return tuple(re.findall(r"'([^']*)'", m.group(1)))


def choices(name):
    """{option: tuple of its choices} for registered solver ``name`` (the categorical
    options it takes; a ValueError if one's refusal names no choices)."""
    import rlmlib
    from solver_table import call

    params = inspect.signature(rlmlib.SOLVERS[name]).parameters
    rng = np.random.default_rng(0)
    X = rng.standard_normal((8, 3))
    y = np.where(np.arange(8) % 2 == 0, 1, -1)
    out = {}
    for opt in CATEGORICAL:
        if opt not in params:
            continue
        try:
            call(name, X, y, **{opt: _BAD})
        except (ValueError, TypeError) as e:
            got = _parse(str(e), opt)
            if got is None:
                raise ValueError(f"{name}({opt}={_BAD!r}) was refused with a message "
                                 f"naming no choices: {e}") from e
            out[opt] = got
        else:
            raise ValueError(f"{name} accepted {opt}={_BAD!r}")
    return out


def integer_options(name):
    """{option: values} of the INTEGER options solver ``name`` takes."""
    import rlmlib

    params = inspect.signature(rlmlib.SOLVERS[name]).parameters
    return {k: v for k, v in INTEGER.items() if k in params}
