"""data/recorded/: results of paper-sized runs (RLMLIB_FULL=1) that the default build shows,
labelled as recorded. The file must be what such a run writes: a paper-sized run, complete,
and traceable to a commit of this repository."""
import json
import math
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PEGASOS_FULL = ROOT / "data" / "recorded" / "pegasos_experiments_full.json"


@pytest.fixture(scope="module")
def rec():
    return json.loads(PEGASOS_FULL.read_text())


def test_pegasos_record_is_paper_sized(rec):
    assert rec["full"] is True
    # the paper's sizes (Zhu et al. 2009): CCAT 781,265 x 47,236, Fig. 9 and Table II repeats
    f58 = rec["figs5to8"]
    assert f58["ms"][-1] == 781_265 and f58["n"] == 47_236
    assert rec["fig9"]["runs"] == 150 and rec["table2"]["runs"] == 20
    assert rec["fig9"]["ms"][-1] == 200_000


def test_pegasos_record_is_complete(rec):
    f9 = rec["fig9"]
    assert set(f9["median_iterations"]) == {"10", "20", "40"}
    assert all(len(v) == len(f9["ms"]) for v in f9["median_iterations"].values())
    f58 = rec["figs5to8"]
    assert len(f58["seconds"]) == 4 and set(f58["ratio"]) == set(f58["seconds"])
    for sec in f58["seconds"].values():
        assert len(sec) == len(f58["ms"])
        assert all(len(row) == len(f58["deltas"]) for row in sec)
        assert all(t > 0 for row in sec for t in row)          # inf allowed: not reached
    for aq, am, sd in rec["table2"]["rows"].values():
        assert 0.5 < aq <= 1 and 0.5 < am <= 1 and 0 <= sd < 0.1
    assert all(math.isfinite(v) for v in f58["ratio"].values())


def test_pegasos_record_names_a_commit_of_this_repository(rec):
    commit = rec["started"]["commit"]
    shallow = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--is-shallow-repository"],
                             capture_output=True, text=True).stdout.strip()
    if shallow != "false":
        pytest.skip("not a git checkout with its whole history")
    out = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}^{{commit}}"],
                         capture_output=True)
    assert len(commit) == 40 and out.returncode == 0, f"unknown commit {commit!r}"
