"""Dicehall settings, read from the environment with safe development defaults.

``DJANGO_ENV=production`` demands a real ``SECRET_KEY``, named ``ALLOWED_HOSTS``, an HTTPS
``SITE_URL`` and ``ROLL_CHAIN_KEYS``, and turns on secure cookies, HSTS and HTTPS redirects; see ``.env.example``.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("DICEHALL_VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    if value.lower() in ("1", "true", "yes", "on"):
        return True
    if value.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


def env_networks(name: str) -> list[str]:
    """A comma-separated list of addresses or networks (``10.0.0.0/8``), each checked at start-up."""
    listed = env_list(name, [])
    for entry in listed:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ImproperlyConfigured(f"{name}: {entry!r} is not an address or a network") from None
    return listed


DJANGO_ENV = os.environ.get("DJANGO_ENV", "development")
if DJANGO_ENV not in ("development", "production"):
    raise ImproperlyConfigured(f"DJANGO_ENV must be 'development' or 'production', not {DJANGO_ENV!r}")
PRODUCTION = DJANGO_ENV == "production"

#: Django's own measure of a key too weak to sign sessions and reset links (its check security.W009).
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_UNIQUE_CHARACTERS = 5


def production_secret_key(value: str) -> str:
    """The production ``SECRET_KEY``, refused when missing, short, repetitive or Django's placeholder."""
    if not value:
        raise ImproperlyConfigured("SECRET_KEY must be set when DJANGO_ENV=production")
    if (
        len(value) < SECRET_KEY_MIN_LENGTH
        or len(set(value)) < SECRET_KEY_MIN_UNIQUE_CHARACTERS
        or value.startswith("django-insecure-")
    ):
        raise ImproperlyConfigured(
            f"SECRET_KEY must be at least {SECRET_KEY_MIN_LENGTH} random characters when DJANGO_ENV=production "
            "(for example: python -c 'import secrets; print(secrets.token_urlsafe(64))')"
        )
    return value


def production_allowed_hosts(hosts: list[str]) -> list[str]:
    """The production ``ALLOWED_HOSTS``: named hosts, never a wildcard that lets any Host header in."""
    if not hosts:
        raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DJANGO_ENV=production (comma-separated)")
    if "*" in hosts:
        raise ImproperlyConfigured("ALLOWED_HOSTS must name the site's hosts when DJANGO_ENV=production, not '*'")
    return hosts


def site_url(value: str, *, production: bool) -> str:
    """``SITE_URL``, the address every link in a mail is built on (never the request's Host header):
    a scheme and a host, no path; HTTPS in production."""
    parsed = urlsplit(value)
    if not value or parsed.scheme not in ("http", "https") or not parsed.hostname or parsed.path not in ("", "/"):
        raise ImproperlyConfigured(
            f"SITE_URL must be a scheme and a host such as https://dicehall.example.com, not {value!r}"
        )
    if production and parsed.scheme != "https":
        raise ImproperlyConfigured("SITE_URL must start with https:// when DJANGO_ENV=production")
    return f"{parsed.scheme}://{parsed.netloc}"


if PRODUCTION:
    SECRET_KEY = production_secret_key(os.environ.get("SECRET_KEY", ""))
    ALLOWED_HOSTS = production_allowed_hosts(env_list("ALLOWED_HOSTS", []))
    DEBUG = env_bool("DEBUG", False)
    SITE_URL = site_url(os.environ.get("SITE_URL", ""), production=True)
else:
    SECRET_KEY = os.environ.get("SECRET_KEY", "django-insecure-development-only-never-use-this-key-in-production")
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
    DEBUG = env_bool("DEBUG", True)
    DEVELOPMENT_SITE_URL = f"http://127.0.0.1:{os.environ.get('PORT', '8000')}"  # where `make run` serves
    SITE_URL = site_url(os.environ.get("SITE_URL", DEVELOPMENT_SITE_URL), production=False)

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

#: The keys the roll log is signed with (HMAC-SHA256, :mod:`play.chain`): kept here, never in the
#: database, so that someone who can write the database still cannot forge a roll. ``id:secret``
#: pairs, comma-separated; the first signs new rolls, the others only verify the rolls and checkpoints
#: they signed (keep every key that ever signed, or those campaigns no longer verify).
ROLL_CHAIN_KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,16}")
#: A secret shorter than this is refused: HMAC-SHA256 wants at least 256 bits of it.
ROLL_CHAIN_SECRET_MIN = 32


def roll_chain_keys(value: str) -> list[tuple[str, str]]:
    """``ROLL_CHAIN_KEYS`` read: (id, secret) pairs in order, each id once and well formed, each secret long enough."""
    keys: list[tuple[str, str]] = []
    for pair in filter(None, (item.strip() for item in value.split(","))):
        key_id, _, secret = pair.partition(":")
        if not ROLL_CHAIN_KEY_ID.fullmatch(key_id):
            raise ImproperlyConfigured(f"ROLL_CHAIN_KEYS: a key id is 1 to 16 of A-Z a-z 0-9 _ . -, not {key_id!r}")
        if len(secret) < ROLL_CHAIN_SECRET_MIN:
            raise ImproperlyConfigured(
                f"ROLL_CHAIN_KEYS: the secret of key {key_id!r} is shorter than {ROLL_CHAIN_SECRET_MIN} characters"
            )
        if key_id in dict(keys):
            raise ImproperlyConfigured(f"ROLL_CHAIN_KEYS: key {key_id!r} is listed twice")
        keys.append((key_id, secret))
    return keys


ROLL_CHAIN_KEYS = roll_chain_keys(os.environ.get("ROLL_CHAIN_KEYS", ""))
if PRODUCTION and not ROLL_CHAIN_KEYS:
    raise ImproperlyConfigured("ROLL_CHAIN_KEYS must be set when DJANGO_ENV=production (id:secret, comma-separated)")
if not ROLL_CHAIN_KEYS:
    # Development and tests: one key derived from SECRET_KEY, so that nothing needs setting up.
    ROLL_CHAIN_KEYS = [("dev", hmac.new(SECRET_KEY.encode(), b"dicehall roll chain", hashlib.sha256).hexdigest())]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "csp",
    "axes",
    "pages",
    "campaigns",
    "characters",
    "play",
    "accounts",
    "api",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and JSON compressed on the way out, after every other middleware has written to them;
    # static files, answered above by WhiteNoise, were compressed when collected.
    "web.compression.CompressionMiddleware",
    # Before anything that reads the database (the session, the user): out of reach, it is a 503.
    "web.outage.DatabaseOutageMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's, taking the user the session engine read with the session (accounts/middleware.py).
    "accounts.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # django-csp's, with the header built once for the settings (web/middleware.py).
    "web.middleware.ContentSecurityPolicyMiddleware",
    # A page whose exact chance found every worker busy is a 503 with Retry-After (web/heavy.py).
    "web.middleware.BusyMiddleware",
    # Last, as axes asks: it turns a lockout into the 429 page on the way out.
    "axes.middleware.AxesMiddleware",
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
                # The CSRF token masked once a response, with one draw of random bytes, in place of the
                # token Django's own processor (run first, always) would mask anew for each context.
                "web.csrf.csrf",
            ],
            # How a chance and a moment are written on any app's page; web is a plain package, not an app.
            "libraries": {"dice": "web.templatetags.dice", "times": "web.templatetags.times"},
            # {% url %} in every template with the URLs it makes kept (web/templatetags/urls.py),
            # {% extends %} with the blocks of the root template found once (web/templatetags/extends.py),
            # {% kept "name" %} for the parts of a page drawn once for each key (web/templatetags/kept_blocks.py),
            # and {% static %} with each file's URL kept (web/templatetags/kept_static.py): our templates do not
            # {% load static %}, which would put Django's own tag in its place (tests/web/test_static_tag.py).
            "builtins": [
                "web.templatetags.urls",
                "web.templatetags.extends",
                "web.templatetags.kept_blocks",
                "web.templatetags.kept_static",
            ],
        },
    },
]
# Each kept part of a page ({% kept %}, {% kept_region %}) drawn again where it is shown and compared with
# what was kept: a check of their keys, on in the tests (tests/conftest.py), which doubles their cost.
KEPT_CHECKED = env_bool("KEPT_CHECKED", False)

# The embedded default is SQLite in var/; DATABASE_URL=postgres://… switches to PostgreSQL.
#
# Connections under ASGI: each request's sync code runs in a thread of its own (web/asgi.py: kept for later
# requests, never two at once), and Django's connections are per thread, so a persistent connection
# (CONN_MAX_AGE) would be tied to one thread, idle while others opened their own.
# PostgreSQL, whose connection costs a process fork and authentication on the server, keeps its
# connections in psycopg's pool instead, shared by the process's threads: a request takes one and
# gives it back when it ends (CONN_MAX_AGE stays 0, which is "give it back" under a pool). The pool
# checks a connection before handing it out (CONN_HEALTH_CHECKS), so one the server dropped is
# replaced, not failed on. SQLite has no server: its connection is a file opened in the request's
# thread, which costs little and is the only kind SQLite lets a thread use safely, so it opens one a request.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
#: Connections each server process keeps open (DB_POOL_MIN) and may open at most (DB_POOL_MAX), and
#: seconds a request waits for one before failing as the database out of reach (a 503, web/outage.py; once
#: the pool has failed to connect, a request waits 0.1 s until one is served again).
#: Every process has its own pool: processes × DB_POOL_MAX must stay under PostgreSQL's max_connections.
DB_POOL_MIN = int(os.environ.get("DB_POOL_MIN", "2"))
DB_POOL_MAX = int(os.environ.get("DB_POOL_MAX", "10"))
DB_POOL_TIMEOUT = float(os.environ.get("DB_POOL_TIMEOUT", "5"))
#: Runs of one statement on one connection before it is prepared there (psycopg's own default).
DB_PREPARE_THRESHOLD = 5
#: What PostgreSQL's planner takes a page read out of order to cost against one read in order (its default, 4,
#: is a spinning disk's).
DB_RANDOM_PAGE_COST = 1.1
if not 0 <= DB_POOL_MIN <= DB_POOL_MAX or DB_POOL_MAX < 1 or DB_POOL_TIMEOUT <= 0:
    raise ImproperlyConfigured("0 ≤ DB_POOL_MIN ≤ DB_POOL_MAX, DB_POOL_MAX ≥ 1 and DB_POOL_TIMEOUT > 0, please")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0, conn_health_checks=True)}
    POSTGRESQL = DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
    if POSTGRESQL:
        # Django's backend, with a pool that gets over a restart of the server at once (web/postgresql/base.py).
        DATABASES["default"]["ENGINE"] = "web.postgresql"
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": DB_POOL_MIN,
            "max_size": DB_POOL_MAX,
            "timeout": DB_POOL_TIMEOUT,
        }
    # Behind pgbouncer in transaction mode a server-side cursor (Django's .iterator() in a transaction)
    # would outlive the transaction pgbouncer hands back (docs/deploy.md).
    BEHIND_PGBOUNCER = env_bool("DB_BEHIND_PGBOUNCER", False)
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = BEHIND_PGBOUNCER
    if POSTGRESQL and not BEHIND_PGBOUNCER:
        # Parameters bound by PostgreSQL, not written into the SQL, so that a statement a pooled connection
        # has run DB_PREPARE_THRESHOLD times is prepared there: PostgreSQL parses it once, and once it has
        # settled on a plan for any values (tests/play/test_plans.py checks those plans too) no longer plans
        # it on every request either; for a page's few quick queries that work cost more than running them
        # (docs/bench.md). pgbouncer in transaction mode would hand the connection to another client.
        DATABASES["default"]["OPTIONS"]["server_side_binding"] = True
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = DB_PREPARE_THRESHOLD
        # The planner told that a page read from an index costs little more than one read in order, as it
        # does when the tables are cached or on SSD: PostgreSQL's default (4) made a party of eight join its
        # owners by reading every user (a hash join over the whole table, which grows with the site) rather
        # than looking each up by key. And a prepared statement run on its generic plan from the first
        # time: left to choose, PostgreSQL planned the dashboard's party afresh on every load (its generic
        # plan, by the campaign's index in name order, looked dearer than one for a small party), which cost
        # more than running it. Behind pgbouncer, which refuses startup options, nothing is prepared, and
        # random_page_cost is set on the role instead (docs/deploy.md).
        DATABASES["default"]["OPTIONS"]["options"] = (
            f"-c random_page_cost={DB_RANDOM_PAGE_COST} -c plan_cache_mode=force_generic_plan"
        )
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": VAR_DIR / "dicehall.sqlite3",
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 20},
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "static"))
STATICFILES_DIRS = [BASE_DIR / "static"]
#: Static files collected under hashed names, compressed ahead of time (Brotli and gzip) and cached by
#: browsers for good: always in production, and under `make run`, which collects them as it starts
#: (web/staticfiles.py). Otherwise (tests, a bare runserver) served straight from the apps, no collectstatic needed.
STATIC_HASHED = env_bool("STATIC_HASHED", PRODUCTION)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "web.staticfiles.HashedStaticFilesStorage"
            if PRODUCTION or STATIC_HASHED
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = not STATIC_HASHED
# Collected files are read once, at start-up; only files found in the apps are looked up on each request.
WHITENOISE_AUTOREFRESH = DEBUG and not STATIC_HASHED
if not PRODUCTION:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing one

EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if PRODUCTION else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
# Mail travels encrypted by default: STARTTLS on the submission port, or implicit TLS with
# EMAIL_USE_SSL=true (port 465). Django verifies the server's certificate either way. A relay that
# speaks neither must be turned off explicitly (EMAIL_USE_TLS=false).
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)
if EMAIL_USE_SSL and EMAIL_USE_TLS:
    raise ImproperlyConfigured("EMAIL_USE_TLS (STARTTLS) and EMAIL_USE_SSL (implicit TLS) exclude each other")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT") or ("465" if EMAIL_USE_SSL else "587" if EMAIL_USE_TLS else "25"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Dicehall <dicehall@localhost>")

# Only our own origin, everywhere; no inline scripts or styles (htmx's own indicator
# style is switched off in the base template's htmx-config).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "object-src": [NONE],
    }
}

SESSION_COOKIE_HTTPONLY = True
# Sessions live in the database, shared by every process, and a signed-in request reads its session and its
# user in one query (accounts/sessions.py), with Redis or without: Django's cached_db, with Redis, read the
# session there and then the user from the database, two trips where this is one (a sheet served a quarter
# fewer pages a second so, in docs/bench.md's fourteenth round).
SESSION_ENGINE = "accounts.sessions"
# Seconds a process takes a session's read from its own memory instead of the database (accounts/sessions.py:
# every change a request makes marks it there). Only where one process serves, without REDIS_URL: a change
# made through another process would go unseen here for that long. 0: every request reads the database.
SESSION_READ_FOR = float(os.environ.get("SESSION_READ_FOR", "0" if os.environ.get("REDIS_URL") else "10"))
if SESSION_READ_FOR < 0:
    raise ImproperlyConfigured("SESSION_READ_FOR is a number of seconds, 0 or more, please")
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the container's own health check speaks plain HTTP
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
    # Subdomains and preloading bind every other site under the domain, and browsers' preload lists
    # outlive any change of mind: the operator opts in to each, and Django's deploy check, which
    # recommends both, is told so.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
    SILENCED_SYSTEM_CHECKS = [
        *([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]),
        *([] if SECURE_HSTS_PRELOAD else ["security.W021"]),
    ]
    if env_bool("BEHIND_TLS_PROXY", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

#: The password `manage.py demo` gives the demo users.
DEMO_PASSWORD = os.environ.get("DEMO_PASSWORD", "dicehall-demo")

# --- Accounts
# People log in on our own page, not the admin's.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/campaigns/"
LOGOUT_REDIRECT_URL = "/"

# django-axes checks every log-in against the failures so far; ModelBackend does the rest, and a name
# typed in another form of the same name (case, look-alike letters) is tried by accounts.backends.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "accounts.backends.CanonicalNameBackend",
]
# accounts.lockout explains the three rules; these are axes' part of them.
AXES_FAILURE_LIMIT = 5  # accounts.lockout.FAILURE_LIMIT
AXES_COOLOFF_TIME = 0.25  # hours (axes reads a float as hours): 15 minutes
# The wait runs from the last counted failure: a try while locked is refused and not counted, so
# nobody can keep an account locked by trying on.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# Only one account from one address is locked: guesses from elsewhere slow an account's tries from
# unknown addresses, and guesses from an address slow its tries at accounts unknown there (accounts.lockout.pace).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "accounts.lockout.axes_username"
AXES_CLIENT_IP_CALLABLE = "accounts.lockout.client_address"
# axes' own reset on success would also wipe every failure from the same address, so anyone with an
# account could clear their guesses at someone else's; accounts.lockout resets just this account
# from this address instead.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "accounts.lockout.locked_out"
# No record of every successful log-in (who, from where, forever); failures expire with the cool-off.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False  # no start-up banner on every manage.py command

# --- The cache
# The cache holds short-lived counters (the rate limits, web/limits.py): shared by every process with
# Redis. A Redis that does not answer within a second is taken as down, and the limits are skipped
# (with a warning) rather than every request waiting on it or failing.
CACHE_TIMEOUT_SECONDS = 1
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "OPTIONS": {
                "socket_connect_timeout": CACHE_TIMEOUT_SECONDS,
                "socket_timeout": CACHE_TIMEOUT_SECONDS,
                # One pool per process, not one per request's thread (web/cache.py).
                "pool_class": "web.cache.SharedConnectionPool",
            },
        }
        if os.environ.get("REDIS_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
# --- Exact chances of what users send (web/heavy.py)
# Worked out in worker processes beside the server's, so a large one never slows anyone else's page:
# this many of them (0: in the request's own thread, as the tests do). At most CHANCE_SLOTS are under
# way or queued at once; a request waits up to CHANCE_WAIT seconds for a slot, then gets a 503.
CHANCE_WORKERS = int(os.environ.get("CHANCE_WORKERS", "1"))
CHANCE_SLOTS = int(os.environ.get("CHANCE_SLOTS", "2"))
CHANCE_WAIT = float(os.environ.get("CHANCE_WAIT", "2"))
if CHANCE_WORKERS < 0 or CHANCE_SLOTS < 1 or CHANCE_WAIT < 0:
    raise ImproperlyConfigured("CHANCE_WORKERS ≥ 0, CHANCE_SLOTS ≥ 1 and CHANCE_WAIT ≥ 0, please")

# --- Rate limits (web/limits.py)
#: Requests a minute each person may make to the API, with all their tokens together (429 with Retry-After past it).
API_RATE_LIMIT = int(os.environ.get("API_RATE_LIMIT", "600"))


def env_rate_limits(name: str) -> dict[str, tuple[int, int]]:
    """Limits of web/limits.py overridden by name, ``rolls=60/120,verify=6/12`` (per person / per address)."""
    limits: dict[str, tuple[int, int]] = {}
    for entry in env_list(name, []):
        limit, _, counts = entry.partition("=")
        per_user, _, per_address = counts.partition("/")
        if not re.fullmatch(r"[a-z0-9-]+", limit) or not per_user.isdigit() or not per_address.isdigit():
            raise ImproperlyConfigured(f"{name}: write each limit as name=per-person/per-address, not {entry!r}")
        limits[limit] = (int(per_user), int(per_address))
    return limits


#: The rate limits of web/limits.py by name, overridden: {"rolls": (per person, per address)}.
RATE_LIMITS: dict[str, tuple[int, int]] = env_rate_limits("RATE_LIMITS")
#: The reverse proxies whose X-Forwarded-For is believed (addresses or networks, comma-separated), so
#: that limits count the client's address, not the proxy's (web/client.py). Empty: REMOTE_ADDR only.
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")

# --- Live updates
# Campaign events (rolls, hit points, awards) reach open dashboards through a channel layer.
# One process needs nothing more than memory; with REDIS_URL every server process shares events.
# A socket waits for its next event in a blocking pop that Redis itself ends every 5 s: its
# connections need no read timeout (redis-py's default of 5 s cut every quiet wait short, and the
# socket with it; see play/layers.py). A socket_timeout in REDIS_URL would bring that back.
# Up to 50 commands at once per server process; more wait (up to 20 s) for a free connection.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "play.layers.RedisChannelLayer",
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": None, "max_connections": 50, "timeout": 20}],
                "prefix": os.environ.get("CHANNEL_PREFIX", "dicehall"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
