"""The compose file runs as many app replicas as asked (``docker compose up --scale app=3``) behind the
proxy, sharing PostgreSQL and Redis: read from the files themselves, since Docker does not run here.

A replica cannot have a container name or a published port of its own (a second replica could take
neither), so the proxy must find the replicas by the service's name, and look it up again as they come
and go; the schema is migrated once, before any replica starts, not by three replicas at once.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def services() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def reverse_proxy_block() -> str:
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    found = re.search(r"^\s*reverse_proxy \{\n(.*?)^\t\}$", caddyfile, re.MULTILINE | re.DOTALL)
    assert found is not None, "no reverse_proxy block in deploy/Caddyfile"
    return "\n".join(line.split("#")[0].rstrip() for line in found.group(1).splitlines() if line.split("#")[0].strip())


def test_the_app_can_be_scaled_it_has_no_name_or_published_port_of_its_own() -> None:
    app = services()["app"]
    assert "container_name" not in app
    assert "ports" not in app
    assert app["expose"] == ["8000"]
    assert "ipv4_address" not in str(app.get("networks", ""))  # each replica takes an address from the range


def test_the_proxy_balances_over_every_replica_found_by_the_services_name() -> None:
    block = reverse_proxy_block()
    dynamic = re.search(r"dynamic a \{(.*?)\}", block, re.DOTALL)
    assert dynamic is not None, block
    settings = dict(line.split(None, 1) for line in dynamic.group(1).strip().splitlines())
    assert settings == {"name": "app", "port": "8000", "refresh": "5s"}
    assert "lb_policy least_conn" in block
    assert "flush_interval -1" in block  # the sockets stream through
    # No fixed upstream beside the dynamic one: every request goes to a replica found by name.
    assert not re.search(r"reverse_proxy \S+:\d+", (ROOT / "deploy" / "Caddyfile").read_text())


def test_the_replicas_share_one_database_and_one_redis_and_wait_for_one_migration() -> None:
    every = services()
    app, migrate = every["app"], every["migrate"]
    assert app["environment"]["DATABASE_URL"].endswith("@db:5432/dicehall")
    assert app["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert migrate["environment"]["DATABASE_URL"] == app["environment"]["DATABASE_URL"]
    assert migrate["image"] == app["image"]
    assert migrate["build"] == app["build"]
    assert migrate["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert migrate["restart"] == "no"
    assert app["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert {"db", "redis"} <= app["depends_on"].keys()
    # The settings a production process refuses to start without, on the one-off process too.
    required = {"DJANGO_ENV", "SECRET_KEY", "ROLL_CHAIN_KEYS", "ALLOWED_HOSTS", "SITE_URL"}
    assert required <= migrate["environment"].keys()
    assert all(migrate["environment"][name] == app["environment"][name] for name in required)
