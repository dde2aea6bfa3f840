"""Production settings refuse to start half-configured and pass Django's deploy check."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    unset = ("SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ENV", "ROLL_CHAIN_KEYS")
    environment = {k: v for k, v in os.environ.items() if k not in unset}
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


def test_production_refuses_to_start_without_roll_chain_keys() -> None:
    result = manage(
        "check", DJANGO_ENV="production", SECRET_KEY=secrets.token_urlsafe(64), ALLOWED_HOSTS="dicehall.example.com"
    )
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
        DJANGO_ENV="production",
        SECRET_KEY=secrets.token_urlsafe(64),
        ALLOWED_HOSTS="dicehall.example.com",
        ROLL_CHAIN_KEYS=f"2026:{secrets.token_urlsafe(48)}",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
