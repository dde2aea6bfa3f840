"""Schemathesis against the live schema: every operation of /api/v1/openapi.json is called with
generated requests, valid and invalid, through the WSGI application, as a GM whose campaign has
characters, rolls, Adventure Points and a running encounter (so the ids in the paths exist). No
response may be a 5xx, and every response must be one the schema documents, with a body that matches it.

Fixed seed and bounded examples, so that a run is the same every time and takes well under a
minute; raise ``MAX_EXAMPLES`` locally to search harder.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from schemathesis.config import SchemathesisConfig

from api import tokens
from characters import ledger
from config.wsgi import application
from play import encounters, rolls
from tests.characters.conftest import make_character
from tests.play.npcs import GOBLIN
from web import limits

SEED = 20260
#: Generated requests per operation in the fuzzing phase (the examples and coverage phases add theirs).
MAX_EXAMPLES = 25


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


@pytest.fixture
def api_schema(db, same_connection, node_id_for_schemathesis, settings, campaign, gm, player, other_player):
    """The schema served by the application, with the GM's token and the ids of their campaign and of a
    player's character (the GM may do anything to it) fixed in every path."""
    # Thousands of requests with one token from one address: no limit of web.limits may stop them.
    settings.API_RATE_LIMIT = 10**9
    settings.RATE_LIMITS = {limit.name: (10**9, 10**9) for limit in limits.ALL}
    brunella = make_character(campaign, player)
    otto = make_character(campaign, other_player, name="Otto")
    ledger.award(
        campaign_id=campaign.pk,
        awards=[ledger.Award(brunella.pk, 200), ledger.Award(otto.pk, 50)],
        reason="Completing the mission",
        by=gm,
    )
    for secret in (False, True):
        rolls.roll_free(
            campaign_id=campaign.pk, by=gm, text="2d6+1", explode=False, secret=secret, rng=random.Random(secret)
        )
    fight = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    ids = {"campaign_id": campaign.pk, "encounter_id": fight.pk}
    encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk, otto.pk])
    (goblin,) = encounters.add_npcs(**ids, by=gm, **GOBLIN)
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(1))
    _, raw = tokens.create_token(user=gm, name="schemathesis")
    config = SchemathesisConfig.from_dict(
        {
            "seed": SEED,
            "headers": {"Authorization": f"Bearer {raw}"},
            "generation": {"mode": "all", "max-examples": MAX_EXAMPLES, "deterministic": True},
            "phases": {"examples": {"enabled": True}, "coverage": {"enabled": True}, "fuzzing": {"enabled": True}},
            # Every default check but this one: a well-formed body may rightly be refused, naming a skill
            # the sheet lacks (400) or buying what the points do not cover (409).
            "checks": {"positive_data_acceptance": {"enabled": False}},
            "operations": [
                {"include-path-regex": "^/api/v1/characters/\\{id\\}", "parameters": {"id": brunella.pk}},
                {
                    "include-path-regex": "^/api/v1/campaigns/\\{id\\}/encounters/\\{eid\\}",
                    "parameters": {"id": campaign.pk, "eid": fight.pk, "cid": goblin.pk},
                },
                # One set of values an operation: an encounter's own paths are the entry above's alone.
                {
                    "include-path-regex": "^/api/v1/campaigns/\\{id\\}(?!/encounters/\\{eid\\})",
                    "parameters": {"id": campaign.pk},
                },
            ],
        }
    )
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application, config=config)


schema = schemathesis.pytest.from_fixture("api_schema")


#: Answers given before an endpoint's own code runs: no token, a method it does not serve, a body
#: its schema refuses, the rate limit.
NOT_HANDLED = {401, 405, 422, 429}
#: Operations that must have succeeded at least once: every read, the chance, and the rolls and
#: Adventure-Point writes (their examples in the schema are valid on this campaign's sheets).
MUST_SUCCEED = (
    "GET /api/v1/campaigns",
    "GET /api/v1/campaigns/{id}",
    "GET /api/v1/campaigns/{id}/characters",
    "GET /api/v1/characters/{id}",
    "POST /api/v1/characters/{id}/rolls",
    "GET /api/v1/campaigns/{id}/rolls",
    "GET /api/v1/campaigns/{id}/rolls/verify",
    "GET /api/v1/campaigns/{id}/encounter",
    "GET /api/v1/campaigns/{id}/encounters",
    "GET /api/v1/characters/{id}/ledger",
    "POST /api/v1/characters/{id}/ledger",
    "POST /api/v1/characters/{id}/purchases",
    "POST /api/v1/chance",
)


@pytest.fixture
def answered() -> Iterator[dict[str, set[int]]]:
    """The statuses each operation answered with. Were the token broken, or the ids wrong, every
    response could be a documented 401, 404 or 422 and the run would prove little: each operation's
    own code must have run, and those above must have succeeded."""
    seen: dict[str, set[int]] = {}
    yield seen
    assert [op for op, statuses in seen.items() if not statuses - NOT_HANDLED] == [], seen
    assert [op for op in MUST_SUCCEED if not any(200 <= s < 300 for s in seen.get(op, ()))] == [], seen


@schema.parametrize()
def test_the_api_keeps_to_its_schema(case, answered) -> None:
    response = case.call_and_validate()
    answered.setdefault(f"{case.operation.method.upper()} {case.operation.path}", set()).add(response.status_code)
