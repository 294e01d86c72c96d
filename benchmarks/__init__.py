"""Benchmarks: ``python -m benchmarks.<name>`` from the project root.

Each measures Concord and a reference implementation in the same run and ends
with one ``RESULT`` line (see DESIGN.md, "Benchmarks").
"""
