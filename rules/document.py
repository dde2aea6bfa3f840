"""The building blocks of every system's sheet document: a frozen model, stable item ids, and
the text types whose limits every edge (form, API, WebSocket, import) shares.

A sheet is a pydantic model, validated whole. Its list items carry ids that never change and
are never reused (the sheet keeps ``next_id``), so a ledger entry, a roll or an edit points at an
item by id and a rename changes no history (ARCHITECTURE.md, "References").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cache
from typing import Annotated, Any, Final, Protocol

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

__all__ = [
    "MAX_ITEM_ID",
    "MAX_NAME",
    "MAX_SHORT_TEXT",
    "MAX_TEXT",
    "Document",
    "ItemId",
    "LongText",
    "Name",
    "Problem",
    "ShortText",
    "fresh_id",
    "match_names",
    "name_key",
    "plain_words",
    "problems_of",
    "require_unique",
    "schema_of",
    "with_new_ids",
]

#: Longest name of an item (skill, specialization, trait, asset, weapon…): fits its column and a line.
MAX_NAME: Final = 60
#: Longest short phrase of a sheet (a concept).
MAX_SHORT_TEXT: Final = 200
#: Longest free text of a sheet (notes, descriptions); a system sets tighter limits per field.
MAX_TEXT: Final = 20_000
#: Ids fit a JSON number any client reads exactly (2**53).
MAX_ITEM_ID: Final = 2**53

# Control characters (C0, DEL, C1) other than the newline and the tab free text may hold.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _no_control(value: str) -> str:
    if _CONTROL.search(value.replace("\r\n", "\n")):
        raise ValueError("must not contain control characters")
    return unicodedata.normalize("NFC", value)


def _one_line(value: str) -> str:
    if "\n" in value or "\t" in value or "\r" in value:
        raise ValueError("must be on one line")
    collapsed = " ".join(value.split())
    if not collapsed:
        raise ValueError("needs a name")
    return collapsed


#: A stable item id: positive, unique in its list, never reused within a sheet.
ItemId = Annotated[int, Field(ge=1, le=MAX_ITEM_ID, strict=True)]
#: What a name's JSON Schema says of it, as the validators check it: no control character (the tab and
#: the line breaks among them), and at least one character that is not a space.
_NAME_PATTERN: Final = (
    r"^[^\u0000-\u001f\u007f-\u009f]*"
    r"[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
    r"[^\u0000-\u001f\u007f-\u009f]*$"
)
#: The name of an item: one line, no control characters, not blank, trimmed.
Name = Annotated[
    str,
    AfterValidator(_no_control),
    AfterValidator(_one_line),
    Field(max_length=MAX_NAME, json_schema_extra={"pattern": _NAME_PATTERN}),
]
#: A short phrase such as a concept (one line, may be empty).
ShortText = Annotated[
    str, AfterValidator(_no_control), AfterValidator(lambda v: " ".join(v.split())), Field(max_length=MAX_SHORT_TEXT)
]
#: Free text: notes and descriptions (lines allowed, no other control characters).
LongText = Annotated[str, AfterValidator(_no_control), Field(max_length=MAX_TEXT)]


class Document(BaseModel):
    """A frozen part of a sheet document: unknown fields are refused, nothing is changed in place."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=False, validate_default=True)


class _HasId(Protocol):
    id: int


def require_unique(items: Sequence[Any], what: str, *, key: str = "name") -> None:
    """Ids, and names (case-insensitively), are unique in one list of a sheet."""
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise ValueError(f"two {what} have the same id")
    names = [str(getattr(item, key)).casefold() for item in items]
    seen: set[str] = set()
    for name, item in zip(names, items, strict=True):
        if name in seen:
            raise ValueError(f"two {what} are called {getattr(item, key)}")
        seen.add(name)


#: What tells two spellings of one name apart only by their spacing: spaces, hyphens and underscores.
_SPACING = re.compile(r"[\s_-]+")


def name_key(name: str) -> str:
    """A name as it is matched across campaigns: case and spacing aside ("Melee combat", "melee  Combat",
    "Melee-combat" and "MeleeCombat" are one name)."""
    return _SPACING.sub("", unicodedata.normalize("NFC", name)).casefold()


def match_names(ours: Sequence[str], theirs: Sequence[str]) -> dict[int, int]:
    """Each of ``ours`` matched to one of ``theirs`` by name, as the place in each list: first the same
    name case aside, then the same name spacing aside too (:func:`name_key`) where just one of each
    left has it. Each name is matched at most once; one left over is matched to nothing."""
    pairs: dict[int, int] = {}
    taken: set[int] = set()
    folded: dict[str, int] = {}
    for j, name in enumerate(theirs):
        folded.setdefault(name.casefold(), j)
    for i, name in enumerate(ours):
        same = folded.get(name.casefold())
        if same is not None and same not in taken:
            pairs[i] = same
            taken.add(same)
    keys_ours: dict[str, list[int]] = {}
    for i, name in enumerate(ours):
        if i not in pairs:
            keys_ours.setdefault(name_key(name), []).append(i)
    keys_theirs: dict[str, list[int]] = {}
    for j, name in enumerate(theirs):
        if j not in taken:
            keys_theirs.setdefault(name_key(name), []).append(j)
    for key, mine in keys_ours.items():
        others = keys_theirs.get(key, [])
        if len(mine) == 1 and len(others) == 1:
            pairs[mine[0]] = others[0]
    return pairs


def fresh_id(next_id: int, lists: Iterable[Sequence[_HasId]]) -> int:
    """The id for a new item: past every id the sheet holds or has ever handed out."""
    return max([next_id, *(item.id + 1 for items in lists for item in items)])


def _item_ids(node: Any) -> Iterator[int]:
    """Every id of a list item in a JSON document, at any depth."""
    if isinstance(node, Mapping):
        for child in node.values():
            yield from _item_ids(child)
    elif isinstance(node, list | tuple):
        for child in node:
            if isinstance(child, Mapping) and isinstance(child.get("id"), int) and not isinstance(child["id"], bool):
                yield child["id"]
            yield from _item_ids(child)


def with_new_ids(document: Mapping[str, Any], value: Mapping[str, Any]) -> dict[str, Any]:
    """``document`` (JSON-ready) with ``value``'s fields put in, where each list item of ``value`` that
    comes without an id (or with ``None``) is new and gets a fresh one, past every id the sheet holds or
    has handed out; ``next_id``, when the document keeps it, moves past them. A form or an API client
    adds an item by leaving its id out, and never picks one."""
    merged = {**document, **value}
    start = max([int(document.get("next_id") or 1), *(i + 1 for i in _item_ids(merged))])
    given = 0

    def fill(node: Any, in_list: bool) -> Any:
        nonlocal given
        if isinstance(node, Mapping):
            out = {key: fill(child, False) for key, child in node.items()}
            if in_list and out.get("id") is None:
                out = {"id": start + given, **{k: v for k, v in out.items() if k != "id"}}
                given += 1
            return out
        if isinstance(node, list | tuple):
            return [fill(child, True) for child in node]
        return node

    filled = {key: fill(child, False) for key, child in value.items()}
    merged.update(filled)
    if given and "next_id" in document:
        merged["next_id"] = start + given
    return merged


class Problem(BaseModel):
    """One thing wrong with a sheet or a draft, said for a player, and where (a dotted path)."""

    model_config = ConfigDict(frozen=True)
    field: str
    message: str


def problems_of(error: ValidationError) -> tuple[Problem, ...]:
    """A pydantic error as player-readable problems: the path joined by dots, the message in words."""
    return tuple(
        Problem(field=".".join(str(part) for part in item["loc"]) or "sheet", message=plain_words(item))
        for item in error.errors(include_url=False)
    )


#: What pydantic's error types mean, in the words a sheet's messages use (the path says where).
_WORDS: Final = {
    "missing": "is missing",
    "extra_forbidden": "is not expected here",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "string_type": "must be text",
    "string_unicode": "must be text",
    "bool_type": "must be yes or no",
    "bool_parsing": "must be yes or no",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "greater_than_equal": "must be at least {ge}",
    "greater_than": "must be more than {gt}",
    "less_than_equal": "must be at most {le}",
    "less_than": "must be less than {lt}",
    "string_too_long": "must be at most {max_length} characters",
    "too_short": "must have at least {min_length} entries",
    "frozen_instance": "cannot be changed",
}


@cache
def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """``model``'s JSON schema, made once per model (making it walks every field: a page that reads a
    model's titles, labels and bounds would otherwise pay for it on every view). Shared: read it, never
    change it."""
    return model.model_json_schema()


def plain_words(item: Mapping[str, Any]) -> str:
    """One of pydantic's errors (an item of ``ValidationError.errors()``) as a sheet's message: our own
    validators' words as they are, pydantic's own ("Input should be …", "String should have …") said
    for a player, never with a value in quotes."""
    kind, context = item["type"], item.get("ctx") or {}
    if kind in ("value_error", "assertion_error"):
        message = str(item["msg"])
        for prefix in ("Value error, ", "Assertion failed, "):
            message = message.removeprefix(prefix)
        return message
    if kind == "string_too_short":
        least = context.get("min_length", 1)
        return "must not be empty" if least == 1 else f"must be at least {least} characters"
    if kind == "too_long":
        # A text checked after its validators (a Name) is a "Value" here; a list is a "List" or a "Tuple".
        if context.get("field_type") in ("Value", "String"):
            return f"must be at most {context.get('max_length')} characters"
        return f"must have at most {context.get('max_length')} entries"
    if kind in ("literal_error", "enum"):
        # pydantic lists the values as "'', 'a' or 'b'": said without the quotes, the empty one as "empty".
        values = [value.strip() for value in re.split(r", | or ", str(context.get("expected", ""))) if value.strip()]
        if not values:
            return "must be one of the choices offered"
        said = ["empty" if value == "''" else value.strip("'") for value in values]
        return "must be " + (said[0] if len(said) == 1 else f"{', '.join(said[:-1])} or {said[-1]}")
    words = _WORDS.get(kind)
    if words is None:
        return "is not valid here"
    try:
        return words.format(**context)
    except (KeyError, IndexError):
        return "is not valid here"
