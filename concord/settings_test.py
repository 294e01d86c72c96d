"""Test settings: the real settings, with tasks run in-process.

Background tasks run immediately (on commit) so tests see reports without a
worker; tests/scoring/test_worker.py runs the real database worker.
"""

import os

from concord.settings import *  # noqa: F403

TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend", "QUEUES": []}}
# Fast hashing: the tests log in hundreds of times.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CONCORD_REFRESH_MS = 500

# A file, not memory, so tests can use several connections at once (threads
# racing for the same judgment) as the real server does; one per test run, so
# two runs side by side never share it.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(SQLITE_PATH.with_name(f"test-concord-{os.getpid()}.sqlite3"))}  # noqa: F405
CONCORD_HELP_STRICT = True
# Static files from the source folders whatever CONCORD_STATIC says: the collected ones
# need collectstatic first, which takes half a minute (tests/test_static_files.py serves
# them as ./run does).
STATIC_FILES = "source"
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
WHITENOISE_USE_FINDERS = WHITENOISE_AUTOREFRESH = True
