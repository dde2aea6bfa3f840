"""A campaign's own tables of backgrounds and impairments ("Backgrounds": "players may roll for or
choose from during character creation"; "Impairments": "either rolled for or selected"): the options
that hold them, and the server's roll on one, uniform among the entries not taken yet."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from pydantic import ValidationError

from rules.systems import lucky13
from rules.systems.lucky13 import SheetError

TABLE = [
    {"name": "Ex-soldier", "description": "Served a lord who lost a war."},
    {"name": "Smuggler", "description": "Knows the back canals."},
    {"name": "Scholar"},
    {"name": "Temple orphan", "description": ""},
]


def options(**tables) -> dict:
    return lucky13.validate_options(tables)


# --- The options ----------------------------------------------------------------------------------


def test_there_is_no_table_by_default() -> None:
    cleaned = lucky13.validate_options({})
    assert cleaned["background_table"] == []
    assert cleaned["impairment_table"] == []
    assert lucky13.read_options(cleaned).background_table == ()


def test_a_good_table_is_kept_trimmed_with_every_description_said() -> None:
    cleaned = options(
        background_table=[{"name": "  Ex-soldier ", "description": " Served  a lord. "}, {"name": "Smuggler"}],
        impairment_table=[{"name": "Bad knee", "description": None}, {"name": "Phobia: heights"}],
    )
    assert cleaned["background_table"] == [
        {"name": "Ex-soldier", "description": "Served a lord."},
        {"name": "Smuggler", "description": ""},
    ]
    assert [e["name"] for e in cleaned["impairment_table"]] == ["Bad knee", "Phobia: heights"]
    typed = lucky13.read_options(cleaned)
    assert typed.impairment_table[1] == lucky13.TableEntry(name="Phobia: heights")


@pytest.mark.parametrize(
    ("table", "path", "message"),
    [
        ("Ex-soldier, Smuggler", "background_table", "must be a list"),
        ({"name": "Smuggler"}, "background_table", "must be a list"),
        ([{"name": "Smuggler"}, {"name": "SMUGGLER"}], "background_table",
         "the table lists SMUGGLER twice: each background once"),
        ([{"name": "Smuggler"}, {"name": " smuggler  "}], "background_table",
         "the table lists smuggler twice: each background once"),
        ([{"name": f"Past {i}"} for i in range(101)], "background_table", "must have at most 100 entries"),
        ([{"name": ""}], "background_table.0.name", "needs a name"),
        ([{"name": "   "}], "background_table.0.name", "needs a name"),
        ([{"description": "No name"}], "background_table.0.name", "is missing"),
        ([{"name": 7}], "background_table.0.name", "must be text"),
        ([{"name": "x" * 61}], "background_table.0.name", "must be at most 60 characters"),
        ([{"name": "Bell\x00ringer"}], "background_table.0.name", "must not contain control characters"),
        (["Smuggler"], "background_table.0", "must be an object"),
        ([{"name": "Smuggler", "level": 2}], "background_table.0.level", "is not expected here"),
        ([{"name": "Smuggler", "description": 3}], "background_table.0.description", "must be text"),
        ([{"name": "Smuggler", "description": "x" * 201}], "background_table.0.description",
         "must be at most 200 characters"),
        ([{"name": "Smuggler", "description": "a\x07b"}], "background_table.0.description",
         "must not contain control characters"),
    ],
)  # fmt: skip
def test_a_bad_table_is_refused_in_words_by_its_option_and_at_its_path(table, path, message) -> None:
    with pytest.raises(lucky13.OptionsError) as refused:
        lucky13.validate_options({"background_table": table})
    assert set(refused.value.errors) == {"background_table"}
    assert refused.value.at == {path: message}
    where = path.removeprefix("background_table").removeprefix(".")
    said = where.replace("0", "row 1").replace(".", ", ")
    assert refused.value.errors["background_table"] == (f"{said}: {message}" if where else message)


def test_the_impairment_table_is_named_in_its_own_words() -> None:
    with pytest.raises(lucky13.OptionsError) as refused:
        lucky13.validate_options({"impairment_table": [{"name": "Bad knee"}, {"name": "bad knee"}]})
    assert refused.value.errors == {"impairment_table": "the table lists bad knee twice: each impairment once"}


def test_a_table_of_exactly_100_is_allowed() -> None:
    assert len(options(impairment_table=[{"name": f"Scar {i}"} for i in range(100)])["impairment_table"]) == 100


def test_the_options_model_refuses_what_validation_refuses() -> None:
    """The model is the options' contract for the API: it refuses the same tables."""
    base = lucky13.validate_options({})
    with pytest.raises(ValidationError, match="lists a twice"):
        lucky13.Options.model_validate({**base, "background_table": [{"name": "A"}, {"name": "a"}]})
    with pytest.raises(ValidationError):
        lucky13.Options.model_validate({**base, "impairment_table": [{"name": f"S{i}"} for i in range(101)]})
    with pytest.raises(ValidationError):
        lucky13.Options.model_validate({**base, "impairment_table": [{"name": ""}]})
    schema = lucky13.Options.model_json_schema()
    assert schema["properties"]["background_table"]["maxItems"] == lucky13.MAX_TABLE_ENTRIES


# --- The roll -------------------------------------------------------------------------------------


class Fixed(random.Random):
    """A "random" source whose draw is ``index``: the roll's one use of the rng is ``randrange(n)``."""

    def __init__(self, index: int) -> None:
        super().__init__(0)
        self.index = index
        self.asked: list[int] = []

    def randrange(self, n, *args, **kwargs) -> int:  # type: ignore[override]
        self.asked.append(n)
        return self.index


def test_the_roll_is_the_drawn_index_of_a_seeded_rng() -> None:
    table = options(background_table=TABLE)
    for seed in range(20):
        expected = random.Random(seed).randrange(len(TABLE))
        draw = lucky13.roll_on_table("background", table, [], random.Random(seed))
        assert (draw.number, draw.of, draw.among) == (expected + 1, 4, 4)
        assert draw.name == TABLE[expected]["name"]
        assert draw.description == TABLE[expected].get("description", "")


def test_each_entry_is_one_draw_of_n_so_the_roll_is_uniform() -> None:
    """The roll asks the rng for one of n equally likely values and maps them one to one onto the
    entries: each entry is drawn by exactly one of them, so each has chance 1/n."""
    table = options(background_table=TABLE)
    drawn = Counter()
    for index in range(len(TABLE)):
        rng = Fixed(index)
        drawn[lucky13.roll_on_table("background", table, [], rng).name] += 1
        assert rng.asked == [len(TABLE)]
    assert drawn == Counter({entry["name"]: 1 for entry in TABLE})


def test_every_entry_is_reached_by_a_seeded_rng() -> None:
    table = options(background_table=TABLE)
    rng = random.Random(13)
    seen = {lucky13.roll_on_table("background", table, [], rng).number for _ in range(200)}
    assert seen == {1, 2, 3, 4}


def test_an_entry_already_taken_is_never_drawn_again() -> None:
    """Our reading: no trait twice; rolling again on a taken entry is drawing among those left."""
    table = options(background_table=TABLE)
    for index in range(2):
        rng = Fixed(index)
        draw = lucky13.roll_on_table("background", table, ["smuggler", "EX-SOLDIER"], rng)
        assert rng.asked == [2]
        assert (draw.name, draw.number, draw.among) == (["Scholar", "Temple orphan"][index], index + 3, 2)
    rng = random.Random(5)
    for _ in range(100):
        assert lucky13.roll_on_table("background", table, ["Smuggler", "Ex-soldier", "Scholar"], rng).number == 4


def test_the_kind_matters_a_background_does_not_take_an_impairment() -> None:
    both = options(background_table=[{"name": "Hunted"}], impairment_table=[{"name": "Hunted"}])
    assert lucky13.roll_on_table("impairment", both, [], random.Random(1)).name == "Hunted"


def test_when_every_entry_is_taken_the_roll_is_refused_and_says_why() -> None:
    table = options(impairment_table=[{"name": "Bad knee"}, {"name": "Phobia: heights"}])
    with pytest.raises(SheetError) as refused:
        lucky13.roll_on_table("impairment", table, ["bad knee", "Phobia: Heights"], random.Random(1))
    assert refused.value.field == "impairment_roll"
    assert "every impairment of the campaign's table (2) is on this character already" in refused.value.message


def test_without_a_table_there_is_nothing_to_roll() -> None:
    with pytest.raises(SheetError, match="this campaign has no table of backgrounds"):
        lucky13.roll_on_table("background", options(), [], random.Random(1))
    with pytest.raises(SheetError, match="a table is of backgrounds or of impairments"):
        lucky13.roll_on_table("asset", options(), [], random.Random(1))


def test_a_draw_says_itself() -> None:
    draw = lucky13.roll_on_table("background", options(background_table=TABLE), [], Fixed(1))
    assert draw.said == "Rolled 2 of 4: Smuggler"


def test_a_roll_on_record_points_at_its_trait_and_stays_in_the_table() -> None:
    record = {"kind": "background", "roll": 2, "of": 4, "name": "Smuggler", "trait": 1}
    assert lucky13.TableRoll.model_validate(record).roll == 2
    with pytest.raises(ValidationError, match="past the table"):
        lucky13.TableRoll.model_validate({**record, "roll": 5})
    sheet = {"creation": {"table_rolls": [record]}, "next_id": 1}
    with pytest.raises(ValidationError, match="never had"):
        lucky13.Sheet.model_validate(sheet)
    assert lucky13.Sheet.model_validate({**sheet, "next_id": 2}).creation.table_rolls[0].trait == 1
