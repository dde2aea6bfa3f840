"""Production settings refuse to start half-configured and pass Django's deploy check."""

from __future__ import annotations

import ipaddress
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
KEY = secrets.token_urlsafe(64)


#: What production needs beside DJANGO_ENV, each test leaving out or spoiling one.
SITE = "https://dicehall.example.com"
CHAIN = f"2026:{secrets.token_urlsafe(48)}"
PRODUCTION = {
    "DJANGO_ENV": "production",
    "ALLOWED_HOSTS": "dicehall.example.com",
    "SITE_URL": SITE,
    "ROLL_CHAIN_KEYS": CHAIN,
}
OURS = {"SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ENV", "SITE_URL", "ROLL_CHAIN_KEYS"} | {
    k for k in os.environ if k.startswith(("EMAIL_", "SECURE_HSTS"))
}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in OURS}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=environment, capture_output=True, text=True, check=False
    )


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = manage("check", **PRODUCTION)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_refuses_to_start_without_allowed_hosts() -> None:
    result = manage("check", DJANGO_ENV="production", SECRET_KEY=secrets.token_urlsafe(64), SITE_URL=SITE)
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set" in result.stderr


def test_production_refuses_to_start_without_roll_chain_keys() -> None:
    without = {k: v for k, v in PRODUCTION.items() if k != "ROLL_CHAIN_KEYS"}
    result = manage("check", **without, SECRET_KEY=secrets.token_urlsafe(64))
    assert result.returncode != 0
    assert "ROLL_CHAIN_KEYS must be set when DJANGO_ENV=production" in result.stderr


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ("2026:short", "the secret of key '2026' is shorter than 32 characters"),
        (f"bad id:{'x' * 40}", "a key id is 1 to 16 of A-Z a-z 0-9 _ . -, not 'bad id'"),
        (f":{'x' * 40}", "a key id is 1 to 16 of A-Z a-z 0-9 _ . -, not ''"),
        (f"a:{'x' * 40},a:{'y' * 40}", "key 'a' is listed twice"),
    ],
)
def test_malformed_roll_chain_keys_are_refused(keys: str, message: str) -> None:
    result = manage("check", ROLL_CHAIN_KEYS=keys)
    assert result.returncode != 0
    assert f"ROLL_CHAIN_KEYS: {message}" in result.stderr


def test_roll_chain_keys_are_read_in_order_the_first_signing() -> None:
    result = manage(
        "shell", "-c", "from django.conf import settings; print([k for k, _ in settings.ROLL_CHAIN_KEYS])",
        ROLL_CHAIN_KEYS=f"2026b:{'x' * 40}, 2026a:{'y' * 40}",
    )  # fmt: skip
    assert result.stdout.strip().splitlines()[-1] == "['2026b', '2026a']", result.stderr


def test_an_unknown_environment_is_refused() -> None:
    result = manage("check", DJANGO_ENV="staging")
    assert result.returncode != 0
    assert "DJANGO_ENV must be" in result.stderr


def test_production_passes_the_deploy_check() -> None:
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        **PRODUCTION,
        SECRET_KEY=secrets.token_urlsafe(64),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.parametrize(
    "key",
    [
        "x",  # short
        "a" * 80,  # long, but one character over and over
        "django-insecure-" + secrets.token_urlsafe(64),  # Django's own placeholder, however long
    ],
)
def test_production_refuses_a_weak_secret_key(key: str) -> None:
    result = manage("check", **PRODUCTION, SECRET_KEY=key)
    assert result.returncode != 0
    assert "SECRET_KEY must be at least 50 random characters" in result.stderr


def test_production_refuses_a_wildcard_host() -> None:
    result = manage("check", **{**PRODUCTION, "ALLOWED_HOSTS": "dicehall.example.com,*"}, SECRET_KEY=KEY)
    assert result.returncode != 0
    assert "not '*'" in result.stderr


@pytest.mark.parametrize(
    ("site_url", "message"),
    [
        ("", "SITE_URL must be a scheme and a host"),
        ("dicehall.example.com", "SITE_URL must be a scheme and a host"),
        ("https://dicehall.example.com/app/", "SITE_URL must be a scheme and a host"),
        ("http://dicehall.example.com", "SITE_URL must start with https://"),
    ],
)
def test_production_needs_an_https_site_url_for_its_links(site_url: str, message: str) -> None:
    result = manage("check", **{**PRODUCTION, "SITE_URL": site_url}, SECRET_KEY=KEY)
    assert result.returncode != 0
    assert message in result.stderr


def production_setting(expression: str, **env: str) -> str:
    result = manage(
        "shell",
        "--no-imports",
        "-c",
        f"from django.conf import settings; print({expression})",
        **PRODUCTION,
        SECRET_KEY=KEY,
        **env,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_hsts_covers_subdomains_and_asks_for_preloading_only_when_the_operator_opts_in() -> None:
    assert production_setting("(settings.SECURE_HSTS_INCLUDE_SUBDOMAINS, settings.SECURE_HSTS_PRELOAD)") == (
        "(False, False)"
    )
    opted_in = production_setting(
        "(settings.SECURE_HSTS_INCLUDE_SUBDOMAINS, settings.SECURE_HSTS_PRELOAD, settings.SILENCED_SYSTEM_CHECKS)",
        SECURE_HSTS_INCLUDE_SUBDOMAINS="true",
        SECURE_HSTS_PRELOAD="true",
    )
    assert opted_in == "(True, True, [])"


def test_mail_uses_tls_by_default() -> None:
    assert production_setting("(settings.EMAIL_USE_TLS, settings.EMAIL_USE_SSL, settings.EMAIL_PORT)") == (
        "(True, False, 587)"
    )
    # The compose file passes every EMAIL_* on, empty when not set: empty is the default.
    empty = production_setting("(settings.EMAIL_USE_TLS, settings.EMAIL_PORT)", EMAIL_PORT="", EMAIL_USE_TLS="")
    assert empty == "(True, 587)"
    implicit = production_setting("(settings.EMAIL_USE_TLS, settings.EMAIL_PORT)", EMAIL_USE_SSL="true")
    assert implicit == "(False, 465)"
    both = manage("check", **PRODUCTION, SECRET_KEY=KEY, EMAIL_USE_SSL="true", EMAIL_USE_TLS="true")
    assert both.returncode != 0
    assert "exclude each other" in both.stderr


def test_the_compose_file_publishes_only_the_proxy_and_the_app_trusts_only_the_proxy() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"proxy"}
    app = services["app"]["environment"]
    proxy_address = services["proxy"]["networks"]["default"]["ipv4_address"]
    assert app["BEHIND_TLS_PROXY"] == "true"
    assert app["FORWARDED_ALLOW_IPS"] == proxy_address  # uvicorn believes the proxy's headers, no one else's
    network = compose["networks"]["default"]["ipam"]["config"][0]
    assert ipaddress.ip_address(proxy_address) in ipaddress.ip_network(network["subnet"])
    # ... and outside the range the other containers' addresses come from, so no one takes it first.
    assert ipaddress.ip_address(proxy_address) not in ipaddress.ip_network(network["ip_range"])
    assert {"EMAIL_PORT", "EMAIL_USE_TLS", "EMAIL_USE_SSL"} <= app.keys()
    assert app["SITE_URL"].startswith("https://")
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "reverse_proxy" in caddyfile  # to every replica of the app: tests/test_compose.py


def test_rate_limits_may_be_set_by_name_from_the_environment() -> None:
    result = manage(
        "shell", "--no-imports", "-c", "from django.conf import settings; print(settings.RATE_LIMITS)",
        RATE_LIMITS="rolls=30/90, verify=2/4",
    )  # fmt: skip
    assert result.stdout.strip().splitlines()[-1] == "{'rolls': (30, 90), 'verify': (2, 4)}", result.stderr
    refused = manage("check", RATE_LIMITS="rolls=lots")
    assert refused.returncode != 0
    assert "RATE_LIMITS: write each limit as name=per-person/per-address, not 'rolls=lots'" in refused.stderr


def setting(expression: str, **env: str) -> str:
    """A development setting as the server reads it from ``env``."""
    result = manage("shell", "--no-imports", "-c", f"from django.conf import settings; print({expression})", **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_postgresql_connections_come_from_a_pool_sized_by_the_environment() -> None:
    """No persistent connections (they leak under ASGI, one thread a request): a pool per process,
    whose connections are checked before each use."""
    url = "postgres://dicehall:secret@db.example.com:5432/dicehall"
    default = setting("settings.DATABASES['default']['OPTIONS']['pool']", DATABASE_URL=url)
    assert default == "{'min_size': 2, 'max_size': 10, 'timeout': 5.0}"
    sized = setting(
        "(settings.DATABASES['default']['OPTIONS']['pool'], settings.DATABASES['default']['CONN_MAX_AGE'], "
        "settings.DATABASES['default']['CONN_HEALTH_CHECKS'])",
        DATABASE_URL=url, DB_POOL_MIN="4", DB_POOL_MAX="20", DB_POOL_TIMEOUT="2.5",
    )  # fmt: skip
    assert sized == "({'min_size': 4, 'max_size': 20, 'timeout': 2.5}, 0, True)"


def test_behind_pgbouncer_the_database_uses_no_server_side_cursors_and_prepares_nothing() -> None:
    """pgbouncer in transaction mode hands a connection back at each commit: a server-side cursor would
    outlive it, a statement prepared on it would be another client's, and it refuses startup options
    (docs/deploy.md). Straight against PostgreSQL, parameters are bound on the server, a statement run
    often is prepared and run on its generic plan, and the planner takes an index read to be cheap."""
    url = "postgres://dicehall:secret@pgbouncer.example.com:6432/dicehall"
    database = "settings.DATABASES['default']"
    chosen = (
        f"({database}['DISABLE_SERVER_SIDE_CURSORS'], {database}['OPTIONS'].get('server_side_binding'), "
        f"{database}['OPTIONS'].get('prepare_threshold'), {database}['OPTIONS'].get('options'))"
    )
    planner = "-c random_page_cost=1.1 -c plan_cache_mode=force_generic_plan"
    assert setting(chosen, DATABASE_URL=url) == f"(False, True, 5, {planner!r})"
    assert setting(chosen, DATABASE_URL=url, DB_BEHIND_PGBOUNCER="true") == "(True, None, None, None)"


def test_sqlite_opens_a_connection_a_request_and_keeps_none() -> None:
    database = "settings.DATABASES['default']"
    kept = setting(f"({database}.get('CONN_MAX_AGE', 0), 'pool' in {database}['OPTIONS'])", DATABASE_URL="")
    assert kept == "(0, False)"


@pytest.mark.parametrize(
    "env",
    [{"DB_POOL_MIN": "5", "DB_POOL_MAX": "4"}, {"DB_POOL_MAX": "0"}, {"DB_POOL_TIMEOUT": "0"}, {"DB_POOL_MIN": "-1"}],
)
def test_pool_sizes_that_cannot_work_are_refused(env: dict[str, str]) -> None:
    result = manage("check", **env)
    assert result.returncode != 0
    assert "DB_POOL_MIN ≤ DB_POOL_MAX" in result.stderr


def test_sessions_are_read_with_their_user_from_the_database_with_redis_or_without() -> None:
    # Django's database sessions, read with their user in one query (accounts/sessions.py): from Redis, the
    # session would be one trip and its user another.
    assert setting("settings.SESSION_ENGINE", REDIS_URL="") == "accounts.sessions"
    assert setting("settings.SESSION_ENGINE", REDIS_URL="redis://127.0.0.1:6379/15") == "accounts.sessions"
    pool = setting("settings.CACHES['default']['OPTIONS']['pool_class']", REDIS_URL="redis://127.0.0.1:6379/15")
    assert pool == "web.cache.SharedConnectionPool"  # one pool a process, not one a request (web/cache.py)


FAST_SERVER = "--http httptools --loop uvloop"


def test_every_way_to_start_the_server_uses_uvicorns_fast_parser_and_loop() -> None:
    """`make run`, the image, and the compose file (which runs the image's command)."""
    makefile = (ROOT / "Makefile").read_text()
    (run,) = [line for line in makefile.splitlines() if "-m uvicorn" in line]
    assert FAST_SERVER in run
    (command,) = [line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("CMD")]
    assert "exec uvicorn" in command
    assert FAST_SERVER in command
    app = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["app"]
    assert app["build"] == "."
    assert "command" not in app or FAST_SERVER in str(app["command"])
    import httptools  # noqa: F401  (installed from requirements/base.txt, as the flags need)
    import uvloop  # noqa: F401


UNCOMPRESSED_SOCKETS = "--ws-per-message-deflate false"


def test_every_way_to_start_the_server_sends_live_sockets_uncompressed() -> None:
    """The same three: a live frame is compressed again for each socket that hears it (docs/deploy.md)."""
    (run,) = [line for line in (ROOT / "Makefile").read_text().splitlines() if "-m uvicorn" in line]
    assert UNCOMPRESSED_SOCKETS in run
    (command,) = [line for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("CMD")]
    assert UNCOMPRESSED_SOCKETS in command
    app = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["app"]
    assert "command" not in app or UNCOMPRESSED_SOCKETS in str(app["command"])
