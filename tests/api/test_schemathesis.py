"""Schemathesis against the live schema: every operation of /api/v1/openapi.json is called with
generated requests, valid and invalid, through the WSGI application, on a campaign of every system the
server plays (Lucky 13, D6, D13 and the test-only Coin), once with the GM's token and once with a
player's. The campaign has two players' characters, rolls, points in the ledger and, where the system
fights, a running encounter, so the ids in the paths exist.

Every response must be one the schema documents for that operation (no 5xx), with the content type and
body it declares; a request the schema calls invalid must be refused, and one it calls valid must not
be refused by the schema's own checks (422) — a refusal of the rules (400, 403, 404, 409) stays allowed.
And a refused request changes nothing: the table's data after any 4xx answer is the data before it.

Fixed seed and bounded examples, so that a run is the same every time and its time stays bounded;
raise ``MAX_EXAMPLES`` locally to search harder.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from schemathesis.config import SchemathesisConfig

from api import tokens
from campaigns.models import Campaign
from characters import ledger
from characters.models import Character
from config.wsgi import application
from play import rolls
from rules import systems
from tests.fuzz.state import changes, fingerprint
from tests.fuzz.tables import BUILDERS, SYSTEMS, encounter_of
from web import limits

SEED = 20260
#: Generated requests per operation in the fuzzing phase (the examples phase adds the schema's examples).
MAX_EXAMPLES = 4
#: The seat the coverage phase also runs for, with the edge values of every field of every operation (some
#: three thousand requests): Lucky 13's GM, who may call every operation on the richest sheets. The other
#: seats get the examples and the fuzzing, which keeps the run bounded.
COVERED = ("lucky13", "gm")
#: An id in the path where the system has nothing to name (no encounter where it does not fight): a 404.
NO_SUCH_ID = 10**9
#: Whose token calls: the GM's or a player's.
ROLES = ("gm", "player")


@pytest.fixture
def same_connection() -> Iterator[None]:
    """The application runs in this thread on this test's connection, inside its transaction, as under
    Django's test client: a request must not close the connection at its start or end."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture
def node_id_for_schemathesis(request: pytest.FixtureRequest) -> None:
    """Schemathesis 4.32's lazy schema reads and rewrites ``node._nodeid``, which pytest 9 no longer has
    (``nodeid`` is a property over ``_id``); give it the attribute it expects. It only names subtests."""
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


@dataclass(frozen=True)
class Table:
    """A campaign of one system as the fuzzing finds it: the player's character (the one in the paths),
    another player's, and the running encounter with one of its combatants, where the system fights."""

    campaign: Campaign
    mine: Character
    other: Character
    encounter_id: int | None
    combatant_id: int | None


@pytest.fixture(params=[(key, role) for key in SYSTEMS for role in ROLES], ids=lambda p: f"{p[0]}-{p[1]}")
def seat(request) -> tuple[str, str]:
    """Which system's campaign is fuzzed, and whose token calls: the GM's or the player's."""
    return request.param


@pytest.fixture
def table(db, seat, coin_registered, gm, player, other_player) -> Table:
    campaign, mine, other = BUILDERS[seat[0]](gm, player, other_player)
    if systems.get(campaign.system).currencies:
        ledger.award(
            campaign_id=campaign.pk,
            awards=[ledger.Award(mine.pk, 200), ledger.Award(other.pk, 50)],
            reason="Completing the mission",
            by=gm,
        )
    for secret in (False, True):
        rolls.roll_free(
            campaign_id=campaign.pk, by=gm, text="2d6+1", explode=False, secret=secret, rng=random.Random(secret)
        )
    encounter_id, combatant_id = encounter_of(campaign, gm, [mine, other])
    return Table(campaign, mine, other, encounter_id, combatant_id)


@pytest.fixture
def api_schema(db, same_connection, node_id_for_schemathesis, settings, seat, table, gm, player):
    """The schema served by the application, with the token of the seat's user and the ids of the
    campaign and of the player's character fixed in every path."""
    # Thousands of requests with one token from one address: no limit of web.limits may stop them.
    settings.API_RATE_LIMIT = 10**9
    settings.RATE_LIMITS = {limit.name: (10**9, 10**9) for limit in limits.ALL}
    _, raw = tokens.create_token(user=gm if seat[1] == "gm" else player, name="schemathesis")
    encounter = {"eid": table.encounter_id or NO_SUCH_ID, "cid": table.combatant_id or NO_SUCH_ID}
    config = SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            # The WSGI transport hands back the bytes as sent and does not undo a Content-Encoding, so
            # the bodies are asked for plain (compression has its own tests: tests/web/test_compression.py).
            "headers": {"Authorization": f"Bearer {raw}", "Accept-Encoding": "identity"},
            "generation": {"mode": "all", "max-examples": MAX_EXAMPLES, "deterministic": True},
            "phases": {
                "examples": {"enabled": True},
                "coverage": {"enabled": seat == COVERED},
                "fuzzing": {"enabled": True},
            },
            "checks": {
                # Valid by the schema is not enough to succeed: a well-formed body may rightly name a skill
                # the sheet lacks (400), be the GM's to send (403), or buy what the points do not cover
                # (409). What it must never meet is the schema's own refusal, 422.
                "positive_data_acceptance": {"expected-statuses": ["2xx", "400", "403", "404", "409"]},
            },
            "operations": [
                {"include-path-regex": "^/api/v1/characters/\\{id\\}", "parameters": {"id": table.mine.pk}},
                {
                    "include-path-regex": "^/api/v1/campaigns/\\{id\\}/encounters/\\{eid\\}",
                    "parameters": {"id": table.campaign.pk, **encounter},
                },
                # One set of values an operation: an encounter's own paths are the entry above's alone.
                {
                    "include-path-regex": "^/api/v1/campaigns/\\{id\\}(?!/encounters/\\{eid\\})",
                    "parameters": {"id": table.campaign.pk},
                },
            ],
        }
    )
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application, config=config)


schema = schemathesis.pytest.from_fixture("api_schema")


#: Answers given before an endpoint's own code runs: no token, a method it does not serve, a body
#: its schema refuses, the rate limit.
NOT_HANDLED = {401, 405, 422, 429}
#: Operations that must have succeeded at least once, for every system and seat: the reads and the chance.
MUST_SUCCEED = (
    "GET /api/v1/campaigns",
    "GET /api/v1/campaigns/{id}",
    "GET /api/v1/campaigns/{id}/characters",
    "GET /api/v1/characters/{id}",
    "GET /api/v1/campaigns/{id}/rolls",
    "GET /api/v1/campaigns/{id}/rolls/verify",
    "GET /api/v1/characters/{id}/moves",
    "POST /api/v1/chance",
)
#: Where the system fights, the encounter's reads too; where it keeps a table, the table's.
MUST_SUCCEED_FIGHTING = ("GET /api/v1/campaigns/{id}/encounter", "GET /api/v1/campaigns/{id}/encounters")
MUST_SUCCEED_TABLE = ("GET /api/v1/campaigns/{id}/table",)
#: And for Lucky 13's GM, the rolls and Adventure-Point writes too (their examples in the schema are
#: valid on this campaign's sheets).
MUST_SUCCEED_LUCKY13_GM = (
    "POST /api/v1/characters/{id}/rolls",
    "GET /api/v1/characters/{id}/ledger",
    "POST /api/v1/characters/{id}/ledger",
    "POST /api/v1/characters/{id}/purchases",
)


@pytest.fixture
def answered(seat) -> Iterator[dict[str, set[int]]]:
    """The statuses each operation answered with. Were the token broken, or the ids wrong, every
    response could be a documented 401, 404 or 422 and the run would prove little: each operation's
    own code must have run, and those above must have succeeded."""
    seen: dict[str, set[int]] = {}
    rules = systems.get(seat[0])
    yield seen
    must = (
        MUST_SUCCEED
        + (MUST_SUCCEED_FIGHTING if rules.combat is not None else ())
        + (MUST_SUCCEED_TABLE if rules.table is not None else ())
        + (MUST_SUCCEED_LUCKY13_GM if seat == ("lucky13", "gm") else ())
    )
    assert [op for op, statuses in seen.items() if not statuses - NOT_HANDLED] == [], seen
    assert [op for op in must if not any(200 <= s < 300 for s in seen.get(op, ()))] == [], seen


@pytest.fixture
def data_kept() -> dict[str, Any]:
    """The table's data as the last request left it (``tests.fuzz.state``)."""
    return {"last": None}


@schema.parametrize()
def test_the_api_keeps_to_its_schema(case, answered, data_kept) -> None:
    before = data_kept["last"] or fingerprint()
    response = case.call_and_validate()
    after = fingerprint()
    data_kept["last"] = after
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    answered.setdefault(operation, set()).add(response.status_code)
    if 400 <= response.status_code < 500:
        assert changes(before, after) == [], f"{operation} answered {response.status_code} and changed the data"
