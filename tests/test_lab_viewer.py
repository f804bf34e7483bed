"""Chapters open as notebooks on a double-click in JupyterLab: the repository's
.jupyter/labconfig/default_setting_overrides.json makes jupytext's notebook view the default
viewer of Markdown files. Tested headless: a JupyterLab server started with that config
directory (as `make lab` and Binder's postBuild do) must report the override."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = "@jupyterlab/docmanager-extension:plugin"


def test_override_file_names_the_jupytext_viewer():
    cfg = json.loads((ROOT / ".jupyter/labconfig/default_setting_overrides.json").read_text())
    viewers = cfg[PLUGIN]["defaultViewers"]
    assert viewers["markdown"] == "Jupytext Notebook" and viewers["myst"] == viewers["markdown"]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_jupyterlab_server_applies_the_override(tmp_path):
    port, token = _free_port(), "booktest"
    env = dict(os.environ, JUPYTER_CONFIG_PATH=str(ROOT / ".jupyter"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"))
    jupyter = Path(sys.executable).with_name("jupyter")
    proc = subprocess.Popen([str(jupyter), "lab", "--no-browser", f"--port={port}",
                             "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", "--allow-root",
                             f"--ServerApp.root_dir={ROOT}"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/lab/api/settings/{PLUGIN}?token={token}"
        for _ in range(120):
            try:
                with urllib.request.urlopen(url, timeout=5) as r:
                    data = json.load(r)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not answer within a minute")
        default = data["schema"]["properties"]["defaultViewers"]["default"]
        assert default.get("markdown") == "Jupytext Notebook", default
        assert default.get("myst") == "Jupytext Notebook", default
    finally:
        proc.terminate()
        proc.wait(timeout=30)
