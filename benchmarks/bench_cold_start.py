"""Command-line entry point of `rlmlib.book.bench.cold` (first call of every solver in a
fresh process, numba cache empty and filled); run with `--help`."""
from rlmlib.book.bench.cold import main

if __name__ == "__main__":
    main()
