"""Command-line entry point of the timing harness `rlmlib.book.bench.vr`; run
`.venv/bin/python benchmarks/bench_vr.py --help`."""
from rlmlib.book.bench.vr import main

if __name__ == "__main__":
    main()
