"""Make sure axe-core (the accessibility engine, npm's `axe-core`, pinned) is unpacked in
_build/axe; fetch it with `npm pack` when it is missing.  Run by `make html-test`."""
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

VERSION = "4.10.3"
ROOT = Path(__file__).resolve().parents[2]
DEST = ROOT / "_build" / "axe"
SCRIPT = DEST / f"axe-{VERSION}.min.js"


def main() -> int:
    if SCRIPT.is_file():
        return 0
    npm = shutil.which("npm")
    if not npm:
        print("[html-test] npm is missing: install Debian's `npm` (axe-core comes from the "
              "npm registry)", file=sys.stderr)
        return 1
    DEST.mkdir(parents=True, exist_ok=True)
    print(f"[html-test] fetching axe-core {VERSION} with npm pack", flush=True)
    subprocess.run([npm, "pack", f"axe-core@{VERSION}", "--pack-destination", str(DEST)],
                   check=True, stdout=subprocess.DEVNULL)
    with tarfile.open(DEST / f"axe-core-{VERSION}.tgz") as tar:
        member = tar.extractfile("package/axe.min.js")
        SCRIPT.write_bytes(member.read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
