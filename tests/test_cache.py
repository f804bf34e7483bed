"""numba's disk cache lives in a directory per version of rlmlib's sources (rlmlib/__init__.py)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import rlmlib

REPO = Path(rlmlib.__file__).resolve().parents[1]


def cache_dir_of(root):
    """NUMBA_CACHE_DIR as a fresh `import rlmlib` from ``root`` sets it."""
    env = dict(os.environ, PYTHONPATH=str(root))
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", "import os, rlmlib, numba; "
                          "print(os.environ['NUMBA_CACHE_DIR']); print(numba.config.CACHE_DIR)"],
                         env=env, capture_output=True, text=True, check=True, cwd=root)
    ours, numbas = out.stdout.split()
    assert ours == numbas        # numba read it: rlmlib set it before numba's first import
    return Path(ours)


def test_an_edit_of_any_module_moves_the_cache(tmp_path):
    shutil.copytree(REPO / "rlmlib", tmp_path / "rlmlib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    before = cache_dir_of(tmp_path)
    assert before.parent == tmp_path / ".numba_cache" and len(before.name) == 12
    assert cache_dir_of(tmp_path) == before                       # deterministic
    helper = tmp_path / "rlmlib" / "core" / "losses.py"       # inlined into other modules' kernels
    helper.write_text(helper.read_text() + "\n# an edit\n")
    after = cache_dir_of(tmp_path)
    assert after != before and after.parent == before.parent


def test_an_explicit_setting_wins(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", "import os, rlmlib; "
                          "print(os.environ['NUMBA_CACHE_DIR'])"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(tmp_path)
