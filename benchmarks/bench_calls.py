"""Command-line entry point of the timing harness `rlmlib.book.bench.calls` (which the book's
pages import); run `.venv/bin/python benchmarks/bench_calls.py --help`."""
from rlmlib.book.bench.calls import main

if __name__ == "__main__":
    main()
