"""Exact chances of what users send: cached, bounded in how many run at once, worked out in worker
processes beside the server's (web/heavy.py), and a 503 with Retry-After when every slot is taken."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from play.models import Roll
from rules import expressions
from rules.__main__ import chance
from rules.systems import SpecError
from web import heavy

ROOT = Path(__file__).resolve().parents[2]
CHECK = {"system": "lucky13", "roll": "check", "ability": "d8", "skill": "d6", "difficulty": "moderate"}
calls: list[int] = []


def counted(value: int) -> int:
    calls.append(value)
    return value * 2


@pytest.fixture
def one_slot(settings) -> Iterator[threading.Event]:
    """Every slot taken for the length of the test: a computation that waits for the event."""
    settings.CHANCE_SLOTS, settings.CHANCE_WAIT = 1, 0.05
    started, release = threading.Event(), threading.Event()

    def hold(_: int) -> int:
        started.set()
        release.wait(10)
        return 0

    holder = threading.Thread(target=heavy.compute, args=(hold, 1))
    holder.start()
    assert started.wait(5)
    yield release
    release.set()
    holder.join(5)


def test_the_same_arguments_are_computed_once() -> None:
    calls.clear()
    assert [heavy.compute(counted, 3), heavy.compute(counted, 3), heavy.compute(counted, 4)] == [6, 6, 8]
    assert calls == [3, 4]


def test_the_cache_is_bounded_and_forgets_the_least_recently_used(monkeypatch) -> None:
    monkeypatch.setattr(heavy, "RESULTS", heavy.Results(2))
    calls.clear()
    for value in (1, 2, 1, 3, 1, 2):  # 3 pushes out 2, the least recently used; 1 stays
        heavy.compute(counted, value)
    assert calls == [1, 2, 3, 2]


def test_a_key_stands_for_arguments_that_cannot_be_hashed() -> None:
    first = heavy.compute(chance, CHECK, key="check")
    assert heavy.compute(chance, {"different": "spec"}, key="check") is first


def test_when_every_slot_is_taken_the_request_is_refused_after_a_short_wait(one_slot) -> None:
    with pytest.raises(heavy.Busy) as busy:
        heavy.compute(counted, 5)
    assert busy.value.retry_after == heavy.RETRY_AFTER
    assert "busy" in busy.value.message
    one_slot.set()


def test_a_cached_answer_needs_no_slot(settings) -> None:
    heavy.compute(counted, 7)
    settings.CHANCE_SLOTS, settings.CHANCE_WAIT = 1, 0.05
    slots = heavy.slots()
    slots.acquire()
    try:
        assert heavy.compute(counted, 7) == 14
    finally:
        slots.release()


def test_worker_processes_compute_the_engine_and_raise_its_refusals(settings) -> None:
    settings.CHANCE_WORKERS = 1
    try:
        assert heavy.compute(expressions.chance_at_least, expressions.parse("3d6"), 18) == Fraction(1, 216)
        assert heavy.compute(chance, CHECK, key="the check")["p_success"] == chance(CHECK)["p_success"]
        with pytest.raises(SpecError) as refused:
            heavy.compute(chance, {**CHECK, "ability": "d7"}, key="a bad check")
        assert refused.value.field == "ability"
    finally:
        heavy.shut_down()


# --- Pages and the API when the server is busy --------------------------------------------------


def test_the_calculator_says_the_server_is_busy(one_slot) -> None:
    response = Client().get(reverse("lucky13:opposed"), {"attacker_ability": "d12"})
    assert response.status_code == 503
    assert response["Retry-After"] == str(heavy.RETRY_AFTER)
    assert "busy working out other odds" in response.content.decode()


def test_the_chance_api_answers_busy_in_its_error_format(api, player, one_slot) -> None:
    response = api(player).post("/chance", CHECK)
    assert response.status_code == 503
    assert response["Retry-After"] == str(heavy.RETRY_AFTER)
    assert response.json()["code"] == "busy"


@pytest.mark.django_db
def test_the_dice_box_rolls_nothing_when_busy(client, campaign, player, one_slot) -> None:
    client.force_login(player)
    response = client.post(reverse("play:free-roll", args=[campaign.pk]), {"expression": "3d6+d4"})
    assert response.status_code == 503
    assert response["Retry-After"] == str(heavy.RETRY_AFTER)
    assert not Roll.objects.exists()


#: A server in miniature: it starts the worker process, says the worker's id, and waits to be killed.
SERVER = """
import os, sys, time
import django
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
from django.conf import settings
settings.CHANCE_WORKERS = 1
from web import heavy
print(heavy.compute(os.getpid), flush=True)
time.sleep(60)
"""


def test_a_worker_process_leaves_when_its_server_is_killed() -> None:
    """A killed server stops nothing itself: its worker sees it gone and exits, rather than linger."""
    server = subprocess.Popen([sys.executable, "-c", SERVER], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        worker = int(server.stdout.readline())  # type: ignore[union-attr]
        assert worker != server.pid
        os.kill(worker, 0)  # there
    finally:
        server.kill()
        server.wait()
    deadline = time.monotonic() + 10 * heavy.PARENT_CHECK
    while time.monotonic() < deadline and Path(f"/proc/{worker}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{worker}").exists() or "Z" in Path(f"/proc/{worker}/stat").read_text().split()[2]
