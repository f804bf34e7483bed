"""Command-line entry point of `rlmlib.book.bench.distributed` (local SGD and CoCoA against
dask-ml's LogisticRegression on one LocalCluster); needs the peers' environment:
`make bench-env && .venv-bench/bin/python benchmarks/bench_distributed.py --help`."""
from rlmlib.book.bench.distributed import main

if __name__ == "__main__":
    main()
