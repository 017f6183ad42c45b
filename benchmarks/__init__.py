"""hexarena benchmarks: `make bench` (or `python -m benchmarks [NAME ...]`) runs every *_bench.py."""
