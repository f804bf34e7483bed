"""Command-line entry point of the timing harness `rlmlib.book.bench.momentum`; run
`.venv/bin/python benchmarks/bench_momentum.py --help`."""
from rlmlib.book.bench.momentum import main

if __name__ == "__main__":
    main()
