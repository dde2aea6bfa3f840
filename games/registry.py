"""One registry for a system's Django side: a system's package (``games/<key>/``) says in one
:class:`DjangoSide` what it presents that the generic pages cannot make, and :func:`register` hands each
piece to the app that uses it. Every piece is optional, and each app has its generic default: the
section forms and the options form generated from the system's models, the generic creation step
pages, the generic roll page, the attack form made from the system's attack choices, and the API's sheet document
with no named fields."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms

from api import extensions as api_extensions
from campaigns import forms as campaign_forms
from characters import drafting, editing
from characters.editing import SectionEdit
from play import encounter_views, sheet_roll_views

__all__ = ["DjangoSide", "register"]


@dataclass(frozen=True, slots=True)
class DjangoSide:
    """What a system presents itself, each piece in place of the generic one: section forms by section (or
    generated creation step) key, its own creation step forms (each with its page) by step key, a roll
    page, an attack form in an encounter, an options form, and what it adds to the JSON API (named
    fields, a PATCH, endpoints of its own)."""

    section_forms: Mapping[str, type[SectionEdit]] = field(default_factory=dict)
    creation_forms: Mapping[str, type[drafting.StepForm]] = field(default_factory=dict)
    roll_page: sheet_roll_views.RollPage | None = None
    attack_form: Callable[[Mapping[str, Any]], encounter_views.AttackForm] | None = None
    options_form: type[forms.Form] | None = None
    api: api_extensions.SystemApi | None = None


def register(key: str, side: DjangoSide) -> None:
    """Hand each piece of ``side`` to the app that presents it, for campaigns of system ``key``."""
    if side.section_forms:
        editing.register(key, side.section_forms)
    if side.creation_forms:
        drafting.register(key, side.creation_forms)
    if side.roll_page is not None:
        sheet_roll_views.register(key, side.roll_page)
    if side.attack_form is not None:
        encounter_views.register_attack_form(key, side.attack_form)
    if side.options_form is not None:
        campaign_forms.register(key, side.options_form)
    if side.api is not None:
        api_extensions.register(key, side.api)
