"""Make sure Debian's `chromium` and `chromium-driver` are installed (the HTML test needs
them); install them with apt-get when they are missing.  Run by `make html-test`."""
import os
import shutil
import subprocess
import sys

PACKAGES = ["chromium", "chromium-driver"]


def missing() -> list[str]:
    need = {"chromium": "chromium", "chromedriver": "chromium-driver"}
    return [pkg for exe, pkg in need.items() if shutil.which(exe) is None]


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
