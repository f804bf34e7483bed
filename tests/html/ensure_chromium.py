"""Make sure Debian's `chromium` and `chromium-driver` are installed (the HTML test needs
them); install them with apt-get when they are missing.  Run by `make html-test`."""
import os
import shutil
import subprocess
import sys

PACKAGES = ["chromium", "chromium-driver"]


def browser_paths() -> tuple[str | None, str | None]:
    """The browser and its driver: CHROMIUM_BIN / CHROMEDRIVER_BIN when set (e.g. Google
    Chrome on a GitHub runner), else Debian's `chromium` and `chromedriver` on PATH."""
    return (os.environ.get("CHROMIUM_BIN") or shutil.which("chromium"),
            os.environ.get("CHROMEDRIVER_BIN") or shutil.which("chromedriver"))


def missing() -> list[str]:
    browser, driver = browser_paths()
    return [pkg for path, pkg in zip((browser, driver), PACKAGES)
            if not (path and os.access(path, os.X_OK))]


def main() -> int:
    todo = missing()
    if not todo:
        return 0
    if os.geteuid() != 0:
        print(f"[html-test] {' '.join(todo)} missing and not root: install them with "
              f"`sudo apt-get install {' '.join(PACKAGES)}`", file=sys.stderr)
        return 1
    print(f"[html-test] installing {' '.join(todo)} with apt-get", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    if missing():
        print(f"[html-test] still missing after apt-get: {missing()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
