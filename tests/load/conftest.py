"""The load tests start real servers (gunicorn, the task worker, PostgreSQL);
``-m "not load"`` leaves them out."""


def pytest_configure(config):
    config.addinivalue_line("markers", "load: load tests against gunicorn and a task worker (tests/load)")
