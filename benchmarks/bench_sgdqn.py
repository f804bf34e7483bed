"""Command-line entry point of the timing harness `rlmlib.book.bench.sgdqn` (which the book's
pages import); run `.venv/bin/python benchmarks/bench_sgdqn.py --help`."""
from rlmlib.book.bench.sgdqn import main

if __name__ == "__main__":
    main()
