"""Command-line entry point of the timing harness `rlmlib.book.bench.prefetch` (which the book's
pages import); run `.venv/bin/python benchmarks/bench_prefetch.py --help`."""
from rlmlib.book.bench.prefetch import main

if __name__ == "__main__":
    main()
