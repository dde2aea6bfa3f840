"""Production settings refuse to start half-configured and pass Django's deploy check."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ENV")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=environment, capture_output=True, text=True, check=False
    )


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = manage("check", DJANGO_ENV="production", ALLOWED_HOSTS="dicehall.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_refuses_to_start_without_allowed_hosts() -> None:
    result = manage("check", DJANGO_ENV="production", SECRET_KEY=secrets.token_urlsafe(64))
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set" in result.stderr


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
        DJANGO_ENV="production",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="dicehall.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
