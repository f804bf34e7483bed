"""Fixtures of the HTML test: the built book served on 127.0.0.1, and headless Chromium
with every network request except to that address refused."""
from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tools"))
HTML = Path(os.environ.get("BOOK_HTML", ROOT / "_build" / "html"))
SHOTS = ROOT / "_build" / "html-test"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


@pytest.fixture(scope="session")
def html_root() -> Path:
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no built book at {HTML}: run `make book` first")
    return HTML


@pytest.fixture(scope="session")
def server(html_root):
    handler = functools.partial(_Quiet, directory=str(html_root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from system_packages import browser_paths

    chromium, driver_exe = browser_paths()
    if not (chromium and driver_exe):
        pytest.fail("chromium / chromedriver not found: run "
                    "`python tools/system_packages.py chromium`")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--disable-extensions", "--disable-default-apps",
        "--window-size=1280,1000",
        # networking disabled: names other than 127.0.0.1 do not resolve, and anything not
        # on the loopback interface goes to a proxy that does not exist
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--proxy-server=http://127.0.0.1:9",
    ]:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Service with an explicit path: selenium does not try to download a driver
    drv = webdriver.Chrome(service=Service(executable_path=driver_exe), options=opts)
    drv.set_page_load_timeout(60)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield drv
    drv.quit()
