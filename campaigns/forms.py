"""The campaign forms. They only collect what a person typed: every rule about
the options is the rules system's own (``validate_options``), so the form, the
settings page and any future API agree, and its messages appear by the fields."""

from __future__ import annotations

from django import forms

from campaigns.models import Campaign, system_choices
from campaigns.options_form import OptionsForm as OptionsForm
from campaigns.options_form import sentence as sentence
from web.fields import ChoiceField, TextField, TypedChoiceField


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


#: The options forms written for a rules system (``register``); any other system's is made from its
#: options model (:class:`campaigns.options_form.OptionsForm`).
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
