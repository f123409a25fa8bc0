"""Settings shared by every environment; values come from environment variables.

The embedded defaults (SQLite under var/, local-memory cache, media on the local
filesystem) let a fresh machine run the platform with no configuration at all.
"""

import copy
import importlib.util
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from config.mail import smtp_mailers

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

SECRET_KEY = env("SECRET_KEY", default="dev-only-insecure-key-change-me")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "config.apps.PlatformAdminConfig",
    # Before django.contrib.auth: its changepassword command saves through the accounts
    # service (the user's API tokens revoked), in place of Django's.
    "accounts",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "storages",
    # The database backend of Django's tasks framework (the background worker, db_worker).
    "django_tasks_db",
    "listings",
    "media_app",
    "appointments",
    "favorites",
    "notifications",
    "demo",
]

MIDDLEWARE = [
    # Outermost: every error under /api/ leaves as a problem document, whoever made it.
    "config.api.middleware.ProblemDocumentsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The website's language: from the URL's /en/ or /es/ prefix, else (the API, the admin, a
    # first visit to /) from Accept-Language. After sessions, before CommonMiddleware, as
    # Django's translation docs place it.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Once the user is known: who has just written reads from the primary (config.routers).
    "config.routers.ReadYourWritesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.website.site_settings",
                "config.seo.page_meta",
                "notifications.context_processors.unread_notifications",
            ],
            # The project's own tag libraries that belong to no app.
            "libraries": {"languages": "config.templatetags.languages"},
        },
    },
]

# Database: a SQLite file under var/ unless DATABASE_URL says otherwise.
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's native psycopg 3 pool; persistent connections must stay off with it.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": env.int("DATABASE_POOL_MIN_SIZE", default=1),
        "max_size": env.int("DATABASE_POOL_MAX_SIZE", default=10),
        "timeout": env.int("DATABASE_POOL_TIMEOUT", default=10),
    }
    # Parameters bound on the server, so that psycopg prepares a statement a connection runs
    # five times and PostgreSQL plans it once, or per value where that plans better (its
    # plan_cache_mode "auto"): a listing's detail planned 1.6 ms for 0.2 ms of work. Off
    # behind a pooler that cannot keep prepared statements (PgBouncer before 1.21 in
    # transaction mode; docs/deployment.md).
    if env.bool("DATABASE_PREPARED_STATEMENTS", default=True):
        DATABASES["default"]["OPTIONS"]["server_side_binding"] = True
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5
    # No parallel workers for the application's statements (a server parameter each
    # connection sets when it opens, so the replicas' connections too). The site's many
    # short statements share the cores already; allowed them, PostgreSQL plans each index
    # path twice, for one process and for workers: box searches served 1.09x to 1.60x the
    # requests a second (docs/performance.md, "Plans for one process"). Plans only change
    # how a statement runs, never what it returns. Off behind a pooler that refuses
    # startup options (DATABASE_PARALLEL_WORKERS: docs/deployment.md).
    if not env.bool("DATABASE_PARALLEL_WORKERS", default=False):
        options = DATABASES["default"]["OPTIONS"].get("options", "")
        DATABASES["default"]["OPTIONS"]["options"] = (
            f"{options} -c max_parallel_workers_per_gather=0".strip()
        )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and IMMEDIATE transactions let the web server and the worker share the file.
    DATABASES["default"].setdefault("OPTIONS", {})
    DATABASES["default"]["OPTIONS"].update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Read replicas (docs/deployment.md): streaming standbys of the primary, as a comma-separated
# list of URLs, aliased replica_1, replica_2, ... in that order. config.routers sends the
# public reads views declare to a healthy one, and every other query to the primary.
DATABASE_REPLICA_URLS = env.list("DATABASE_REPLICA_URLS", default=[])
# A user whose write was answered (any method but GET, HEAD, OPTIONS, below 400) reads from
# the primary for this many seconds, on every web node (the mark is in the shared cache).
# At least the lag bound plus the check interval, so that the replica has its write after.
DATABASE_REPLICA_STICKY_SECONDS = env.int("DATABASE_REPLICA_STICKY_SECONDS", default=10)
# A replica further behind the primary than this is left out until it catches up ...
DATABASE_REPLICA_MAX_LAG_SECONDS = env.float("DATABASE_REPLICA_MAX_LAG_SECONDS", default=5.0)
# ... as measured by each process at most once per this many seconds.
DATABASE_REPLICA_CHECK_SECONDS = env.float("DATABASE_REPLICA_CHECK_SECONDS", default=2.0)
# How long a request tries to connect to a replica (libpq's connect_timeout; 2 at least)
# before the replica counts as down: the primary can answer instead.
DATABASE_REPLICA_CONNECT_TIMEOUT = env.int("DATABASE_REPLICA_CONNECT_TIMEOUT", default=2)


def replica_database(url: str) -> dict:
    """The DATABASES entry of the replica at `url`, and in tests a reader of the primary's
    test database (which it receives by replication).

    It binds parameters on the server as the primary does, but keeps a persistent connection
    per thread, checked before each request uses it, rather than a pool: a pool that lost
    its server reconnects with a growing back-off (psycopg_pool, up to minutes), which would
    keep a replica out long after it is back; a connection is tried again at each check.
    """
    replica = environ.Env.db_url_config(url)
    if replica["ENGINE"] != "django.db.backends.postgresql":
        raise ImproperlyConfigured("DATABASE_REPLICA_URLS are PostgreSQL standbys")
    options = copy.deepcopy(DATABASES["default"].get("OPTIONS", {}))
    options.pop("pool", None)
    options.update(replica.get("OPTIONS", {}), connect_timeout=DATABASE_REPLICA_CONNECT_TIMEOUT)
    replica.update(
        OPTIONS=options,
        CONN_MAX_AGE=300,
        CONN_HEALTH_CHECKS=True,
        TEST={"MIRROR": "default"},
    )
    return replica


if DATABASE_REPLICA_URLS and DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("DATABASE_REPLICA_URLS need a PostgreSQL primary")
for number, url in enumerate(DATABASE_REPLICA_URLS, start=1):
    DATABASES[f"replica_{number}"] = replica_database(url)
# The aliases config.routers may send reads to.
DATABASE_REPLICAS = [f"replica_{number}" for number in range(1, len(DATABASE_REPLICA_URLS) + 1)]
DATABASE_ROUTERS = ["config.routers.ReplicaRouter"]

# Cache: local memory by default, Redis (shared between processes) when REDIS_URL is set.
REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# How a relevance search finds its window, chosen from the planner's statistics: kept a
# minute in each process's memory (listings.search.windows).
CACHES["search_paths"] = {
    "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
    "LOCATION": "search-paths",
    "TIMEOUT": 60,
    "OPTIONS": {"MAX_ENTRIES": 10_000},
}

# Where the rate limits count (config.api.throttling, the `limits` package's storage URL):
# Redis when REDIS_URL is set, shared between processes; else this process's memory.
RATE_LIMIT_STORAGE_URL = env("RATE_LIMIT_STORAGE_URL", default=REDIS_URL or "memory://")

# GET /properties counts exactly up to this many matches; past it totalItems is an estimate
# (listings.search.counting, docs/performance.md).
PROPERTY_LIST_EXACT_COUNT_LIMIT = env.int("PROPERTY_LIST_EXACT_COUNT_LIMIT", default=10_000)
# ... and gives an exact count up after this many milliseconds on PostgreSQL (0: never).
PROPERTY_LIST_COUNT_TIMEOUT_MS = env.int("PROPERTY_LIST_COUNT_TIMEOUT_MS", default=25)
# GET /properties is paged no deeper than this many results: page * limit at most this.
PROPERTY_LIST_RESULT_WINDOW = env.int("PROPERTY_LIST_RESULT_WINDOW", default=10_000)

# Seconds a public read of listings (a search's result, a listing's detail, for anonymous
# visitors and customers) is kept in the cache; writes make it stale at once
# (listings.cache). On only with a cache shared by every process (Redis): 0, off, without
# REDIS_URL.
PUBLIC_READ_CACHE_SECONDS = env.int("PUBLIC_READ_CACHE_SECONDS", default=60 if REDIS_URL else 0)

# A text search without `sort` ranks its newest this many matches (listings.search.query).
SEARCH_RANK_WINDOW = env.int("SEARCH_RANK_WINDOW", default=1_000)

AUTH_USER_MODEL = "accounts.User"
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The website speaks English and Spanish (docs/website.md); English when nothing else is asked.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The currency of every price on the platform (ISO 4217), shown with prices and given to
# search engines with each offer.
CURRENCY = env("CURRENCY", default="EUR")
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# The website's own CSS and JavaScript, and Leaflet's files as the django-leaflet package ships
# them (static/leaflet/). The package is not an installed app: its admin widgets import
# GeoDjango, which needs GDAL; the website only uses the JavaScript and CSS.
_LEAFLET_PACKAGE = importlib.util.find_spec("leaflet")
STATICFILES_DIRS = [
    BASE_DIR / "static",
    Path(_LEAFLET_PACKAGE.submodule_search_locations[0]) / "static",
]
STATIC_ROOT = Path(env("STATIC_ROOT", default=str(VAR_DIR / "static")))
MEDIA_URL = env("MEDIA_URL", default="/media/")
MEDIA_ROOT = Path(env("MEDIA_ROOT", default=str(VAR_DIR / "media")))

# Media storage: the local filesystem by default, S3 (or any S3-compatible server)
# when AWS_STORAGE_BUCKET_NAME is set.
AWS_STORAGE_BUCKET_NAME = env("AWS_STORAGE_BUCKET_NAME", default="")
if AWS_STORAGE_BUCKET_NAME:
    _media_storage = {
        # django-storages' S3Storage that writes each object's type and disposition (D11).
        "BACKEND": "media_app.storage.MediaS3Storage",
        "OPTIONS": {
            "bucket_name": AWS_STORAGE_BUCKET_NAME,
            "endpoint_url": env("AWS_S3_ENDPOINT_URL", default=None),
            "region_name": env("AWS_S3_REGION_NAME", default=None),
            "access_key": env("AWS_ACCESS_KEY_ID", default=None),
            "secret_key": env("AWS_SECRET_ACCESS_KEY", default=None),
            "custom_domain": env("AWS_S3_CUSTOM_DOMAIN", default=None),
            "querystring_auth": env.bool("AWS_QUERYSTRING_AUTH", default=True),
            "default_acl": env("AWS_DEFAULT_ACL", default=None),
            "querystring_expire": env.int("AWS_QUERYSTRING_EXPIRE", default=3600),
            # "path" for S3-compatible servers without virtual-host buckets (MinIO, SeaweedFS).
            "addressing_style": env("AWS_S3_ADDRESSING_STYLE", default=None),
            "file_overwrite": False,
        },
    }
else:
    _media_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _media_storage,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Media uploads (D11, D13; docs/media.md). Files in a multipart body are not counted by
# DATA_UPLOAD_MAX_MEMORY_SIZE; each upload kind has its own limit instead. Uploads larger
# than FILE_UPLOAD_MAX_MEMORY_SIZE are spooled to a temporary file, never held in memory.
FILE_UPLOAD_MAX_MEMORY_SIZE = env.int("FILE_UPLOAD_MAX_MEMORY_SIZE", default=2_621_440)
MEDIA_IMAGE_MAX_BYTES = env.int("MEDIA_IMAGE_MAX_BYTES", default=10 * 1024 * 1024)
MEDIA_IMAGE_MAX_PIXELS = env.int("MEDIA_IMAGE_MAX_PIXELS", default=40_000_000)
MEDIA_VIDEO_MAX_BYTES = env.int("MEDIA_VIDEO_MAX_BYTES", default=100 * 1024 * 1024)
MEDIA_MAX_IMAGES_PER_PROPERTY = env.int("MEDIA_MAX_IMAGES_PER_PROPERTY", default=50)
MEDIA_MAX_VIDEOS_PER_PROPERTY = env.int("MEDIA_MAX_VIDEOS_PER_PROPERTY", default=5)
# Any file part of any multipart body, on every endpoint, is refused (413) as soon as it passes
# this many bytes while the body is read (config.uploads): the largest upload the platform
# takes. The media uploads hold their files to their own, smaller or equal, limit the same way.
UPLOAD_FILE_MAX_BYTES = max(MEDIA_IMAGE_MAX_BYTES, MEDIA_VIDEO_MAX_BYTES)
FILE_UPLOAD_HANDLERS = [
    "config.uploads.FileSizeLimitHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# Background tasks (Django's tasks framework). The database backend keeps every task in a
# table of the default database, so a task enqueued inside a transaction commits or rolls
# back with it; `manage.py db_worker` runs them (one worker on SQLite, any number on
# PostgreSQL). docs/deployment.md shows the Redis backend (django-tasks-rq), a settings change.
TASKS = {
    "default": {
        "BACKEND": env("TASKS_BACKEND", default="django_tasks_db.DatabaseBackend"),
        "QUEUES": ["default"],
    }
}
# A task running this long has lost its worker (killed, or its machine gone): it is given
# back to the queue (notifications.tasks.tasks_recover). Far longer than any task takes.
TASKS_RUNNING_TIMEOUT_SECONDS = env.float("TASKS_RUNNING_TIMEOUT_SECONDS", default=600.0)

# Email (docs/email.md), sent by the worker only. EMAIL_URL names the mail server:
# smtp://user:password@host:25, smtp+tls://... (STARTTLS, port 587), smtp+ssl://... (TLS,
# port 465). Without it (development) each message is written as a file under
# EMAIL_FILE_PATH, which `manage.py check --deploy` refuses (mail.E001).
EMAIL_URL = env("EMAIL_URL", default="")
if EMAIL_URL:
    MAILERS = smtp_mailers(EMAIL_URL, timeout=env.int("EMAIL_TIMEOUT", default=15))
else:
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "OPTIONS": {"file_path": env("EMAIL_FILE_PATH", default=str(VAR_DIR / "mail"))},
        }
    }
PLATFORM_NAME = env("PLATFORM_NAME", default="Estate")
# How long an email address confirmation link works, in seconds (7 days).
EMAIL_CONFIRMATION_MAX_AGE = env.int("EMAIL_CONFIRMATION_MAX_AGE", default=7 * 24 * 3600)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default=f"{PLATFORM_NAME} <no-reply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
# Seconds before each retry of an email whose sending failed: 1 min, 5 min, 30 min, 2 h,
# 6 h; after the last one it is given up (and logged).
EMAIL_RETRY_SCHEDULE = [60, 300, 1800, 7200, 21600]

# The platform's public address. Absolute URLs made outside a request (photo URLs in
# webhook payloads) start with it.
SITE_URL = env("SITE_URL", default="http://127.0.0.1:8000")

# Webhooks (decisions D12; docs/webhooks.md). http:// and private, loopback or link-local
# targets are refused unless this is on: on in dev and test settings only.
WEBHOOKS_ALLOW_PRIVATE_TARGETS = env.bool("WEBHOOKS_ALLOW_PRIVATE_TARGETS", default=False)
# One attempt's deadline: connecting, TLS, sending, and reading the status line and headers
# all end within this many seconds in total, however slowly the receiver answers.
WEBHOOKS_TIMEOUT_SECONDS = env.float("WEBHOOKS_TIMEOUT_SECONDS", default=15.0)
# Receivers' certificates must chain to the system's CAs, or to those of this file if set.
WEBHOOKS_CA_BUNDLE = env("WEBHOOKS_CA_BUNDLE", default="")
# How many webhooks one user may have registered (active or not); one more is 409.
WEBHOOKS_MAX_PER_USER = env.int("WEBHOOKS_MAX_PER_USER", default=10)
# How many searches one user may save (alerts); one more is 409.
SAVED_SEARCHES_MAX_PER_USER = env.int("SAVED_SEARCHES_MAX_PER_USER", default=50)
# Owner statistics (listings.statistics): views of listing pages are counted in Redis
# (REDIS_URL) under this key prefix, and added to the database by a task queued this many
# seconds after the first view since the last flush. Without Redis each web process keeps
# them in memory and writes them every STATISTICS_FLUSH_VIEWS views or this many seconds.
STATISTICS_KEY_PREFIX = env("STATISTICS_KEY_PREFIX", default="estate:statistics:")
STATISTICS_FLUSH_SECONDS = env.int("STATISTICS_FLUSH_SECONDS", default=60)
STATISTICS_FLUSH_VIEWS = env.int("STATISTICS_FLUSH_VIEWS", default=100)
# When alert digests are sent (notifications.alerts): this hour in TIME_ZONE, every day,
# and weekly ones on this weekday (0 is Monday).
ALERT_DIGEST_HOUR = env.int("ALERT_DIGEST_HOUR", default=8)
ALERT_DIGEST_WEEKDAY = env.int("ALERT_DIGEST_WEEKDAY", default=0)
# Seconds to wait before each retry after a failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h,
# 10 h, 14 h, 20 h, 24 h (D12); after the last one the delivery is failed.
WEBHOOKS_RETRY_SCHEDULE = [
    float(seconds)
    for seconds in env.list(
        "WEBHOOKS_RETRY_SCHEDULE",
        default=["5", "300", "1800", "7200", "18000", "36000", "50400", "72000", "86400"],
    )
]
# Each retry waits its scheduled time give or take this fraction, so that deliveries that
# failed together do not all come back at the same second.
WEBHOOKS_RETRY_JITTER = env.float("WEBHOOKS_RETRY_JITTER", default=0.1)
# A receiver's Retry-After (on 429 and 503) is honoured up to this many seconds.
WEBHOOKS_RETRY_AFTER_MAX_SECONDS = env.float("WEBHOOKS_RETRY_AFTER_MAX_SECONDS", default=86400.0)
# A worker that takes a delivery holds it this long; if the worker dies mid-attempt, the
# delivery is attempted again once it has passed. Longer than the timeout, on purpose.
WEBHOOKS_ATTEMPT_LEASE_SECONDS = env.float("WEBHOOKS_ATTEMPT_LEASE_SECONDS", default=60.0)
# The safety net: due deliveries left this long without an attempt are enqueued again.
WEBHOOKS_SWEEP_INTERVAL_SECONDS = env.float("WEBHOOKS_SWEEP_INTERVAL_SECONDS", default=60.0)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {
            "()": "config.logging.NoTracebackFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s %(message)s",
        }
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
}

# The website's sign-in page; the admin back office keeps its own (/admin/login/).
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"

# Website maps (docs/website.md). A tile URL template such as
# "https://tile.example.com/{z}/{x}/{y}.png"; empty (the default) draws the markers on a
# blank background, so nothing is fetched from a third party unless it is configured.
MAP_TILE_URL = env("MAP_TILE_URL", default="")
MAP_TILE_ATTRIBUTION = env("MAP_TILE_ATTRIBUTION", default="")

# Security headers on every response (docs/reliability.md). SecurityMiddleware sends
# X-Content-Type-Options: nosniff and the Referrer-Policy; XFrameOptionsMiddleware sends
# X-Frame-Options; HSTS is production's (production.py). The Content-Security-Policy allows
# only the site's own scripts and styles (the website has no inline ones), and images and
# videos from the site, the media storage and the map tiles.
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"


def _origin(url: str | None) -> list[str]:
    """`scheme://host[:port]` of a URL, as a CSP source; nothing for an empty or relative one."""
    parts = urlsplit(url or "")
    return [f"{parts.scheme}://{parts.netloc}"] if parts.scheme and parts.netloc else []


_MEDIA_ENDPOINT = env("AWS_S3_ENDPOINT_URL", default="")
_MEDIA_DOMAIN = env("AWS_S3_CUSTOM_DOMAIN", default="")
CSP_MEDIA_SOURCES = [
    *_origin(MEDIA_URL),
    *_origin(_MEDIA_ENDPOINT),
    *([f"https://{_MEDIA_DOMAIN}"] if _MEDIA_DOMAIN else []),
    # S3 itself: the bucket's host under amazonaws.com.
    *(
        ["https://*.amazonaws.com"]
        if AWS_STORAGE_BUCKET_NAME and not (_MEDIA_ENDPOINT or _MEDIA_DOMAIN)
        else []
    ),
    # Anything else that serves the media (a CDN): CSP_MEDIA_SOURCES=https://cdn.example.com
    *env.list("CSP_MEDIA_SOURCES", default=[]),
]
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:", *CSP_MEDIA_SOURCES, *_origin(MAP_TILE_URL.split("{")[0])],
    "media-src": [CSP.SELF, *CSP_MEDIA_SOURCES],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# REST API (decisions D1 to D6, D13).
API_TOKEN_LIFETIME_SECONDS = env.int("API_TOKEN_LIFETIME_SECONDS", default=14 * 24 * 3600)
# JSON bodies over 1 MB are refused with 413 (D13); files in multipart bodies are not counted.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=1024 * 1024)
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "config.api.schema.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": [
        "djangorestframework_camel_case.render.CamelCaseJSONRenderer",
        "djangorestframework_camel_case.render.CamelCaseBrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "config.api.parsers.LimitedCamelCaseJSONParser",
        "djangorestframework_camel_case.parser.CamelCaseMultiPartParser",
        "djangorestframework_camel_case.parser.CamelCaseFormParser",
    ],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "EXCEPTION_HANDLER": "config.api.exceptions.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "config.api.throttling.AnonymousThrottle",
        "config.api.throttling.SignedInThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anonymous": env("THROTTLE_ANONYMOUS", default="120/min"),
        "signed_in": env("THROTTLE_SIGNED_IN", default="600/min"),
        "login": env("THROTTLE_LOGIN", default="10/min"),
        "login_email": env("THROTTLE_LOGIN_EMAIL", default="10/min"),
        "register": env("THROTTLE_REGISTER", default="10/min"),
        "upload": env("THROTTLE_UPLOAD", default="60/hour"),
        "webhook_register": env("THROTTLE_WEBHOOK_REGISTER", default="20/hour"),
    },
    # Client addresses come from REMOTE_ADDR unless this many proxies are declared in front.
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # A saved search's criteria are GET /properties' parameter names as they are (camelCase
    # in and out), not fields of ours.
    "JSON_UNDERSCOREIZE": {"no_underscore_before_number": True, "ignore_fields": ("criteria",)},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Property Listing Platform API",
    "DESCRIPTION": "REST API of the listing platform. Errors are RFC 9457 problem documents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "CAMELIZE_NAMES": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.contrib.djangorestframework_camel_case.camelize_serializer_fields",
        "drf_spectacular.hooks.postprocess_schema_enums",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    # Request bodies are documented as JSON (uploads say multipart/form-data themselves). The
    # form parsers stay installed for the browsable API, but a form body cannot carry null,
    # nested objects or typed values, so documenting it would promise what JSON does better.
    "PARSER_WHITELIST": ["config.api.parsers.LimitedCamelCaseJSONParser"],
    "ENUM_NAME_OVERRIDES": {
        "PropertyStatusEnum": "listings.models.PropertyStatus",
        "AppointmentStatusEnum": "appointments.models.AppointmentStatus",
        "NotificationStatusEnum": "notifications.models.NotificationStatus",
        "EventTypeEnum": "notifications.models.EventType",
        "DeliveryStatusEnum": "notifications.models.DeliveryStatus",
        "DeliveryErrorKindEnum": "notifications.models.DeliveryErrorKind",
    },
}
