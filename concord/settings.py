"""Concord settings: one module, configured by the environment.

CONCORD_ENV=production turns on the production profile: it refuses to start
without SECRET_KEY and passes ``manage.py check --deploy --fail-level WARNING``.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

from concord.env import env_bool, env_choice, env_int, env_list, env_seconds, env_str, secret_key_file
from kinds import KIND_APPS

BASE_DIR = Path(__file__).resolve().parent.parent

ENV = env_choice("CONCORD_ENV", "development", ("development", "production"))
PRODUCTION = ENV == "production"

# The key sessions, CSRF tokens and set-password links are signed with: SECRET_KEY, else
# the file CONCORD_SECRET_KEY_FILE names (./run makes one of its own in var/secret_key on
# first start, readable by its owner only), else, outside production only, a public
# development key (anyone may sign sessions for a server using it).
SECRET_KEY = env_str("SECRET_KEY") or secret_key_file("CONCORD_SECRET_KEY_FILE")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set when CONCORD_ENV=production (or CONCORD_SECRET_KEY_FILE)")
    SECRET_KEY = "django-insecure-development-only-never-use-in-production"

DEBUG = env_bool("CONCORD_DEBUG", default=False)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("CONCORD_DEBUG must be off when CONCORD_ENV=production")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
CSRF_FAILURE_VIEW = "concord.error_pages.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "axes",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_tasks",
    "annotate",
    # Before django_tasks_db: its db_worker command is scoring's, which outlasts
    # a busy database (scoring/management/commands/db_worker.py).
    "scoring",
    "django_tasks_db",
    "dashboard",
    *KIND_APPS,
    "concord.apps.ConcordConfig",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # concord/security.py: CSP on every response (so outermost), then (below)
    # the upload limit before anything reads a body, input no database
    # stores, and login throttling.
    "concord.security.SecurityHeadersMiddleware",
    # Cache-Control: no-store on every response to an authenticated user.
    "concord.security.NoStoreMiddleware",
    # A transient database error (a lock not got in time) -> 503 + Retry-After, never 500.
    "concord.busy.BusyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After the session and the user are known (none of the above reads a body;
    # CSRF reads the form in process_view, after every middleware's call):
    # a large body only from someone signed in (concord.security).
    "concord.security.UploadLimitMiddleware",
    "concord.security.UnstorableInputMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Login throttling (django-axes): last, as its documentation asks; turns a
    # refused login into 429 (concord.security.lockout_response).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "concord.urls"
WSGI_APPLICATION = "concord.wsgi.application"

TEMPLATES = [
    {
        # Django's templates, answering text a page cannot encode (a lone
        # surrogate stored before it could be refused) instead of a 500.
        "BACKEND": "concord.templating.DjangoTemplates",
        "NAME": "django",  # the alias Django's own backend has (engines["django"])
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite by default. IMMEDIATE transactions take the write lock up front, so
# concurrent writers wait (busy timeout) instead of failing with "database is
# locked" when a read transaction tries to upgrade; WAL lets readers run
# alongside the writer. synchronous=FULL: every commit is on the disk (the WAL
# is fsynced) before the request is answered, so an acknowledged save survives
# an operating-system crash or a power cut; NORMAL (asked for knowingly) syncs
# only at checkpoints, and such a crash may roll back the last saves.
SQLITE_PATH = Path(env_str("CONCORD_SQLITE_PATH", str(BASE_DIR / "var" / "concord.sqlite3")))
SQLITE_SYNCHRONOUS = env_choice("CONCORD_SQLITE_SYNCHRONOUS", "full", ("full", "normal")).upper()
_database_url = env_str("DATABASE_URL")
if _database_url:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60, conn_health_checks=True)}
    # A request waiting longer than this for a row lock gets an error, which
    # concord.busy answers 503 with Retry-After (0: wait for ever).
    _lock_timeout = env_int("CONCORD_PG_LOCK_TIMEOUT", 20, minimum=0)
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and _lock_timeout:
        _options = DATABASES["default"].setdefault("OPTIONS", {})
        _options["options"] = f"{_options.get('options', '')} -c lock_timeout={_lock_timeout * 1000}".strip()
else:
    SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": SQLITE_PATH,
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": env_int("CONCORD_SQLITE_TIMEOUT", 20, minimum=1),
                "init_command": f"PRAGMA journal_mode=WAL; PRAGMA synchronous={SQLITE_SYNCHRONOUS};",
            },
            "TEST": {"NAME": env_str("CONCORD_SQLITE_TEST_PATH")},
            # Connections are kept between requests (opening one and running
            # its PRAGMAs cost about a tenth of a small request's CPU).
            "CONN_MAX_AGE": env_int("CONCORD_CONN_MAX_AGE", 600, minimum=0),
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("CONCORD_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where WhiteNoise serves the static files from (docs/operations.md, "Static files"):
# - "collected" (production's default, and ./run's): what `manage.py collectstatic`
#   put in STATIC_ROOT, each file also under a name holding a hash of its content
#   (app.3f2a9c1d.css), which every page links to and which is cached for ever
#   (Cache-Control: immutable), with gzip and Brotli copies sent to the browsers
#   that take them. A page cannot be drawn before collectstatic has run: its links
#   come from the manifest collectstatic writes.
# - "source" (the default otherwise: tests, runserver): straight from the source
#   folders, plain names, re-read on every change, nothing to collect first.
STATIC_FILES = env_choice("CONCORD_STATIC", "collected" if PRODUCTION else "source", ("source", "collected"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_FILES == "collected"
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = STATIC_FILES == "source"
WHITENOISE_AUTOREFRESH = STATIC_FILES == "source"
# Source maps (most of the bytes, and fetched only by a browser's developer tools) are
# not compressed: collectstatic takes half the time (26 s instead of 52 here).
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")

# The hard limit on a request body (topic files, crowd files, JSON): larger
# ones get 413 before they are read (concord.security.UploadLimitMiddleware).
# Anything under it is read in memory, so no upload goes to a temporary file.
CONCORD_MAX_UPLOAD_BYTES = env_int("CONCORD_MAX_UPLOAD_BYTES", 50 * 2**20, minimum=1)
DATA_UPLOAD_MAX_MEMORY_SIZE = CONCORD_MAX_UPLOAD_BYTES
# Until the user is known (no valid session or API token), and always for the
# views anyone may post to (login page, admin login, API token), a request
# body is at most this much: 413 before reading it (concord.security).
CONCORD_ANONYMOUS_MAX_BODY_BYTES = env_int("CONCORD_ANONYMOUS_MAX_BODY_BYTES", 64 * 2**10, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = CONCORD_MAX_UPLOAD_BYTES
# What one import or preview may spend reading its file (concord/budget.py;
# docs/security.md): CPU seconds of its thread, cells read or made, and bytes
# held (and resident memory grown). Past one: 400 naming it.
CONCORD_IMPORT_CPU_SECONDS = env_int("CONCORD_IMPORT_CPU_SECONDS", 30, minimum=1)
CONCORD_IMPORT_MAX_CELLS = env_int("CONCORD_IMPORT_MAX_CELLS", 20_000_000, minimum=1)
CONCORD_IMPORT_MEMORY_BYTES = env_int("CONCORD_IMPORT_MEMORY_BYTES", 512 * 2**20, minimum=2**20)
# Files previewed in the import wizard wait for their confirmation at most this
# long, at most CONCORD_STAGED_BYTES_PER_USER (one file per user and campaign)
# and CONCORD_STAGED_BYTES (everyone's), in at most CONCORD_STAGED_FILES files
# (annotate/imports/wizard.py, Staging).
CONCORD_STAGED_SECONDS = env_int("CONCORD_STAGED_SECONDS", 600, minimum=10)
CONCORD_STAGED_BYTES_PER_USER = env_int("CONCORD_STAGED_BYTES_PER_USER", 100 * 2**20, minimum=1)
CONCORD_STAGED_BYTES = env_int("CONCORD_STAGED_BYTES", 1024 * 2**20, minimum=1)
CONCORD_STAGED_FILES = env_int("CONCORD_STAGED_FILES", 200, minimum=1)
# Where those files wait: a folder of this machine's temporary directory by default;
# on several web machines, a folder they all share (docs/operations.md), so that a
# confirmation reaching another machine finds its file and every machine's sweep sees all.
CONCORD_STAGING_DIR = env_str("CONCORD_STAGING_DIR", "")
# The web server's front (concord/front.py, as ./run serves): a request's head must
# arrive within this many seconds, and its body may pause no longer than this; slower
# clients get 408 and are closed (they never reach a gunicorn worker).
CONCORD_HEADER_TIMEOUT = env_seconds("CONCORD_HEADER_TIMEOUT", 10.0)
CONCORD_BODY_TIMEOUT = env_seconds("CONCORD_BODY_TIMEOUT", 30.0)
if not CONCORD_HEADER_TIMEOUT or not CONCORD_BODY_TIMEOUT:
    raise ImproperlyConfigured("CONCORD_HEADER_TIMEOUT and CONCORD_BODY_TIMEOUT must be more than 0 seconds")
# Draft saves in a row from one browser session or API token share one revision
# while its first save is younger than this (0: every save its own revision;
# annotate.services.judgments.save_judgment).
CONCORD_DRAFT_REVISION_SECONDS = env_int("CONCORD_DRAFT_REVISION_SECONDS", 60, minimum=0)

# Login throttling: django-axes. After this many failed logins for one
# username from one address, within the window (counted back from the newest
# failure), the login page, the admin's login page and POST /api/auth/token/
# answer 429 until the window has passed. Its backend goes first: it refuses
# before any password is checked, on every path that calls authenticate().
CONCORD_LOGIN_ATTEMPTS = env_int("CONCORD_LOGIN_ATTEMPTS", 5, minimum=1)
CONCORD_LOGIN_WINDOW_SECONDS = env_int("CONCORD_LOGIN_WINDOW_SECONDS", 60, minimum=1)
AUTHENTICATION_BACKENDS = [
    "concord.security.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# The database handler, not the cache one: the count lives in the database
# every web process already shares (any number of gunicorn workers or web
# nodes see one count, with no Redis to configure), survives restarts, and
# keys on username and address as separate columns (the cache handler hashes
# them concatenated). One row per failing username and address, removed once
# the window has passed.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = "concord.security.login_attempts"
AXES_COOLOFF_TIME = "concord.security.login_window"
# The username exactly as authentication reads it (NFKC, stripped), case-folded.
AXES_USERNAME_CALLABLE = "concord.security.login_name"
AXES_CLIENT_IP_CALLABLE = "concord.security.client_address"
AXES_LOCKOUT_CALLABLE = "concord.security.lockout_response"
# Attempts refused during the lockout do not extend it: it ends when the window does.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
# No table of every successful login (and no session created for API logins).
AXES_DISABLE_ACCESS_LOG = True

# Content-Security-Policy of every response (concord.security): no inline
# script or style (htmx is told not to inject its indicator styles, see
# templates/base.html). Same name and shape as Django 6's setting, so moving
# up means switching to django.middleware.csp.ContentSecurityPolicyMiddleware.
SECURE_CSP = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
CONCORD_PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"

# Background work: Django's tasks API. The database backend needs only the
# worker that the run command starts; RQ + Redis when scaled out.
# Scale-out: CONCORD_TASKS_BACKEND=rq with REDIS_URL, and any number of
# `manage.py rqworker default --job-class django_tasks_rq.Job` processes.
_TASK_BACKENDS = {"db": "django_tasks_db.DatabaseBackend", "rq": "django_tasks_rq.RQBackend"}
# Two queues: "default" for the live report rebuilds, "analyses" for the
# analyses organisers run (and their chunks), each with its own worker, so a
# long analysis never holds up a report (./run starts both).
_tasks_backend = env_str("CONCORD_TASKS_BACKEND", "db")
TASK_QUEUES = ["default", "analyses"]
TASKS = {"default": {"BACKEND": _TASK_BACKENDS.get(_tasks_backend, _tasks_backend), "QUEUES": TASK_QUEUES}}
if TASKS["default"]["BACKEND"] == _TASK_BACKENDS["rq"]:
    INSTALLED_APPS.append("django_rq")
    RQ_QUEUES = {
        queue: {
            "URL": env_str("REDIS_URL", "redis://127.0.0.1:6379/0"),
            "DEFAULT_TIMEOUT": env_int("CONCORD_RQ_TIMEOUT", 3600, minimum=1),
        }
        for queue in TASK_QUEUES
    }
# The least time between the end of one rebuild of a campaign's reports and the
# start of the next (seconds): under steady submissions the worker rebuilds a
# campaign at most about once per interval, leaving time for the others.
CONCORD_REBUILD_INTERVAL = env_seconds("CONCORD_REBUILD_INTERVAL", 1.0)
#: Seconds from the first change the costly figures of a campaign report kept by running sums
#: (bootstrap intervals, Dawid-Skene and MACE fits, ranking stability: scoring/sums.py) do not
#: hold to their refresh on the analyses queue, and the least time between two refreshes; the
#: report page says how current they are.
CONCORD_FITS_INTERVAL = env_seconds("CONCORD_FITS_INTERVAL", 30.0)
#: Seconds after which the costly figures are refreshed even when the changes they do not hold
#: are fewer than scoring.jobs.FITS_SHARE of the judgments they hold.
CONCORD_FITS_MAX_AGE = env_seconds("CONCORD_FITS_MAX_AGE", 600.0)
# A rebuild with more stale topics than this (a first build) splits them into
# chunks of this many, which every worker on the default queue shares
# (scoring/schedule.py, "Chunked builds"; docs/operations.md, "First builds").
CONCORD_BUILD_CHUNK = env_int("CONCORD_BUILD_CHUNK", 250, minimum=1)
# A campaign with at least this many assignments (assessor-topic pairs) shows the
# progress counts its last rebuild stored; a smaller one counts them on every view
# (scoring/progress.py: about 0.1 s of queries at 20,000 on SQLite).
CONCORD_LIVE_PROGRESS_LIMIT = env_int("CONCORD_LIVE_PROGRESS_LIMIT", 20000, minimum=0)

REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate header makes anonymous requests 401.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "concord.tokens.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # One strict JSON parser (concord/jsonsafe.py: UTF-8 only, no NUL, finite
    # numbers, depth 64), and a renderer that cannot fail on stored data.
    "DEFAULT_PARSER_CLASSES": [
        "annotate.api.bodies.StrictJSONParser",
        "annotate.api.bodies.StrictMultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": [
        "annotate.api.bodies.SafeJSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "EXCEPTION_HANDLER": "annotate.api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # ?format= names an export's file format, not a DRF renderer.
    "URL_FORMAT_OVERRIDE": None,
}
# API tokens (django-rest-knox, concord/tokens.py): one per login, stored as a
# SHA-512 digest, sent as `Authorization: Token <token>`, valid for
# CONCORD_TOKEN_TTL_HOURS (default 10: a working day; a script logs in again).
CONCORD_TOKEN_TTL_HOURS = env_int("CONCORD_TOKEN_TTL_HOURS", 10, minimum=1)
REST_KNOX = {
    "TOKEN_TTL": timedelta(hours=CONCORD_TOKEN_TTL_HOURS),
    "AUTH_HEADER_PREFIX": "Token",
    "AUTO_REFRESH": False,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Concord API",
    "DESCRIPTION": "Campaigns, topics, judgments, agreement reports and gold-standard exports.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the installed drf-spectacular-sidecar (our static files),
    # not a CDN: /api/docs/ keeps the strict CSP of every page.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Keeps the default enum hook; documents 413/415 wherever a body is taken.
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "concord.security.document_refusals",
        "scoring.api.add_report_components",
    ],
    "ENUM_NAME_OVERRIDES": {
        "JudgmentStatusEnum": "annotate.models.Judgment.Status",
        "JobStatusEnum": "scoring.models.Job.Status",
    },
}

# What one user may take of what everyone shares (docs/security.md, "Security"):
# - set-password links (annotate/services/accounts.py) expire after this many days;
CONCORD_SET_PASSWORD_LINK_DAYS = env_int("CONCORD_SET_PASSWORD_LINK_DAYS", 3, minimum=1)
PASSWORD_RESET_TIMEOUT = CONCORD_SET_PASSWORD_LINK_DAYS * 86400
# - flags (annotate/flags.py): open ones per assessor and topic, new ones per
#   assessor and campaign in any hour;
CONCORD_FLAGS_OPEN_PER_TOPIC = env_int("CONCORD_FLAGS_OPEN_PER_TOPIC", 5, minimum=1)
CONCORD_FLAGS_PER_HOUR = env_int("CONCORD_FLAGS_PER_HOUR", 30, minimum=1)
# - study links (annotate/services/study.py): new worker accounts one link makes in any minute;
CONCORD_STUDY_ACCOUNTS_PER_MINUTE = env_int("CONCORD_STUDY_ACCOUNTS_PER_MINUTE", 30, minimum=1)
# - analyses (scoring/dispatch.py): unfinished jobs per campaign and per user,
#   and how many of a campaign's tasks are queued or running at once (./run has one
#   analyses worker: 1; with N workers, N lets a campaign that is alone use them all).
CONCORD_JOBS_PER_CAMPAIGN = env_int("CONCORD_JOBS_PER_CAMPAIGN", 3, minimum=1)
CONCORD_JOBS_PER_USER = env_int("CONCORD_JOBS_PER_USER", 5, minimum=1)
CONCORD_ANALYSIS_SLOTS = env_int("CONCORD_ANALYSIS_SLOTS", 1, minimum=1)

# How often pages showing a live report poll for a fresh one (milliseconds).
CONCORD_REFRESH_MS = env_int("CONCORD_REFRESH_MS", 3000, minimum=200)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("CONCORD_LOG_LEVEL", "INFO")},
    # axes: failed logins and lockouts (WARNING), not every successful login.
    "loggers": {"django.db.backends": {"level": "INFO"}, "axes": {"level": "WARNING"}},
}

if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("CONCORD_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("CONCORD_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    SESSION_COOKIE_HTTPONLY = True
    X_FRAME_OPTIONS = "DENY"


# Shared cache (nothing needs one today: login throttling counts in the
# database). Per process by default; point it at Redis to share it, e.g.
# redis://redis-host:6379/1.
_cache_url = env_str("CONCORD_CACHE_URL")
if _cache_url:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _cache_url}}
# A "?" link ({% help_link %}) to a help page or heading that does not exist
# fails the template's compilation (tests, DEBUG) instead of being logged.
CONCORD_HELP_STRICT = DEBUG
