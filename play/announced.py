"""What the announcement of a saved character shows, read with it: its owner, its campaign, its balances and
``fighting_in``, the campaign of the running encounter it fights in (or None). The live pages read a
character so (``play.live.announced_characters``), and a move reads the character it locks so
(``play.moves.make``), which is then announced as the move saved it, without reading it again."""

from __future__ import annotations

from django.db.models import OuterRef, Subquery

from characters.models import CharacterQuerySet
from play.models import Combatant


def read_as_announced(characters: CharacterQuerySet) -> CharacterQuerySet:
    """``characters`` with all their announcements show, in the same query."""
    fighting = Combatant.objects.filter(character=OuterRef("pk"), removed=False, encounter__ended_at__isnull=True)
    return (
        characters.select_related("owner", "campaign")
        .with_balances()
        .annotate(fighting_in=Subquery(fighting.values("encounter__campaign_id")[:1]))
    )
