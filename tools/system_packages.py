"""Install the system programs the tests need, from Debian's packages, when they are missing.

    python tools/system_packages.py GROUP [GROUP ...] [--background LOG]

GROUP is one of
  chromium  Chromium and its driver (tests/html: the built pages in a real browser)
  tex       XeLaTeX, latexmk, the TeX packages Sphinx's LaTeX needs, the FreeFont family and
            poppler's pdftotext / pdfinfo / pdftoppm (`make pdf` and tests/pdf)
  axe       axe-core, the accessibility engine, from the npm registry (pinned), unpacked in
            _build/axe (tests/html/test_accessibility.py)

A group whose probes all exist is skipped, so a machine that has the programs installs
nothing.  apt-get runs as root only; otherwise the command to run is printed and the exit
status is 1.  Two invocations never run apt-get at the same time (a lock file): `make test`
starts the installation in the background (--background LOG) while the unit tests run, and
the steps that need a program call this again, which waits for the background run and then
finds the group installed.
"""
from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = Path(os.environ.get("TMPDIR", "/tmp")) / "rlmlib-system-packages.lock"

#: Debian packages of each group, each with a program on PATH or a file it provides
APT = {
    "chromium": {"chromium": "chromium", "chromium-driver": "chromedriver"},
    "tex": {
        "texlive-xetex": "xelatex",
        "texlive-latex-extra": "/usr/share/texlive/texmf-dist/tex/latex/tabulary/tabulary.sty",
        "texlive-fonts-recommended": "/usr/share/texlive/texmf-dist/fonts/type1/urw/times",
        "latexmk": "latexmk",
        "poppler-utils": "pdftotext",
        "fonts-freefont-otf": "/usr/share/fonts/opentype/freefont/FreeSerif.otf",
    },
}
#: axe-core from the npm registry: the version and where its script is unpacked
AXE_VERSION = "4.10.3"
AXE_DIR = ROOT / "_build" / "axe"
AXE_SCRIPT = AXE_DIR / f"axe-{AXE_VERSION}.min.js"


def browser_paths() -> tuple[str | None, str | None]:
    """The browser and its driver: CHROMIUM_BIN / CHROMEDRIVER_BIN when set (e.g. Google
    Chrome on a GitHub runner), else Debian's `chromium` and `chromedriver` on PATH."""
    return (os.environ.get("CHROMIUM_BIN") or shutil.which("chromium"),
            os.environ.get("CHROMEDRIVER_BIN") or shutil.which("chromedriver"))


def _present(probe: str) -> bool:
    if probe.startswith("/"):
        return os.path.exists(probe)
    if probe in ("chromium", "chromedriver"):
        path = browser_paths()[probe == "chromedriver"]
        return bool(path and os.access(path, os.X_OK))
    return shutil.which(probe) is not None


def missing(group: str) -> list[str]:
    """The packages of `group` whose probe is absent."""
    if group == "axe":
        return [] if AXE_SCRIPT.is_file() else [f"axe-core@{AXE_VERSION}"]
    return [pkg for pkg, probe in APT[group].items() if not _present(probe)]


def _apt_install(packages: list[str]) -> None:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
                   check=True, env=env, stdout=subprocess.DEVNULL)


def _npm_axe() -> None:
    npm = shutil.which("npm")
    if not npm:
        raise RuntimeError("npm is missing: install Debian's `npm` (axe-core comes from the "
                           "npm registry)")
    AXE_DIR.mkdir(parents=True, exist_ok=True)
    out = subprocess.run([npm, "pack", f"axe-core@{AXE_VERSION}", "--pack-destination",
                          str(AXE_DIR)], capture_output=True, text=True)
    if out.returncode:      # npm's notices go to stderr: shown only when it fails
        raise RuntimeError(f"npm pack axe-core@{AXE_VERSION} failed:\n{out.stderr}")
    with tarfile.open(AXE_DIR / f"axe-core-{AXE_VERSION}.tgz") as tar:
        AXE_SCRIPT.write_bytes(tar.extractfile("package/axe.min.js").read())


def ensure(groups: list[str]) -> int:
    """Install what `groups` lack; 0 when everything is there afterwards."""
    unknown = [g for g in groups if g != "axe" and g not in APT]
    if unknown:
        print(f"[system-packages] unknown group(s) {unknown}: expected some of "
              f"{sorted(APT) + ['axe']}", file=sys.stderr)
        return 2
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)           # waits for a run in the background
        todo = {g: missing(g) for g in groups if missing(g)}
        if not todo:
            return 0
        debs = [p for g, pkgs in todo.items() if g != "axe" for p in pkgs]
        if debs:
            if os.geteuid() != 0:
                print(f"[system-packages] {' '.join(debs)} missing and not root: install "
                      f"them with `sudo apt-get install --no-install-recommends "
                      f"{' '.join(debs)}`", file=sys.stderr)
                return 1
            print(f"[system-packages] installing {' '.join(debs)} with apt-get", flush=True)
            _apt_install(debs)
        if "axe" in todo:
            print(f"[system-packages] fetching axe-core {AXE_VERSION} with npm pack",
                  flush=True)
            _npm_axe()
        left = {g: missing(g) for g in groups if missing(g)}
        if left:
            print(f"[system-packages] still missing after installing: {left}",
                  file=sys.stderr)
            return 1
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups", nargs="+", metavar="GROUP")
    ap.add_argument("--background", metavar="LOG",
                    help="return at once; install in a detached process writing to LOG")
    args = ap.parse_args(argv)
    if args.background:
        Path(args.background).parent.mkdir(parents=True, exist_ok=True)
        with open(args.background, "w") as log:
            subprocess.Popen([sys.executable, __file__, *args.groups], stdout=log,
                             stderr=subprocess.STDOUT, start_new_session=True)
        return 0
    return ensure(args.groups)


if __name__ == "__main__":
    sys.exit(main())
