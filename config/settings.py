"""Dicehall settings, read from the environment with safe development defaults.

``DJANGO_ENV=production`` demands a real ``SECRET_KEY`` and ``ALLOWED_HOSTS``
and turns on secure cookies, HSTS and HTTPS redirects; see ``.env.example``.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

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

if PRODUCTION:
    SECRET_KEY = os.environ.get("SECRET_KEY", "")
    if not SECRET_KEY:
        raise ImproperlyConfigured("SECRET_KEY must be set when DJANGO_ENV=production")
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [])
    if not ALLOWED_HOSTS:
        raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DJANGO_ENV=production (comma-separated)")
    DEBUG = env_bool("DEBUG", False)
else:
    SECRET_KEY = os.environ.get("SECRET_KEY", "django-insecure-development-only-never-use-this-key-in-production")
    ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
    DEBUG = env_bool("DEBUG", True)

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

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
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
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
            ],
            # How a chance is written on any app's page; web is a plain package, not an app.
            "libraries": {"dice": "web.templatetags.dice"},
        },
    },
]

# The embedded default is SQLite in var/; DATABASE_URL=postgres://… switches to PostgreSQL.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    # No persistent connections: under ASGI each request may run on a new thread (Django's database docs).
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
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
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
# In development the ASGI server serves static files straight from the apps, no collectstatic needed.
WHITENOISE_USE_FINDERS = not PRODUCTION
if not PRODUCTION:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing one

EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if PRODUCTION else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
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
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the container's own health check speaks plain HTTP
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
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

# django-axes checks every log-in against the failures so far; ModelBackend does the rest.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = 0.25  # hours (axes reads a float as hours): 15 minutes
# A try while locked out starts the 15 minutes over, so the wait the lockout page names is never too short.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = True
# Five failures for one username (from anywhere) or from one address (for any username) lock that out.
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
# axes' own reset on success would also wipe every failure from the same address, so anyone with an
# account could clear their guesses at someone else's; accounts.lockout resets just this account
# from this address instead.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "accounts.lockout.locked_out"
# No record of every successful log-in (who, from where, forever); failures expire with the cool-off.
AXES_DISABLE_ACCESS_LOG = True
# The client address is REMOTE_ADDR (axes needs no django-ipware): behind a proxy, uvicorn's
# --proxy-headers sets it from X-Forwarded-For. --forwarded-allow-ips must name only the proxy itself,
# or a client could pick its own address, and so a fresh counter, with a forged header.
AXES_VERBOSE = False  # no start-up banner on every manage.py command

# --- Rate limits
# The cache holds short-lived counters (the rate limits, web/limits.py): shared by every process with
# Redis. A Redis that does not answer within a second is taken as down, and the limits are skipped
# (with a warning) rather than every request waiting on it or failing.
CACHE_TIMEOUT_SECONDS = 1
CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
            "OPTIONS": {"socket_connect_timeout": CACHE_TIMEOUT_SECONDS, "socket_timeout": CACHE_TIMEOUT_SECONDS},
        }
        if os.environ.get("REDIS_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
#: Requests a minute each person may make to the API, with all their tokens together (429 with Retry-After past it).
API_RATE_LIMIT = int(os.environ.get("API_RATE_LIMIT", "600"))
#: The rate limits of web/limits.py by name, overridden: {"rolls": (per person, per address)}.
RATE_LIMITS: dict[str, tuple[int, int]] = {}
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
