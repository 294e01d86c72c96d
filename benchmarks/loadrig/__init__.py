"""The rig the load benchmarks run on: a real stack started in subprocesses.

``harness`` starts the databases (SQLite file, or a throw-away PostgreSQL),
gunicorn, the task workers and locust, seeds campaigns, checks afterwards
that every acknowledged save was stored exactly once, and stops everything it
started; ``locustfile`` is what locust's users do; ``client`` the plain HTTP
client of the distributed run; ``settings`` the app's settings plus the
benchmark's bare reference endpoint (``benchmarks.bare_api``). Used by
``benchmarks.load``, ``benchmarks.distributed`` and ``benchmarks.storage``,
and, at a tiny size, by the tests in tests/load/.
"""
