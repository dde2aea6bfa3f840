"""Every form of every page, fuzzed: for each system's campaign (Lucky 13, D6, D13 and the test-only Coin),
every address a form posts to is sent generated fields — the form's own names with its values and with
hostile ones (control characters, huge and negative numbers, other scripts, thousands of characters,
several values for one name), names left out and names added — by the GM or a player, signed in, with a
CSRF token. No answer may be a 5xx, and an answer that refuses (a 4xx, or the form shown again with its
errors) leaves the data as it was (``tests.fuzz.state``).

Which addresses take a form is a list checked against the URLconf: a new page must be put in one list or
the other, so no form is left out of the fuzzing. A fixed seed and a fixed number of examples a form keep
a run the same every time."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Callable
from typing import Any, Final

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api import tokens
from campaigns import operations as campaign_operations
from campaigns.models import Membership
from characters import drafting, ledger
from characters.models import Character, LedgerEntry
from play import rolls
from play.models import Encounter, Roll
from rules.systems.moves import Scope
from tests.fuzz.state import changes, fingerprint
from tests.fuzz.tables import BUILDERS, SYSTEMS, encounter_of
from web import limits

#: Generated posts a form gets in each system's campaign.
FORM_EXAMPLES: Final = 4

#: Every address a form posts to (by URL name), and who posts it: the GM, or the player whose character it is.
FORMS: Final = {
    "characters:edit-section": "player",
    "characters:decide-awaiting": "player",
    "characters:correct-entry": "gm",
    "characters:buy": "player",
    "characters:award": "gm",
    "characters:create": "player",
    "characters:create-step": "player",
    "characters:archive": "player",
    "characters:restore": "player",
    "characters:delete-draft": "player",
    "characters:import": "player",
    "play:sheet-roll": "player",
    "play:move": "player",
    "play:table-move": "gm",
    "play:request-call": "gm",
    "play:request-cancel": "gm",
    "play:request-answer": "player",
    "play:proposal-call": "gm",
    "play:proposal-decline": "gm",
    "play:proposal-withdraw": "player",
    "play:free-roll": "gm",
    "play:reveal-roll": "gm",
    "play:encounter-start": "gm",
    "play:encounter-add-characters": "gm",
    "play:encounter-add-npcs": "gm",
    "play:encounter-join": "player",
    "play:encounter-initiative": "gm",
    "play:encounter-next-turn": "gm",
    "play:encounter-attack": "player",
    "play:encounter-defend": "player",
    "play:encounter-withdraw": "player",
    "play:encounter-adjust": "gm",
    "play:encounter-act": "player",
    "play:encounter-move": "gm",
    "play:encounter-remove": "gm",
    "play:encounter-end": "gm",
    "campaigns:create": "gm",
    "campaigns:settings": "gm",
    "campaigns:archive": "gm",
    "campaigns:unarchive": "gm",
    "campaigns:leave": "player",
    "campaigns:remove-member": "gm",
    "campaigns:make-gm": "gm",
    "campaigns:create-invitation": "gm",
    "campaigns:revoke-invitation": "gm",
    "campaigns:accept-invitation": "player",
    "d6:round": "player",
    "lucky13:roll-check": "player",
    "lucky13:npc-roll": "gm",
    "lucky13:roll-opposed": "player",
    "lucky13:contest": "player",
    "signup": "player",
    "login": "player",
    "api-token-create": "player",
    "api-token-revoke": "player",
    "password_change": "player",
    "password_reset": "player",
    "password_reset_confirm": "player",
    "email-confirm": "player",
    "logout": "player",
}
#: Addresses that only show (a page, a confirmation asking first, a file), whatever is posted to them.
NO_FORM: Final = frozenset(
    {
        "pages:home",
        "pages:about",
        "pages:healthz",
        "characters:sheet",
        "characters:sheet-section",
        "characters:history",
        "characters:ledger",
        "characters:advance",
        "characters:export",
        "characters:print",
        "play:dashboard",
        "play:table",
        "play:table-history",
        "play:rolls",
        "play:verify-rolls",
        "play:encounter",
        "play:encounter-confirm-remove",
        "play:encounter-confirm-end",
        "play:encounters",
        "play:encounter-history",
        "campaigns:list",
        "campaigns:detail",
        "campaigns:confirm-archive",
        "campaigns:confirm-unarchive",
        "campaigns:confirm-leave",
        "campaigns:confirm-remove-member",
        "campaigns:confirm-make-gm",
        "campaigns:invitations",
        "campaigns:confirm-revoke-invitation",
        "campaigns:join",
        "lucky13:calculator",
        "lucky13:opposed",
        "account",
        "api-docs",
        "password_change_done",
        "password_reset_done",
        "password_reset_complete",
    }
)


def _names(patterns: list[Any], namespace: str = "") -> set[str]:
    """Every named page of the URLconf, ``namespace:name``, but the admin's and the JSON API's."""
    found: set[str] = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace in ("admin", "api-v1"):
                continue
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            found |= _names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            found.add(namespace + pattern.name)
    return found


def test_every_page_is_fuzzed_or_shows_only() -> None:
    names = _names(get_resolver().url_patterns)
    assert sorted(names - FORMS.keys() - NO_FORM) == [], "a new page: put it in FORMS (fuzzed) or NO_FORM"
    assert sorted((FORMS.keys() | NO_FORM) - names) == [], "no such page any more"


#: Text a hostile or careless client sends.
HOSTILE: Final = (
    "",
    " ",
    "\x00",
    "a\x00b",
    "\x1b[31m",
    "\r\n\t",
    "\u202e\u200b",
    "-1",
    "0",
    "9" * 40,
    "-" + "9" * 30,
    "1e309",
    "NaN",
    "1.5",
    "0x10",
    "d6",
    "99d99+999",
    "Ωλ漢字かなДж💥",
    "x" * 5000,
    "<script>alert(1)</script>",
    "on",
    "true",
)
text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=20), st.integers(-(2**70), 2**70).map(str))


def posted(fields: dict[str, str]) -> st.SearchStrategy[dict[str, Any]]:
    """A form's fields: each the form's own value or a hostile one, one value or several, or left out;
    and a few names the form does not have."""
    value = st.one_of(text, st.lists(text, min_size=2, max_size=3))
    own = {name: st.one_of(st.just(current), value) for name, current in fields.items()}
    added = st.sampled_from(["version", "id", "amount", "name", "x", "__all__", "0"])
    extra = st.dictionaries(added, value, max_size=2)
    return st.tuples(st.fixed_dictionaries({}, optional=own), extra).map(lambda pair: {**pair[1], **pair[0]})


_INPUT = re.compile(r"<(input|textarea|select|button)\b([^>]*)>", re.S)
_ATTR = re.compile(r'(\w[\w-]*)="([^"]*)"')


def form_fields(page: str) -> dict[str, str]:
    """The names a page's forms send, each with the value it shows (the first, for a name shown twice)."""
    fields: dict[str, str] = {}
    for _, attrs in _INPUT.findall(page):
        found = {key: html.unescape(value) for key, value in _ATTR.findall(attrs)}
        if "name" in found and found["name"] != "csrfmiddlewaretoken":
            fields.setdefault(found["name"], found.get("value", ""))
    return fields


class Table:
    """One system's campaign and everything a form's address names, built for the fuzzing."""

    def __init__(self, system: str, gm: Any, player: Any, other_player: Any) -> None:
        self.campaign, self.mine, self.other = BUILDERS[system](gm, player, other_player)
        self.draft = drafting.start(campaign=self.campaign, owner=player, name="Hilde")
        for secret in (False, True):
            rolls.roll_free(campaign_id=self.campaign.pk, by=gm, text="2d6", explode=False, secret=secret,
                            rng=random.Random(secret))  # fmt: skip
        encounter_of(self.campaign, gm, [self.mine, self.other])
        self.invitation = campaign_operations.create_invitation(campaign_id=self.campaign.pk, by=gm, days=7,
                                                                max_uses=None)  # fmt: skip
        self.member = Membership.objects.get(campaign=self.campaign, user=other_player)
        self.token, _ = tokens.create_token(user=player, name="fuzzing")
        if self.campaign.rules.currencies:
            ledger.award(campaign_id=self.campaign.pk, awards=[ledger.Award(self.mine.pk, 200)], reason="A job done",
                         by=gm)  # fmt: skip

    def kwargs(self, name: str, route: str, pick: Callable[[list[str]], str]) -> dict[str, Any]:
        """The values of the address's parts, each one that exists in this campaign."""
        character = self.draft if name in ("characters:create-step", "characters:delete-draft") else self.mine
        entry = LedgerEntry.objects.filter(character=self.mine).values_list("pk", flat=True).first() or 1
        encounter = Encounter.objects.filter(campaign=self.campaign).values_list("pk", flat=True).first() or 1
        secret_seq = Roll.objects.filter(campaign=self.campaign, secret=True).values_list("seq", flat=True).first()
        values: dict[str, Any] = {
            "pk": self._pk(name, route, character),
            "campaign_pk": self.campaign.pk,
            "entry_pk": entry,
            "request_pk": 1,
            "asked_pk": 1,
            "proposal_pk": 1,
            "member_pk": self.member.pk,
            "invitation_pk": self.invitation.pk,
            "encounter_pk": encounter,
            "seq": secret_seq or 1,
            "token": self.invitation.token,
            "uidb64": "MQ",
            "key": pick(self._move_keys(name)),
            "section": pick([section.key for section in character.rules.edit_sections] or ["none"]),
            "step": drafting.progress(self.draft) if Character.objects.filter(pk=self.draft.pk).exists() else "x",
        }
        return values

    def _pk(self, name: str, route: str, character: Character) -> int:
        if name == "api-token-revoke":
            return self.token.pk
        return character.pk if route.startswith("characters/") else self.campaign.pk

    def _move_keys(self, name: str) -> list[str]:
        scope = Scope.TABLE if name == "play:table-move" else Scope.SHEET
        return [move.key for move in self.campaign.rules.moves if move.scope == scope] or ["none"]


#: Of the posts to a form, how many its own user sends for each one the other user sends.
RIGHT_USER_SHARE: Final = 3
#: Answers that take the post: a redirect to where it leads. Anything else is a refusal, or a page.
TAKEN: Final = frozenset({301, 302, 303})


@pytest.fixture(autouse=True)
def unlimited(settings) -> None:
    """Generated posts by the dozen from one address: no rate limit may answer them in the forms' place."""
    settings.RATE_LIMITS = {limit.name: (10**9, 10**9) for limit in limits.ALL}


@pytest.fixture(params=SYSTEMS)
def table(request, db, coin_registered, gm, player, other_player) -> Table:
    return Table(request.param, gm, player, other_player)


def _client(user: Any) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def _csrf(client: Client) -> str:
    """The CSRF secret the form sends back, as a page with a form sets it."""
    if "csrftoken" not in client.cookies:
        client.get(reverse("account"))
    return client.cookies["csrftoken"].value


def _route(name: str) -> str:
    namespace, _, short = name.rpartition(":")
    for pattern in get_resolver().url_patterns:
        found = _find(pattern, namespace, short)
        if found is not None:
            return found
    raise LookupError(name)


def _find(pattern: Any, namespace: str, short: str, prefix: str = "") -> str | None:
    if isinstance(pattern, URLResolver):
        inner = namespace.removeprefix(pattern.namespace or "").removeprefix(":") if pattern.namespace else namespace
        if pattern.namespace and not namespace.startswith(pattern.namespace):
            return None
        for sub in pattern.url_patterns:
            found = _find(sub, inner, short, prefix + str(pattern.pattern))
            if found is not None:
                return found
        return None
    if pattern.name == short and not namespace:
        return prefix + str(pattern.pattern)
    return None


@pytest.mark.parametrize("name", sorted(FORMS))
def test_a_refused_form_changes_nothing(table, name, gm, player) -> None:
    """Each form of the campaign's system, posted with generated fields by its user and by the other
    one (the GM posting a player's form, a player the GM's)."""
    users = {"gm": gm, "player": player}
    route = _route(name)

    @settings(max_examples=FORM_EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(data=st.data())
    def post(data: st.DataObject) -> None:
        right, other = FORMS[name], "gm" if FORMS[name] == "player" else "player"
        who = data.draw(st.sampled_from([right] * RIGHT_USER_SHARE + [other]), label="who")
        client = _client(users[who])
        url = reverse(name, kwargs=_kwargs_of(route, table.kwargs(name, route, lambda keys: data.draw(
            st.sampled_from(keys), label="part"))))  # fmt: skip
        shown = client.get(url)
        fields = form_fields(shown.content.decode(errors="replace")) if shown.status_code == 200 else {}
        body = data.draw(posted(fields), label="fields")
        body["csrfmiddlewaretoken"] = _csrf(client)
        before = fingerprint()
        response = client.post(url, body)
        assert response.status_code < 500, (url, body)
        if response.status_code not in TAKEN:
            assert changes(before, fingerprint()) == [], (url, response.status_code, body)

    post()


def _kwargs_of(route: str, values: dict[str, Any]) -> dict[str, Any]:
    """The values of the parts ``route`` has."""
    return {part: values[part] for part in re.findall(r"<(?:\w+:)?(\w+)>", route)}
