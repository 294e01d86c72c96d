"""Settings of the load run's gunicorn: the app's own (``concord.settings``, configured
by the same environment) with one more endpoint, the benchmark's reference.

``ROOT_URLCONF`` is ``benchmarks.bare_api``: the app's URLs plus ``PUT /bare/<judgment id>/``,
a bare DRF view doing one read and one write on the same database behind the same
authentication, middleware and renderer. The app's own URLs never include it.
"""

from concord.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.bare_api"
