"""Luck points: spending one, the GM's call on how heroic it was, and what comes back at the adventure's end
(rules text, "luck points"; rules README, "Heroism is the GM's call")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.systems.base import SpecError
from rules.systems.d6.luck import (
    MAX_EXPLANATION,
    MAX_POINTS,
    STARTING_POINTS,
    Heroism,
    Kind,
    LuckError,
    LuckState,
    Spend,
    end_adventure,
    judge,
    spend,
)

PROPERTY = settings(max_examples=80, deadline=None, derandomize=True, database=None)

ESCAPE = "Debris tore a hole into an old subway station and I dove in."


def spent(state: LuckState, kind: str, heroism: str, explanation: str = "") -> tuple[LuckState, Spend]:
    """A point spent by the player, then judged by the GM."""
    state, entry = spend(state, kind, explanation)
    return judge(state, entry.id, heroism)


def test_every_character_starts_with_one_luck_point() -> None:
    # "Every character starts with one Luck Point."
    assert STARTING_POINTS == 1
    assert LuckState() == LuckState(points=1, spends=(), spent=0)


def test_the_player_spends_and_the_gm_judges_how_heroic_it_was() -> None:
    state, entry = spend(LuckState(), "double")
    assert entry == Spend(1, Kind.DOUBLE, None, "")
    assert (state.points, state.spends, state.owed) == (0, (entry,), ())

    state, judged = judge(state, 1, "heroic")
    assert judged == Spend(1, Kind.DOUBLE, Heroism.HEROIC, "")
    assert state.owed == (judged,)
    # The GM may change the call until the adventure ends.
    state, changed = judge(state, 1, Heroism.UNHEROIC)
    assert (state.spends, state.owed) == ((changed,), ())
    with pytest.raises(LuckError, match="not a luck point spent this adventure") as refused:
        judge(state, 2, "heroic")
    assert refused.value.field == "spend"
    with pytest.raises(LuckError) as refused:
        judge(state, 1, "brave")
    assert refused.value.field == "heroism"


def test_a_spend_the_gm_never_judged_is_gone_at_the_adventures_end() -> None:
    state, _ = spend(LuckState(), "double")
    assert end_adventure(state) == LuckState(points=0, spends=(), spent=1)


def test_an_unheroic_spend_is_gone() -> None:
    # "When you're unheroic, you spend the point and it's gone."
    state, entry = spent(LuckState(), "double", "unheroic")

    assert entry == Spend(1, Kind.DOUBLE, Heroism.UNHEROIC, "")
    assert not entry.returned
    assert state.points == 0
    assert end_adventure(state) == LuckState(points=0, spends=(), spent=1)


def test_a_heroic_spend_comes_back_at_the_adventures_end() -> None:
    # "Heroic, you'll get it back at the end of the adventure."
    state, entry = spent(LuckState(), Kind.DOUBLE, Heroism.HEROIC)

    assert entry.returned
    assert state.points == 0
    assert state.owed == (entry,)
    assert end_adventure(state) == LuckState(points=1, spends=(), spent=1)


def test_a_dramatic_spend_comes_back_and_the_gm_may_add_one() -> None:
    # "Heroic at a dramatically appropriate moment, you'll get the luck point back and probably
    # another one as well." Reading: the GM decides.
    state, entry = spent(LuckState(), Kind.ESCAPE, Heroism.DRAMATIC, ESCAPE)

    assert end_adventure(state) == LuckState(points=1, spends=(), spent=1)
    assert end_adventure(state, extra_for={entry.id}) == LuckState(points=2, spends=(), spent=1)


def test_an_adventure_of_several_spends() -> None:
    state = LuckState(points=3)
    state, unheroic = spent(state, "double", "unheroic")
    state, heroic = spent(state, "double", "heroic", "For the kids in the bus")
    state, dramatic = spent(state, "escape", "dramatic", ESCAPE)

    assert [unheroic.id, heroic.id, dramatic.id] == [1, 2, 3]
    assert state.points == 0
    assert state.owed == (heroic, dramatic)
    after = end_adventure(state, extra_for=[dramatic.id])
    assert after == LuckState(points=3, spends=(), spent=3)

    # Ids go on from where they stopped: a spend of the next adventure is not mistaken for an old one.
    _, next_entry = spend(after, "double")
    assert next_entry.id == 4


def test_no_point_left_is_refused() -> None:
    state, _ = spent(LuckState(), "double", "heroic")

    with pytest.raises(LuckError, match="no luck point left to spend; 1 comes back at the adventure's end") as refused:
        spend(state, "double")
    assert refused.value.field == "points"
    with pytest.raises(LuckError, match=r"no luck point left to spend$"):
        spend(LuckState(points=0), "escape", ESCAPE)


def test_escaping_certain_death_needs_an_explanation() -> None:
    # "You're automatically safe. But you have to explain why"
    for missing in ("", "   \n "):
        with pytest.raises(LuckError, match="explain how the character got away") as refused:
            spend(LuckState(), "escape", missing)
        assert refused.value.field == "explanation"

    _, entry = spend(LuckState(), "escape", f"  {ESCAPE}\r\n")
    assert entry.explanation == ESCAPE
    assert entry.kind is Kind.ESCAPE


def test_a_doubling_may_carry_a_note() -> None:
    _, entry = spend(LuckState(), "double", "Hold the door")

    assert entry.explanation == "Hold the door"


def test_the_explanation_has_a_length_and_no_control_characters() -> None:
    _, entry = spend(LuckState(), "escape", "x" * MAX_EXPLANATION)
    assert len(entry.explanation) == MAX_EXPLANATION

    for bad in ("x" * (MAX_EXPLANATION + 1), "a\x00b", 42):
        with pytest.raises(LuckError) as refused:
            spend(LuckState(), "escape", bad)  # type: ignore[arg-type]
        assert refused.value.field == "explanation"


def test_a_line_break_is_allowed_in_an_explanation() -> None:
    _, entry = spend(LuckState(), "escape", "The floor gave way.\nI fell into the river.")

    assert "\n" in entry.explanation


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(LuckError) as refused:
        spend(LuckState(), "reroll")

    assert refused.value.field == "kind"
    assert isinstance(refused.value, SpecError)


def test_the_gm_grants_an_extra_point_only_to_a_dramatic_spend() -> None:
    state = LuckState(points=3)
    state, heroic = spent(state, "double", "heroic")
    state, unheroic = spent(state, "double", "unheroic")
    state, unjudged = spend(state, "double")

    with pytest.raises(LuckError, match="spend 1 was heroic: only a spend at a dramatically") as refused:
        end_adventure(state, extra_for={heroic.id})
    assert refused.value.field == "extra_for"
    with pytest.raises(LuckError, match="spend 3 was not judged: only"):
        end_adventure(state, extra_for={unjudged.id})
    with pytest.raises(LuckError, match="spend 2 was unheroic: only"):
        end_adventure(state, extra_for={unheroic.id})
    for not_spent in (99, "1", True):
        with pytest.raises(LuckError, match="is not a spend of this adventure"):
            end_adventure(state, extra_for={not_spent})
    with pytest.raises(LuckError, match="a set of ids"):
        end_adventure(state, extra_for="1")  # type: ignore[arg-type]


def test_an_adventure_with_nothing_spent_changes_nothing() -> None:
    assert end_adventure(LuckState()) == LuckState()


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: LuckState(points=-1), "points"),
        (lambda: LuckState(points=MAX_POINTS + 1), "points"),
        (lambda: LuckState(points=True), "points"),
        (lambda: LuckState(spent=-1), "spent"),
        (lambda: LuckState(spends=(Spend(1, Kind.DOUBLE, Heroism.HEROIC),), spent=0), "spends"),
        (
            lambda: LuckState(
                spends=(Spend(1, Kind.DOUBLE, Heroism.HEROIC), Spend(1, Kind.DOUBLE, Heroism.HEROIC)), spent=2
            ),
            "spends",
        ),
        (lambda: LuckState(spends=("spend",), spent=1), "spends"),
        (lambda: Spend(0, Kind.DOUBLE, Heroism.HEROIC), "id"),
        (lambda: Spend(1, "reroll", Heroism.HEROIC), "kind"),
        (lambda: Spend(1, Kind.DOUBLE, "brave"), "heroism"),
        (lambda: Spend(1, Kind.DOUBLE, Heroism.HEROIC, None), "explanation"),
    ],
)
def test_a_state_that_cannot_be_is_refused(make: object, field: str) -> None:
    with pytest.raises(LuckError) as refused:
        make()  # type: ignore[operator]

    assert refused.value.field == field


def test_the_points_stay_within_bounds_at_the_end() -> None:
    state, entry = spent(LuckState(points=MAX_POINTS), "escape", "dramatic", ESCAPE)

    assert end_adventure(state).points == MAX_POINTS
    with pytest.raises(LuckError, match=f"at most {MAX_POINTS}"):
        end_adventure(state, extra_for={entry.id})


@PROPERTY
@given(st.integers(1, 20), st.lists(st.sampled_from([*Heroism, None]), max_size=20), st.data())
def test_what_comes_back_is_one_per_heroic_spend_and_the_gms_extras(
    start: int, heroisms: list[Heroism | None], data: st.DataObject
) -> None:
    state = LuckState(points=start)
    spends = []
    for heroism in heroisms:
        if state.points == 0:
            break
        state, entry = spend(state, "escape", ESCAPE)
        if heroism is not None:
            state, entry = judge(state, entry.id, heroism)
        spends.append(entry)
    dramatic = [s.id for s in spends if s.heroism is Heroism.DRAMATIC]
    extra = set(data.draw(st.lists(st.sampled_from(dramatic), unique=True) if dramatic else st.just([])))

    after = end_adventure(state, extra_for=extra)

    assert state.points == start - len(spends)
    assert after.points == state.points + sum(s.returned for s in spends) + len(extra)
    assert after.spends == ()
    assert after.spent == len(spends)
