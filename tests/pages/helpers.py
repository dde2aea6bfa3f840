"""Small readers for the rendered pages, shared by the view tests."""

from __future__ import annotations

import re
from itertools import product

from django.http import HttpResponse


def html(response: HttpResponse) -> str:
    return response.content.decode()


def region(page: str, element_id: str) -> str:
    """The inner HTML of the ``<section id=…>`` (sections are never nested on these pages)."""
    match = re.search(rf'<section id="{element_id}"[^>]*>(.*?)</section>', page, re.S)
    assert match, f"no #{element_id} section in the page"
    return match.group(1)


def errors(page: str) -> list[str]:
    """The messages in the page's error summary (``role="alert"``), tags stripped."""
    match = re.search(r'<div class="errors" role="alert">(.*?)</div>', page, re.S)
    assert match, "no error summary in the page"
    return [re.sub(r"<[^>]+>", "", item).strip() for item in re.findall(r"<li>(.*?)</li>", match.group(1), re.S)]


def big_chance(page: str) -> tuple[str, str]:
    """The headline chance as shown: (percent, exact fraction)."""
    match = re.search(
        r'<div class="big-chance"><details class="exact"><summary title="exactly ([0-9/]+)">([^<]+)<', page
    )
    assert match, "no headline chance in the page"
    return match.group(2), match.group(1)


def sides(label: str) -> tuple[int, ...]:
    """``d12+d4`` → (12, 4); ``none`` → ()."""
    return () if label == "none" else tuple(int(die.removeprefix("d")) for die in label.split("+"))


def totals(labels: list[str]) -> list[int]:
    """Every equally likely total of the dice (no explosions), by brute force."""
    dice = [s for label in labels for s in sides(label)]
    return [sum(faces) for faces in product(*(range(1, s + 1) for s in dice))]
