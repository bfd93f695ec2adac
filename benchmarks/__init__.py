"""Benchmarks for `make bench`: every `bench_*.py` module exposes `run() -> list[BenchRow]`."""
