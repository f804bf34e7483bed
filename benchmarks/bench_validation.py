"""Command-line entry point of the timing harness `rlmlib.book.bench.validation` (the one
validation pass against one SpMV); run `.venv/bin/python benchmarks/bench_validation.py --help`."""
from rlmlib.book.bench.validation import main

if __name__ == "__main__":
    main()
