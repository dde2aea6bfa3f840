"""On PostgreSQL, a roll appended to its campaign's log in one statement: ``play_roll_append(campaign, user,
now, roles, character, in_play, system, last_seq, last_hash, row)`` locks the campaign's row (waiting for a roll
under way), then reads the campaign, the role of ``user`` in it, the number and hash of its last roll and, with
``character``, that character's status in the campaign (None: not in it). Each statement of a PL/pgSQL function
takes a snapshot of its own when it starts, so the read, made once the lock is held, sees every roll, membership
and character committed while the lock was waited for (a read in the locking statement would not).

``row`` is the roll as ``play.rolls`` made it and signed it for the head it expected (``system``, ``last_seq``,
``last_hash``; both None for an empty log): it is written, and the campaign's last activity moved to ``now``,
only when the head is the one expected, ``user``'s role is one of ``roles``, the campaign is not archived, its
system is ``system`` and the character, if any, is ``in_play`` (the status of a character in play); otherwise
nothing is written and the caller, told what the function read, refuses the roll or makes it again for the head
it now knows. Without ``row``, the function only locks and reads. No row when there is no such campaign. It
replaces ``play_roll_head`` (migration play.0015), which moved the last activity and read the head, the roll
then sent by a statement of its own.

The roll's columns are named here: ``tests/play/test_roll_append.py`` fails when the model has one more."""

import importlib

from django.db import migrations

#: The function this one replaces, dropped here and made again if this migration is reversed.
HEAD = importlib.import_module("play.migrations.0015_roll_head_function")

CREATE = """
CREATE OR REPLACE FUNCTION play_roll_append(
    p_campaign bigint, p_user integer, p_now timestamptz, p_roles varchar[], p_character bigint,
    p_in_play varchar, p_system varchar, p_last_seq integer, p_last_hash varchar, p_row jsonb
)
RETURNS TABLE (
    campaign campaigns_campaign, roller_role varchar, last_seq integer, last_hash varchar,
    character_status varchar, roll_id bigint
)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    c campaigns_campaign;
    role varchar;
    head_seq integer;
    head_hash varchar;
    status varchar;
    made bigint;
BEGIN
    SELECT * INTO c FROM campaigns_campaign WHERE id = p_campaign FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT m.role INTO role FROM campaigns_membership m WHERE m.campaign_id = p_campaign AND m.user_id = p_user
    LIMIT 1;
    SELECT l.seq, l.hash INTO head_seq, head_hash FROM play_roll l WHERE l.campaign_id = p_campaign
    ORDER BY l.seq DESC LIMIT 1;
    IF p_character IS NOT NULL THEN
        SELECT ch.status INTO status FROM characters_character ch WHERE ch.id = p_character
        AND ch.campaign_id = p_campaign;
    END IF;
    IF p_row IS NOT NULL AND role = ANY(p_roles) AND c.archived_at IS NULL AND c.system = p_system
       AND (p_character IS NULL OR status = p_in_play)
       AND head_seq IS NOT DISTINCT FROM p_last_seq AND head_hash IS NOT DISTINCT FROM p_last_hash THEN
        UPDATE campaigns_campaign SET last_activity_at = p_now WHERE id = p_campaign RETURNING * INTO c;
        INSERT INTO play_roll (
            campaign_id, by_id, character_id, kind, system, label, spec, dice, total, outcome, chance, chance_of,
            secret, created_at, seq, follows, prev_hash, hash, key_id
        )
        SELECT p_campaign, r.by_id, r.character_id, r.kind, p_system, r.label, r.spec, r.dice, r.total, r.outcome,
               r.chance, r.chance_of, r.secret, r.created_at, r.seq, r.follows, r.prev_hash, r.hash, r.key_id
        FROM jsonb_populate_record(NULL::play_roll, p_row) r
        RETURNING id INTO made;
    END IF;
    RETURN QUERY SELECT c, role, head_seq, head_hash, status, made;
END;
$$;
"""

DROP = (
    "DROP FUNCTION IF EXISTS play_roll_append(bigint, integer, timestamptz, varchar[], bigint, varchar, varchar, "
    "integer, varchar, jsonb);"
)


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)
        schema_editor.execute(HEAD.DROP)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(HEAD.CREATE)
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("play", "0015_roll_head_function")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
