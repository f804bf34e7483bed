"""Fetch the large public data sets of the papers from the LIBSVM data page (needs internet).

The book never needs these files: every chapter runs on the shipped sets and the synthetic
stand-ins (``rlmlib.datasets``). Readers with internet who want the real thing run, from the
repository root::

    .venv/bin/python data/fetch_libsvm.py --list
    .venv/bin/python data/fetch_libsvm.py rcv1_ccat covtype      # into ~/rlmlib_data
    .venv/bin/python data/fetch_libsvm.py rcv1.binary --dest /some/dir

and load the files with ``rlmlib.load_svmlight(path, n_features=...)``. Files are downloaded
once (an existing file is kept), written atomically, and their SHA-256 is printed and appended
to ``<dest>/SHA256SUMS`` so that later copies can be compared. The LIBSVM site publishes no
checksums, so none can be verified on the first download.

Data sets (from https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/):

* ``rcv1_ccat``: the RCV1-v2 CCAT task of the PGS and SGD-QN papers (781,265 training and
  23,149 test documents, 47,236 features). Built from LIBSVM's multi-label RCV1-v2 files
  (``rcv1_topics_train.svm.bz2`` and the four ``rcv1_topics_test_<k>.svm.bz2``): as in those
  papers, the 781,265 documents of LIBSVM's *test* files are the training set and its
  23,149-document *train* file is the test set; y = +1 when the document carries the topic
  CCAT. CCAT is found as the most frequent topic label (CCAT is on about 47 % of RCV1-v2
  documents, the next, GCAT, on about 30 %); the script prints the label and its frequency.
  Writes ``rcv1_ccat_train.svm`` and ``rcv1_ccat_test.svm``.
  (Bordes et al. used Bottou's own preprocessing of RCV1 with 47,152 features; LIBSVM's has
  47,236, the count the PGS paper reports.)
* ``rcv1.binary``: LIBSVM's binary RCV1 (CCAT and ECAT against GCAT and MCAT, multi-labelled
  documents removed): 20,242 training and 677,399 test documents, 47,236 features.
* ``covtype``: covtype.binary, 581,012 x 54 (labels 1 and 2), used by the data
  preconditioning paper; and ``covtype.scale`` (features scaled to [0, 1]).
* ``E2006``: E2006-tfidf regression, 16,087 + 3,308 documents, 150,360 features.
* ``YearPredictionMSD``: 463,715 + 51,630 songs, 90 features, regression.

Licenses: these are research data sets with their original providers' terms (Reuters for
RCV1 via Lewis et al. 2004; the UCI repository for covtype and MSD); they are not shipped with
the book and must be fetched by each reader.

Not tested in this repository (the build machine has no internet); the URLs are those of the
LIBSVM page.
"""
import argparse
import bz2
import os
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path

BASE = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/"
FILES = {
    "rcv1.binary": ["binary/rcv1_train.binary.bz2", "binary/rcv1_test.binary.bz2"],
    "rcv1_topics": ["multilabel/rcv1_topics_train.svm.bz2"]
    + [f"multilabel/rcv1_topics_test_{k}.svm.bz2" for k in range(4)],
    "covtype": ["binary/covtype.libsvm.binary.bz2"],
    "covtype.scale": ["binary/covtype.libsvm.binary.scale.bz2"],
    "E2006": ["regression/E2006.train.bz2", "regression/E2006.test.bz2"],
    "YearPredictionMSD": ["regression/YearPredictionMSD.bz2", "regression/YearPredictionMSD.t.bz2"],
}
NAMES = ["rcv1_ccat"] + list(FILES)


def sha256(path):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from rlmlib.datasets.shipped import sha256_file
    return sha256_file(path)


def download(rel, dest):
    """Download BASE + rel into dest (once), decompressing .bz2; return the local path."""
    name = Path(rel).name
    out = dest / (name[:-4] if name.endswith(".bz2") else name)
    if out.exists():
        print(f"{out} exists, kept")
        return out
    url = BASE + rel
    print(f"downloading {url}")
    with tempfile.NamedTemporaryFile(dir=dest, delete=False) as tmp:
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                src = bz2.BZ2File(r) if name.endswith(".bz2") else r
                shutil.copyfileobj(src, tmp, 1 << 20)
        except BaseException:
            os.unlink(tmp.name)
            raise
    os.replace(tmp.name, out)
    digest = sha256(out)
    with open(dest / "SHA256SUMS", "a") as f:
        f.write(f"{digest}  {out.name}\n")
    print(f"{out}: {out.stat().st_size / 1e6:.1f} MB, sha256 {digest}")
    return out


def rcv1_ccat(dest):
    """Write rcv1_ccat_train.svm (781,265 docs) and rcv1_ccat_test.svm (23,149 docs)."""
    import numpy as np
    import scipy.sparse as sp
    from sklearn.datasets import dump_svmlight_file, load_svmlight_file

    paths = [download(rel, dest) for rel in FILES["rcv1_topics"]]
    n = 47_236
    parts = [load_svmlight_file(str(p), n_features=n, multilabel=True) for p in paths]
    counts = {}
    for _, labels in parts:
        for doc in labels:
            for lab in doc:
                counts[lab] = counts.get(lab, 0) + 1
    total = sum(len(labels) for _, labels in parts)
    ccat = max(counts, key=counts.get)
    print(f"CCAT = topic label {ccat:g}: on {counts[ccat]} of {total} documents "
          f"({counts[ccat] / total:.1%}; expected about 47%)")

    def binary(chunk):
        X = sp.vstack([X for X, _ in chunk]).tocsr()
        y = np.array([1 if ccat in doc else -1 for _, labels in chunk for doc in labels])
        return X, y

    for out, chunk in [("rcv1_ccat_train.svm", parts[1:]), ("rcv1_ccat_test.svm", parts[:1])]:
        X, y = binary(chunk)
        dump_svmlight_file(X, y, str(dest / out), zero_based=False)
        print(f"{dest / out}: {X.shape[0]} x {X.shape[1]}, {np.mean(y > 0):.1%} positive")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Fetch LIBSVM data sets (needs internet).")
    ap.add_argument("names", nargs="*", help=f"any of: {', '.join(NAMES)}")
    ap.add_argument("--dest", type=Path, default=Path.home() / "rlmlib_data",
                    help="directory for the files (default ~/rlmlib_data)")
    ap.add_argument("--list", action="store_true", help="list the data sets and exit")
    args = ap.parse_args(argv)
    if args.list or not args.names:
        for name in NAMES:
            print(name, *(BASE + rel for rel in FILES.get(name, FILES["rcv1_topics"])))
        return
    unknown = [n for n in args.names if n not in NAMES]
    if unknown:
        ap.error(f"unknown data set(s) {', '.join(unknown)}; choose from {', '.join(NAMES)}")
    args.dest.mkdir(parents=True, exist_ok=True)
    for name in args.names:
        if name == "rcv1_ccat":
            rcv1_ccat(args.dest)
        else:
            for rel in FILES[name]:
                download(rel, args.dest)


if __name__ == "__main__":
    main()
