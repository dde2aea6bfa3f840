"""Backgrounds and impairments chosen from, or rolled on, the campaign's own tables at creation
("Backgrounds": "players may roll for or choose from"; "Impairments": "either rolled for or
selected"): the server draws with an injected rng, adds the trait through the one write path and
keeps the roll in the creation record; the page offers the entries by name, rolls without
JavaScript (a redirect) and with htmx (the step's form), and says every refusal by its button."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from campaigns.errors import Refused
from campaigns.models import Campaign, Membership
from characters.models import Character, SheetChange
from rules.dice import StepDie
from rules.systems import lucky13
from tests.systems.lucky13 import drafts as creation
from tests.systems.lucky13.drafts import TraitChoice

pytestmark = pytest.mark.django_db

BACKGROUNDS = [
    {"name": "Ex-soldier", "description": "Served a lord who lost a war."},
    {"name": "Smuggler", "description": "Knows the back canals."},
    {"name": "Scholar", "description": ""},
]
IMPAIRMENTS = [{"name": "Bad knee", "description": "Stairs are a battle."}, {"name": "Phobia: heights"}]
DICE = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}


@pytest.fixture
def tabled(gm, player, other_player) -> Campaign:
    """A campaign with a table of three backgrounds and one of two impairments."""
    campaign = Campaign.objects.create(
        name="Tables", system="lucky13",
        options=lucky13.validate_options({"background_table": BACKGROUNDS, "impairment_table": IMPAIRMENTS}),
    )  # fmt: skip
    for user, role in ((gm, "gm"), (player, "player"), (other_player, "player")):
        Membership.objects.create(campaign=campaign, user=user, role=role)
    return campaign


def at_traits(campaign: Campaign, owner, *, took_impairment: bool = False) -> Character:
    """A draft that has got as far as the backgrounds and impairments step."""
    character = creation.start_character(campaign=campaign, owner=owner, name="Brunella")
    ids = {"character_id": character.pk}
    creation.assign_abilities(**ids, array="balanced", dice={k: StepDie.parse(v) for k, v in DICE.items()})
    creation.set_skills(**ids)
    creation.set_specializations(**ids, choices=[], took_impairment=took_impairment)
    return saved(character)


def saved(character: Character) -> Character:
    return Character.objects.get(pk=character.pk)


def traits(character: Character) -> list[tuple[str, str, str]]:
    return [(t.kind, t.name, t.description) for t in saved(character).document.traits]


def url(character: Character) -> str:
    return reverse("characters:create-step", args=[character.pk, "traits"])


@pytest.fixture
def dice(monkeypatch: pytest.MonkeyPatch) -> random.Random:
    """The view's rolls use this seeded rng (secrets.SystemRandom in production)."""
    rng = random.Random(6)
    monkeypatch.setattr("characters.drafting_views.secrets.SystemRandom", lambda: rng)
    return rng


# --- The operation --------------------------------------------------------------------------------


def test_a_roll_adds_the_drawn_entry_through_the_write_path_and_keeps_the_roll(tabled, player) -> None:
    character = at_traits(tabled, player)
    expected = random.Random(4).randrange(3)

    rolled = creation.roll_on_table(
        character_id=character.pk, version=character.version, kind="background", rng=random.Random(4), by=player
    )

    entry = BACKGROUNDS[expected]
    assert traits(rolled) == [("background", entry["name"], entry["description"])]
    trait = rolled.document.traits[0]
    assert rolled.document.creation.table_rolls == (
        lucky13.TableRoll(kind="background", roll=expected + 1, of=3, name=entry["name"], trait=trait.id),
    )
    assert rolled.version == character.version + 1
    change = SheetChange.objects.filter(character=rolled).latest("pk")
    assert change.what == f"Rolled a background on the table: {expected + 1} of 3, {entry['name']}"
    assert change.by == player
    # A roll does not finish the step: the draft stays where it was.
    assert rolled.document.creation.step == "traits"


def test_rolling_never_gives_a_trait_twice_and_refuses_when_all_are_taken(tabled, player) -> None:
    character = at_traits(tabled, player)
    rng = random.Random(99)
    for _ in BACKGROUNDS:
        character = creation.roll_on_table(character_id=character.pk, kind="background", rng=rng)
    names = [name for _, name, _ in traits(character)]
    assert sorted(names) == sorted(e["name"] for e in BACKGROUNDS)
    assert [r.name for r in character.document.creation.table_rolls] == names

    with pytest.raises(Refused) as refused:
        creation.roll_on_table(character_id=character.pk, version=character.version, kind="background", rng=rng)
    assert list(refused.value.errors) == ["background_roll"]
    assert "Every background of the campaign's table (3) is on this character already" in refused.value.message
    assert saved(character).version == character.version


def test_a_trait_typed_with_a_tables_name_is_taken_and_not_rolled(tabled, player) -> None:
    character = at_traits(tabled, player)
    typed = [TraitChoice("background", "smuggler"), TraitChoice("background", "EX-SOLDIER", "My own words")]
    rolled = creation.roll_on_table(character_id=character.pk, kind="background", rng=random.Random(1), traits=typed)
    assert traits(rolled) == [
        ("background", "smuggler", "Knows the back canals."),  # chosen by name: the table's description
        ("background", "EX-SOLDIER", "My own words"),
        ("background", "Scholar", ""),
    ]
    assert rolled.document.creation.table_rolls[0].roll == 3


def test_rolling_an_impairment_is_not_taking_one_for_a_specialization(tabled, player) -> None:
    character = at_traits(tabled, player)
    rolled = creation.roll_on_table(character_id=character.pk, kind="impairment", rng=random.Random(2))
    assert rolled.document.traits[0].kind == "impairment"
    assert rolled.document.creation.took_impairment is False
    assert lucky13.specialization_allowance(tabled.settings, impairment=False) == 3


def test_an_impairment_owed_does_not_stop_a_roll_but_still_stops_the_step(tabled, player) -> None:
    character = at_traits(tabled, player, took_impairment=True)
    rolled = creation.roll_on_table(character_id=character.pk, kind="background", rng=random.Random(2))
    assert [kind for kind, _, _ in traits(rolled)] == ["background"]
    with pytest.raises(Refused, match=r"(?i)you took an impairment"):
        creation.set_traits(character_id=character.pk, traits=[TraitChoice("background", traits(rolled)[0][1])])
    rolled = creation.roll_on_table(character_id=character.pk, kind="impairment", rng=random.Random(2))
    creation.set_traits(
        character_id=character.pk, traits=[TraitChoice(kind, name, text) for kind, name, text in traits(rolled)]
    )
    assert saved(character).document.creation.step == "equipment"


def test_a_roll_from_a_stale_page_is_refused_and_nothing_changes(tabled, player, gm) -> None:
    character = at_traits(tabled, player)
    opened_at = character.version
    creation.set_traits(character_id=character.pk, traits=[TraitChoice("background", "Mercenary")], by=gm)

    with pytest.raises(creation.StaleDraft):
        creation.roll_on_table(character_id=character.pk, version=opened_at, kind="background", rng=random.Random(1))
    assert traits(character) == [("background", "Mercenary", "")]
    assert saved(character).document.creation.table_rolls == ()


def test_a_roll_needs_a_table_and_the_step(gm, player, campaign) -> None:
    character = at_traits(campaign, player)
    with pytest.raises(Refused, match=r"(?i)this campaign has no table of impairments"):
        creation.roll_on_table(character_id=character.pk, kind="impairment", rng=random.Random(1))
    early = creation.start_character(campaign=campaign, owner=player, name="Early")
    with pytest.raises(Refused, match=r"(?i)choose the specializations first"):
        creation.roll_on_table(character_id=early.pk, kind="background", rng=random.Random(1))


def test_a_roll_is_refused_when_the_step_is_full(tabled, player) -> None:
    character = at_traits(tabled, player)
    full = [TraitChoice("background", f"Past {i}") for i in range(creation.MAX_ROWS)]
    with pytest.raises(Refused, match=rf"(?i)at most {creation.MAX_ROWS} backgrounds and impairments"):
        creation.roll_on_table(character_id=character.pk, kind="impairment", rng=random.Random(1), traits=full)
    assert traits(character) == []


def test_the_roll_record_survives_finishing_and_an_export(tabled, player) -> None:
    character = at_traits(tabled, player)
    creation.roll_on_table(character_id=character.pk, kind="impairment", rng=random.Random(3))
    rolled = saved(character).document
    creation.set_traits(character_id=character.pk, traits=[TraitChoice(t.kind, t.name) for t in rolled.traits])
    creation.set_equipment(character_id=character.pk, assets=[], weapons=[], armor=[])
    finished = creation.finish(character_id=character.pk)
    assert finished.document.creation.table_rolls == rolled.creation.table_rolls
    assert finished.document.creation.table_rolls[0].trait == finished.document.traits[0].id


# --- The page -------------------------------------------------------------------------------------


def test_the_step_offers_the_tables_entries_by_name(client, tabled, player) -> None:
    character = at_traits(tabled, player)
    client.force_login(player)
    page = client.get(url(character)).content.decode()
    assert '<datalist id="background-table-entries">' in page
    assert '<option value="Smuggler" data-description="Knows the back canals.">' in page
    assert '<datalist id="impairment-table-entries">' in page
    assert re.search(r'<input id="id_trait-0-name" name="trait-0-name"[^>]* list="background-table-entries"', page)
    assert "Roll a background on the table" in page
    assert "Roll an impairment on the table" in page


def test_choosing_an_entry_by_its_name_brings_its_description(client, tabled, player) -> None:
    character = at_traits(tabled, player)
    client.force_login(player)
    response = client.post(url(character), {
        "version": character.version,
        "trait-0-kind": "impairment", "trait-0-name": "bad knee", "trait-0-description": "",
        "trait-1-kind": "background", "trait-1-name": "Lighthouse keeper", "trait-1-description": "Invented",
    })  # fmt: skip
    assert response.status_code == 302
    assert traits(character) == [
        ("impairment", "bad knee", "Stairs are a battle."),
        ("background", "Lighthouse keeper", "Invented"),  # a name of one's own stays allowed
    ]


def test_without_a_table_the_step_is_as_before(client, campaign, player) -> None:
    character = at_traits(campaign, player)
    client.force_login(player)
    page = client.get(url(character)).content.decode()
    assert "datalist" not in page
    assert "on the table" not in page
    response = client.post(url(character), {"version": character.version, "action": "roll-background"})
    assert response.status_code == 400
    assert "This campaign has no table of backgrounds: choose or invent one instead." in response.content.decode()


def test_without_javascript_a_roll_saves_what_was_typed_and_redirects_back(client, tabled, player, dice) -> None:
    character = at_traits(tabled, player)
    client.force_login(player)
    # The one typed background is taken: the roll is among the two left (Ex-soldier, Scholar).
    expected = ["Ex-soldier", "Scholar"][random.Random(6).randrange(2)]
    response = client.post(
        url(character),
        {"version": character.version, "action": "roll-background",
         "trait-0-kind": "impairment", "trait-0-name": "Limp", "trait-0-description": "",
         "trait-1-kind": "background", "trait-1-name": "Smuggler", "trait-1-description": "Mine",
         "trait-2-kind": "background", "trait-2-name": "", "trait-2-description": ""},
    )  # fmt: skip
    assert response.status_code == 302
    assert response["Location"] == url(character)
    number = 1 if expected == "Ex-soldier" else 3
    assert [(kind, name) for kind, name, _ in traits(character)] == [
        ("impairment", "Limp"),
        ("background", "Smuggler"),
        ("background", expected),
    ]
    page = client.get(url(character)).content.decode()
    assert f"Background: Rolled {number} of 3: {expected}" in page


def test_with_htmx_a_roll_swaps_the_steps_form_with_what_was_rolled(client, tabled, player, dice) -> None:
    index = random.Random(6).randrange(2)
    character = at_traits(tabled, player)
    client.force_login(player)
    response = client.post(
        url(character), {"version": character.version, "action": "roll-impairment"}, headers={"HX-Request": "true"}
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert page.lstrip().startswith('<form method="post"')
    assert 'id="traits-form"' in page
    assert "<h1>" not in page
    name = IMPAIRMENTS[index]["name"]
    assert f"Impairment: Rolled {index + 1} of 2: {name}" in page
    assert f'value="{name}"' in page
    assert f'name="version" value="{saved(character).version}"' in page


def test_when_every_entry_is_taken_the_page_says_why_by_the_button_and_keeps_what_was_typed(
    client, tabled, player
) -> None:
    character = at_traits(tabled, player)
    creation.set_traits(character_id=character.pk, traits=[TraitChoice("impairment", e["name"]) for e in IMPAIRMENTS])
    character = saved(character)
    client.force_login(player)
    data = {"version": character.version, "action": "roll-impairment",
            "trait-0-kind": "impairment", "trait-0-name": "Bad knee", "trait-0-description": "Typed",
            "trait-1-kind": "impairment", "trait-1-name": "Phobia: heights", "trait-1-description": "",
            "trait-2-kind": "background", "trait-2-name": "Newly typed", "trait-2-description": ""}  # fmt: skip

    for headers in ({}, {"HX-Request": "true"}):
        response = client.post(url(character), data, headers=headers)
        page = response.content.decode()
        assert response.status_code == 400
        error = re.search(r'<p class="field-error" id="impairment-roll-error">(.*?)</p>', page).group(1)
        assert error.startswith("Every impairment of the campaign&#x27;s table (2) is on this character already")
        assert 'aria-describedby="impairment-roll-error"' in page
        assert 'value="Newly typed"' in page
        assert ">Typed</textarea>" in page
    assert saved(character).version == character.version


def test_a_roll_from_a_stale_page_is_a_409_by_the_button_with_nothing_changed(client, tabled, player, gm) -> None:
    character = at_traits(tabled, player)
    creation.set_traits(character_id=character.pk, traits=[TraitChoice("background", "Mercenary")], by=gm)
    client.force_login(player)
    data = {"version": character.version, "action": "roll-background", "trait-0-kind": "background",
            "trait-0-name": "Typed on the old page", "trait-0-description": ""}  # fmt: skip
    response = client.post(url(character), data, headers={"HX-Request": "true"})
    page = response.content.decode()
    assert response.status_code == 409
    assert 'id="background-roll-error">This draft was saved somewhere else' in page
    assert 'value="Typed on the old page"' in page
    assert traits(character) == [("background", "Mercenary", "")]
    assert saved(character).document.creation.table_rolls == ()


def test_only_the_owner_and_the_gm_may_roll_on_a_draft(client, tabled, player, gm, other_player, outsider) -> None:
    character = at_traits(tabled, player)
    data = {"version": character.version, "action": "roll-background"}
    for intruder in (other_player, outsider):
        client.force_login(intruder)
        assert client.post(url(character), data).status_code == 404
    assert saved(character).version == character.version
    client.logout()
    assert "login" in client.post(url(character), data)["Location"]
    client.force_login(gm)  # the GM may help, as with every step
    assert client.post(url(character), data).status_code == 302
    assert len(traits(character)) == 1


def test_a_roll_before_the_step_is_reached_goes_back_to_where_the_draft_is(client, tabled, player) -> None:
    character = creation.start_character(campaign=tabled, owner=player, name="Early")
    client.force_login(player)
    response = client.post(url(character), {"version": character.version, "action": "roll-background"})
    assert response["Location"] == reverse("characters:create-step", args=[character.pk, "abilities"])
    assert traits(character) == []


def test_the_demo_campaign_keeps_a_small_table_of_each() -> None:
    from games.lucky13 import demo

    demo.load()
    options = Campaign.objects.get(name=demo.CAMPAIGN).settings
    assert [e["name"] for e in options["background_table"]][:3] == ["Ex-soldier", "Smuggler", "Scholar"]
    assert "Phobia: heights" in [e["name"] for e in options["impairment_table"]]
