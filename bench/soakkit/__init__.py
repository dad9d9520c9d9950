"""Soak and fault-injection harness for the planner node (bench/bench_soak.py, tests/soak)."""
