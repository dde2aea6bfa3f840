"""The sign-up and account forms; every other auth form is Django's own."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User

EMAIL_HELP = "Used only to send you a link when you forget your password."


class SignupForm(UserCreationForm):
    """Username, an optional email address, and a password checked by every AUTH_PASSWORD_VALIDATOR.

    UserCreationForm already refuses a username that differs from a taken one only in case.
    """

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].widget.attrs["autocomplete"] = "username"
        email = self.fields["email"]
        email.required = False
        email.label = "Email address"
        email.help_text = EMAIL_HELP
        email.widget.attrs["autocomplete"] = "email"


class AccountForm(forms.ModelForm):
    """What a player may change on the account page: the address reset links go to."""

    class Meta:
        model = User
        fields = ("email",)
        labels = {"email": "Email address"}
        help_texts = {"email": EMAIL_HELP}
        widgets = {"email": forms.EmailInput(attrs={"autocomplete": "email"})}
