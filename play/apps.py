from django.apps import AppConfig


class PlayConfig(AppConfig):
    name = "play"

    def ready(self) -> None:
        # Connect the live-update listeners in every process (web servers, workers and management commands
        # alike), so that every recorded roll is announced; and show a decision that waits on a character on
        # its sheet and the table as its viewer sees it, read with the sheet's character (the sheet's app knows
        # nothing of moves or tables).
        from characters import sheets
        from play import live, moves, table_rows  # noqa: F401  (importing live connects its listeners)

        sheets.also_show(moves.sheet_shows)
        sheets.also_read(moves.with_prompt_open)
        sheets.also_read(table_rows.with_table_read)
