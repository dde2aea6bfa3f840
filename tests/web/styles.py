"""What a page loads and what it names, for the tests of the style sheets (tests/web/test_styles.py): the
classes and ids of rendered HTML, the style sheets and scripts its ``<head>`` names, and the rules of our
style sheets with the classes and ids each selector needs on a page to match anything there."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CSS = ROOT / "static" / "css"
JS = ROOT / "static" / "js"


@dataclass
class Names:
    """The classes and ids an HTML document (or fragment) names, the style sheets and scripts it loads
    from our static files (by their name under ``static/``), and the addresses its htmx attributes ask."""

    classes: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    sheets: list[str] = field(default_factory=list)
    scripts: list[str] = field(default_factory=list)
    asks: set[tuple[str, str]] = field(default_factory=set)


class _Reader(HTMLParser):
    def __init__(self, static_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.static_url = static_url
        self.names = Names()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {key: value or "" for key, value in attrs}
        self.names.classes.update(found.get("class", "").split())
        if found.get("id"):
            self.names.ids.add(found["id"])
        if tag == "link" and found.get("rel") == "stylesheet":
            self.names.sheets.append(self._ours(found.get("href", "")))
        if tag == "script" and found.get("src"):
            self.names.scripts.append(self._ours(found["src"]))
        for verb in ("get", "post"):
            if found.get(f"hx-{verb}"):
                self.names.asks.add((verb, found[f"hx-{verb}"]))

    def _ours(self, url: str) -> str:
        return url.removeprefix(self.static_url)


def names_of(html: str, static_url: str = "/static/") -> Names:
    reader = _Reader(static_url)
    reader.feed(html)
    reader.close()
    return reader.names


@dataclass(frozen=True)
class Rule:
    """One selector of a rule (a rule with a list of selectors is one of these for each), where it is."""

    sheet: str
    selector: str
    media: str

    @property
    def needs(self) -> tuple[frozenset[str], frozenset[str]]:
        """The classes and the ids an element of the page must carry for the selector to match: those it
        names, but not inside ``:not(…)`` (which a page matches by lacking them)."""
        bare = _without_not(self.selector)
        bare = re.sub(r"\[[^\]]*\]", "", bare)  # attribute values may hold dots
        return frozenset(re.findall(r"\.(-?[A-Za-z_][\w-]*)", bare)), frozenset(
            re.findall(r"#(-?[A-Za-z_][\w-]*)", bare)
        )

    def could_match(self, classes: set[str], ids: set[str]) -> bool:
        need_classes, need_ids = self.needs
        return need_classes <= classes and need_ids <= ids


def _without_not(selector: str) -> str:
    out, depth, i = [], 0, 0
    while i < len(selector):
        if depth == 0 and selector.startswith(":not(", i):
            depth, i = 1, i + 5
            continue
        if depth:
            depth += {"(": 1, ")": -1}.get(selector[i], 0)
        else:
            out.append(selector[i])
        i += 1
    return "".join(out)


def _split_top(text: str, separator: str) -> list[str]:
    """``text`` split at ``separator`` outside brackets and strings (``:not(input, label)`` stays whole)."""
    parts, depth, start, quote = [], 0, 0, ""
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def rules_of(sheet: str) -> list[Rule]:
    """Every selector of a style sheet under ``static/`` (``css/base.css``), with the ``@media`` it sits in."""
    text = re.sub(r"/\*.*?\*/", "", (ROOT / "static" / sheet).read_text(), flags=re.S)
    found: list[Rule] = []
    _read_block(sheet, text, "", found)
    return found


def _read_block(sheet: str, text: str, media: str, found: list[Rule]) -> None:
    i = 0
    while True:
        open_ = text.find("{", i)
        if open_ < 0:
            return
        prelude = text[i:open_].strip()
        depth, j = 1, open_ + 1
        while depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        body = text[open_ + 1 : j - 1]
        if prelude.startswith("@media"):
            _read_block(sheet, body, prelude, found)
        elif not prelude.startswith("@"):
            found.extend(Rule(sheet, selector, media) for selector in _split_top(prelude, ","))
        i = j


def sheets() -> list[str]:
    """Our style sheets, by their name under ``static/``."""
    return sorted(f"css/{path.name}" for path in CSS.glob("*.css"))
