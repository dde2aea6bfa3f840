"""On PostgreSQL, the lock a roll takes on its campaign and the read of the log's head under it, in one statement:
``play_roll_head(campaign, user, now)`` moves the campaign's last activity to ``now`` (an UPDATE, which takes the
row's lock, waiting for a roll under way), then reads the campaign, the role of ``user`` in it and the number and
hash of its last roll. Each statement of a PL/pgSQL function takes a snapshot of its own when it starts, so the
read, made once the lock is held, sees every roll and membership committed while the UPDATE waited (a read in the
locking statement would not). No row when there is no such campaign. ``play.rolls`` calls it; SQLite sends the
UPDATE and the read one after the other."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION play_roll_head(p_campaign bigint, p_user integer, p_now timestamptz)
RETURNS TABLE (campaign campaigns_campaign, roller_role varchar, last_seq integer, last_hash varchar)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    UPDATE campaigns_campaign SET last_activity_at = p_now WHERE id = p_campaign;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    RETURN QUERY
    SELECT c,
           (SELECT m.role FROM campaigns_membership m WHERE m.campaign_id = c.id AND m.user_id = p_user LIMIT 1),
           r.seq,
           r.hash
    FROM campaigns_campaign c
    LEFT JOIN LATERAL (
        SELECT l.seq, l.hash FROM play_roll l WHERE l.campaign_id = c.id ORDER BY l.seq DESC LIMIT 1
    ) r ON true
    WHERE c.id = p_campaign;
END;
$$;
"""

DROP = "DROP FUNCTION IF EXISTS play_roll_head(bigint, integer, timestamptz);"


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [("play", "0014_roll_chance_length"), ("campaigns", "0010_players_call_rolls")]

    operations = [migrations.RunPython(create, drop, elidable=False)]
