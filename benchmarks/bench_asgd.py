"""Command-line entry point of the timing harness `rlmlib.book.bench.asgd`; run
`.venv/bin/python benchmarks/bench_asgd.py --help`."""
from rlmlib.book.bench.asgd import main

if __name__ == "__main__":
    main()
