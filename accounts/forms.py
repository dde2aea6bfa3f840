"""The sign-up, account and password-reset forms; every other auth form is Django's own."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.contrib.auth.models import User

from web.site import site_domain, site_is_https

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


class SiteLinkPasswordResetForm(PasswordResetForm):
    """Django's reset form, its link always on ``SITE_URL``.

    Django builds the link on the request's Host (``RequestSite``) and its scheme: whoever can get a
    request with another Host through would receive the reset token at their own site.
    """

    def save(self, **kwargs: Any) -> None:
        kwargs.update(domain_override=site_domain(), use_https=site_is_https())
        super().save(**kwargs)
