"""Static files under hashed names, minified and compressed ahead of time, for the server that `make run` starts too.

``collectstatic`` names each file by a hash of its content (``dicehall.3f2a….css``) and writes a ``.br``
and a ``.gz`` beside it (WhiteNoise's ``CompressedManifestStaticFilesStorage``), and WhiteNoise serves a
hashed name with ``Cache-Control: max-age=315360000, public, immutable``. The browser then keeps each file
until its content changes, and never asks again on the next page. Before it hashes them, our own style
sheets and scripts lose their comments and indentation (web/minify.py): the files in ``static/`` stay as
written, only the collected copies are minified, so the hash is that of what is sent.

Django's manifest storage gives the plain names while ``DEBUG`` is on, which `make run` keeps on for
its error pages: :class:`HashedStaticFilesStorage` gives the hashed names in every mode. That is safe
where the files are collected when the server starts, as `make run` and production do
(``STATIC_HASHED=true``): a file edited while it runs shows after a restart. Tests and a bare
``runserver`` keep the plain storage, served from the apps' folders with no ``collectstatic``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from whitenoise.storage import CompressedManifestStaticFilesStorage

from web.minify import minify


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage, our CSS and JS minified, hashed names whatever ``DEBUG`` says.

    A file's URL is kept once made: the manifest is read once, when the storage is made, and names each
    file's hashed name for as long as the process runs (every page names the stylesheets, the scripts and
    the icon, and each ``{% static %}`` would otherwise look the name up and build its URL again). Collecting
    the files again starts afresh."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.urls: dict[str, str] = {}

    def url(self, name: str | None, force: bool = False) -> str:
        if name is None:
            return super().url(name, force=True)
        kept = self.urls.get(name)
        if kept is None:
            kept = self.urls[name] = super().url(name, force=True)
        return kept

    def post_process(self, paths: dict[str, Any], dry_run: bool = False, **options: Any) -> Iterator[Any]:
        """Minifies the collected copies of our files, then hashes and compresses what was collected.

        The manifest storage reads each file from where it was found; it is pointed at the collected copy
        instead, so that the hashed and compressed files are the minified ones.
        """
        self.urls.clear()
        if not dry_run:
            paths = {name: self._minified(name, source, path) for name, (source, path) in paths.items()}
        yield from super().post_process(paths, dry_run=dry_run, **options)

    def _minified(self, name: str, source: Any, path: str) -> tuple[Any, str]:
        """Where the manifest storage should read ``name``: its minified copy here, or where it was found.

        Only the files of the project's own ``static/`` are minified; those of the apps (htmx, the admin)
        come as their authors ship them.
        """
        ours = {str(Path(folder).resolve()) for folder in settings.STATICFILES_DIRS}
        if str(Path(getattr(source, "location", "")).resolve()) not in ours:
            return source, path
        with source.open(path) as original:
            smaller = minify(name, original.read().decode("utf-8"))
        if smaller is None:
            return source, path
        self.delete(name)
        self._save(name, ContentFile(smaller.encode("utf-8")))
        return self, name
