"""Under the settings `make run` uses, static files go out under hashed names, cached for good, and in
Brotli to a browser that asks: collected and compressed once, as the server starts (web/staticfiles.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

#: Serves the style sheet by its URL on a page, as a browser asks for it, and says what came back.
FETCH = """
import json
from django.templatetags.static import static
from django.test import Client
url = static("css/base.css")
response = Client().get(url, headers={"Accept-Encoding": "gzip, deflate, br"})
plain = Client().get(url)
print(json.dumps({
    "url": url, "status": response.status_code, "cache": response["Cache-Control"],
    "encoding": response.get("Content-Encoding"), "vary": response.get("Vary"),
    "plain_encoding": plain.get("Content-Encoding"),
}))
"""


def test_make_run_collects_static_files_and_serves_them_hashed_for_good_and_in_brotli(tmp_path: Path) -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^run: export STATIC_HASHED = true$", makefile, re.MULTILINE)
    assert "$(PY) manage.py collectstatic --noinput" in makefile
    assert re.search(r"^run: \$\(VENV\)/\.installed-base \$\(STATIC_MANIFEST\)$", makefile, re.MULTILINE)
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_ENV", "DEBUG", "DATABASE_URL", "STATIC_ROOT")}
    env.update(STATIC_HASHED="true", STATIC_ROOT=str(tmp_path / "static"), DICEHALL_VAR_DIR=str(tmp_path))

    def manage(*args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    manage("collectstatic", "--noinput", "--verbosity", "0")
    assert list((tmp_path / "static" / "css").glob("base.*.css.br"))
    served = json.loads(manage("shell", "--no-imports", "-c", FETCH).strip().splitlines()[-1])
    assert re.fullmatch(r"/static/css/base\.[0-9a-f]{12}\.css", served["url"]), served["url"]
    assert served["status"] == 200
    max_age = int(re.search(r"max-age=(\d+)", served["cache"]).group(1))
    assert max_age >= 365 * 24 * 3600
    assert "immutable" in served["cache"]
    assert served["encoding"] == "br"
    assert "Accept-Encoding" in served["vary"]
    assert served["plain_encoding"] is None


def test_a_hashed_files_url_is_made_once_from_the_manifest(tmp_path: Path, monkeypatch) -> None:
    from django.contrib.staticfiles.storage import ManifestStaticFilesStorage

    from web.staticfiles import HashedStaticFilesStorage

    (tmp_path / "staticfiles.json").write_text(
        json.dumps({"version": "1.1", "paths": {"css/base.css": "css/base.0123456789ab.css"}, "hash": "x"})
    )
    storage = HashedStaticFilesStorage(location=str(tmp_path), base_url="/static/")
    made: list[str] = []
    stored_name = ManifestStaticFilesStorage.stored_name

    def counted(self, name: str) -> str:
        made.append(name)
        return stored_name(self, name)

    monkeypatch.setattr(ManifestStaticFilesStorage, "stored_name", counted)
    assert storage.url("css/base.css") == "/static/css/base.0123456789ab.css"
    assert storage.url("css/base.css") == "/static/css/base.0123456789ab.css"
    assert made == ["css/base.css"]  # the second time, the URL kept
    with pytest.raises(ValueError, match="Missing staticfiles manifest entry"):
        storage.url("css/nowhere.css")
    assert "css/nowhere.css" not in storage.urls
    list(storage.post_process({}, dry_run=True))  # collecting again forgets what was kept
    assert storage.urls == {}
