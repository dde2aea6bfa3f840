"""``{% static %}`` (web/templatetags/kept_static.py) makes the URLs Django's tag makes, keeping each."""

from __future__ import annotations

import re
from pathlib import Path

from django.template import Context, Engine
from django.templatetags.static import static

from web.templatetags import kept_static


def draw(source: str, **values: object) -> str:
    return Engine.get_default().from_string(source).render(Context(values))


def test_the_tag_makes_djangos_urls_and_keeps_them() -> None:
    kept_static.urls.clear()
    assert draw("{% static 'css/base.css' %}") == static("css/base.css")
    assert "css/base.css" in kept_static.urls
    assert draw("{% static 'css/base.css' %}") == static("css/base.css")
    assert draw("{% static path %}", path="js/live.js") == static("js/live.js")
    assert draw("{% static 'css/base.css' as url %}[{{ url }}]") == f"[{static('css/base.css')}]"


def test_a_url_is_escaped_where_the_page_escapes(settings) -> None:
    settings.STATIC_URL = "/s&t/"
    assert draw("{% static 'a b.css' %}") == "/s&amp;t/a%20b.css"
    assert draw("{% autoescape off %}{% static 'a b.css' %}{% endautoescape %}") == "/s&t/a%20b.css"


def test_a_changed_setting_forgets_the_urls(settings) -> None:
    draw("{% static 'css/base.css' %}")
    settings.STATIC_URL = "/elsewhere/"
    assert kept_static.urls == {}
    assert draw("{% static 'css/base.css' %}") == "/elsewhere/css/base.css"


def test_the_prefix_tags_are_djangos() -> None:
    assert draw("{% get_static_prefix %}") == static("")


def test_no_template_of_ours_loads_djangos_tag_in_place_of_the_kept_one() -> None:
    templates = Path(__file__).resolve().parents[2] / "templates"
    loading = [str(path.relative_to(templates)) for path in templates.rglob("*.html")
               if re.search(r"{%\s*load\b[^%]*\bstatic\b", path.read_text())]  # fmt: skip
    assert loading == []
    assert isinstance(Engine.get_default().from_string("{% static 'a.css' %}").nodelist[0], kept_static.KeptStaticNode)
