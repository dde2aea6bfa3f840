"""Static files under hashed names, compressed ahead of time, for the server that `make run` starts too.

Production stores static files with WhiteNoise's ``CompressedManifestStaticFilesStorage``: ``collectstatic``
names each file by a hash of its content (``dicehall.3f2a….css``) and writes a ``.br`` and a ``.gz`` beside
it, and WhiteNoise serves a hashed name with ``Cache-Control: max-age=315360000, public, immutable``. The
browser then keeps each file until its content changes, and never asks again on the next page.

Django's manifest storage gives the plain names while ``DEBUG`` is on, which `make run` keeps on for
its error pages: :class:`HashedStaticFilesStorage` gives the hashed names in every mode. That is safe
where the files are collected when the server starts, as `make run` does (``STATIC_HASHED=true``):
a file edited while it runs shows after a restart. Tests and a bare ``runserver`` keep the plain
storage, served from the apps' folders with no ``collectstatic``.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """WhiteNoise's compressed manifest storage, hashed names whatever ``DEBUG`` says."""

    def url(self, name: str | None, force: bool = False) -> str:
        return super().url(name, force=True)
