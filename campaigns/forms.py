"""The campaign forms. They only collect what a person typed: every rule about
the options is the rules system's own (``validate_options``), so the form, the
settings page and any future API agree, and its messages appear by the fields."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django import forms

from campaigns.models import Campaign, system_choices
from rules.systems.base import Option, OptionsError, RulesSystem
from web.fields import ChoiceField, TextField, TypedChoiceField, WholeNumberField


def sentence(message: str) -> str:
    """The engine's messages continue a label ("must be …"); shown alone they start with a capital."""
    return message[:1].upper() + message[1:]


class CampaignForm(forms.Form):
    name = TextField(max_length=120)
    description = TextField(
        lines=True,
        required=False,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="What the players should know: the setting, the tone, when you play.",
    )
    players_call_rolls = forms.BooleanField(
        label="Players may roll freely, not only what the GM calls",
        required=False,
        help_text="Off: players roll what you call for (roll requests on the dashboard). On: they may also roll "
        "freely from their sheets, and those rolls are marked self-called.",
    )


class NewCampaignForm(CampaignForm):
    #: Offered first: the model's default system.
    system = ChoiceField(
        label="Rules system", choices=system_choices, initial=lambda: Campaign._meta.get_field("system").get_default()
    )


def is_list(option: Option) -> bool:
    return isinstance(option.default, list | tuple)


def lines(text: str) -> list[str]:
    """A list option's items as typed, one a line: a name keeps its spaces ("Spot Hidden")."""
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


class OptionsForm(forms.Form):
    """A system's options as its ``option_fields`` describe them, one field each: a choice among its
    ``choices``, a number for a whole-number default, a yes/no for a true-or-false one, a box of
    lines for a list (one item a line, so that a name keeps its spaces), text otherwise. The rules
    are the system's own (``validate_options``), and its messages go by the fields."""

    template = "campaigns/_options_form.html"

    def __init__(
        self, data: Any = None, *, system: RulesSystem, options: dict[str, Any], known_skills: Collection[str] = ()
    ) -> None:
        super().__init__(data, initial={})
        self.system = system
        for option in system.option_fields:
            value = options.get(option.key, option.default)
            self.fields[option.key] = _option_field(option)
            self.initial[option.key] = "\n".join(map(str, value)) if is_list(option) else value
        #: After validation: the options as the rules system cleaned them (no renames: no list to rename in).
        self.options: dict[str, Any] = {}
        self.renames: dict[str, str] = {}

    @staticmethod
    def known(options: dict[str, Any]) -> frozenset[str]:
        """The names characters may already carry (none: a generated form renames nothing)."""
        return frozenset()

    def clean(self) -> dict[str, Any]:
        """The system checks every option the fields could read, so that its messages come with
        the fields' own in one go; an option its field refused is given as None, which the system
        refuses too (that message is not repeated) and which keeps the rules that read it quiet."""
        cleaned = super().clean() or {}
        refused = set(self.errors)
        given: dict[str, Any] = {}
        for option in self.system.option_fields:
            value = cleaned.get(option.key)
            if option.key in refused:
                value = None
            elif is_list(option):
                value = lines(value or "")
            given[option.key] = value
        try:
            self.options = self.system.validate_options(given)
        except OptionsError as error:
            self.add_option_errors({key: message for key, message in error.errors.items() if key not in refused})
        return cleaned

    def add_option_errors(self, errors: dict[str, str]) -> None:
        for key, message in errors.items():
            self.add_error(key if key in self.fields else None, sentence(message))


def _option_field(option: Option) -> forms.Field:
    common = {"label": option.label, "help_text": option.help}
    if option.choices:
        return ChoiceField(choices=option.choices, widget=forms.RadioSelect, **common)
    if isinstance(option.default, bool):
        return forms.BooleanField(required=False, **common)
    if isinstance(option.default, int):
        low = -(10**6) if option.minimum is None else option.minimum
        high = 10**6 if option.maximum is None else option.maximum
        return WholeNumberField(min_value=low, max_value=high, **common)
    if is_list(option):
        help_text = " ".join(filter(None, (option.help, "One a line.")))
        return TextField(
            label=option.label, help_text=help_text, required=False, lines=True, max_length=5000,
            widget=forms.Textarea(attrs={"rows": 4}),
        )  # fmt: skip
    return TextField(required=False, max_length=1000, **common)


#: The options forms written for a rules system (``register``); any other system's is made from its
#: ``option_fields`` (:class:`OptionsForm`).
OPTIONS_FORMS: dict[str, type[forms.Form]] = {}


def register(system: str, form: type[forms.Form]) -> None:
    """Use ``form`` for the options of ``system``'s campaigns."""
    OPTIONS_FORMS[system] = form


EXPIRY_CHOICES = [(1, "1 day"), (7, "7 days"), (30, "30 days")]
USES_CHOICES = [
    ("single", "Single use: one person can join with it"),
    ("multi", "Any number of people until it expires"),
]


class InvitationForm(forms.Form):
    days = TypedChoiceField(
        label="Expires after", choices=EXPIRY_CHOICES, coerce=int, initial=7, widget=forms.RadioSelect
    )
    uses = ChoiceField(label="Uses", choices=USES_CHOICES, initial="single", widget=forms.RadioSelect)

    @property
    def max_uses(self) -> int | None:
        return 1 if self.cleaned_data["uses"] == "single" else None
