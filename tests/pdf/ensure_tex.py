"""Make sure the TeX the PDF edition needs is installed (Debian's XeLaTeX, latexmk, the
FreeFont family and poppler's pdftotext / pdfinfo / pdftoppm for the test); install what is
missing with apt-get.  Run by `make pdf`."""
import os
import shutil
import subprocess
import sys

#: Debian packages, and a program or file each provides that tells whether it is installed
PACKAGES = {
    "texlive-xetex": "xelatex",
    "texlive-latex-extra": "/usr/share/texlive/texmf-dist/tex/latex/tabulary/tabulary.sty",
    "texlive-fonts-recommended": "/usr/share/texlive/texmf-dist/fonts/type1/urw/times",
    "latexmk": "latexmk",
    "poppler-utils": "pdftotext",
    "fonts-freefont-otf": "/usr/share/fonts/opentype/freefont/FreeSerif.otf",
}


def missing() -> list[str]:
    return [pkg for pkg, probe in PACKAGES.items()
            if not (os.path.exists(probe) if probe.startswith("/") else shutil.which(probe))]


def main() -> int:
    todo = missing()
    if not todo:
        return 0
    if os.geteuid() != 0:
        print(f"[pdf] {' '.join(todo)} missing and not root: install them with "
              f"`sudo apt-get install --no-install-recommends {' '.join(PACKAGES)}`",
              file=sys.stderr)
        return 1
    print(f"[pdf] installing {' '.join(todo)} with apt-get (about a minute)", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    if missing():
        print(f"[pdf] still missing after apt-get: {missing()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
