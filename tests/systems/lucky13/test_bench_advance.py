"""The "What should I buy?" benchmark measures what it says: every offer for its large sheet."""

from __future__ import annotations

from bench.lucky13.advance import one_run, options, sheet
from rules.systems.lucky13 import Difficulty


def test_the_benchmark_sheet_offers_every_purchase_with_its_checks() -> None:
    document = sheet()
    assert len(document.skills) == 20
    assert all(len(skill.specializations) == 5 for skill in document.skills)
    # Per difficulty: 80 levels below 5 (one check each), 20 new specializations (one each),
    # five abilities below d12, each touching its 4 linked skills' plain and 5 specialized checks.
    assert one_run(document, options()) == len(Difficulty) * (80 + 20 + 5 * 4 * 6)
