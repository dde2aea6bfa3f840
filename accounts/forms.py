"""The sign-up, log-in, account, token and password-reset forms; every other auth form is Django's own."""

from __future__ import annotations

from typing import Any, Final

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.contrib.auth.models import User
from django.core.validators import MaxLengthValidator

from accounts.models import CanonicalName
from accounts.names import skeleton
from web.fields import TextField
from web.site import site_domain, site_is_https

EMAIL_HELP = "Used only to send you a link when you forget your password."
#: The longest token name: the column's length.
TOKEN_NAME_LENGTH: Final = 60


def refuse_look_alike(username: str | None, *, user_id: int | None = None) -> str | None:
    """``username``, unless it reads like another account's (:mod:`accounts.names`): then a form's error.
    None (a name Django's own check already refused, with its error) passes through."""
    if not username:
        return username
    if CanonicalName.objects.filter(skeleton=skeleton(username)).exclude(user_id=user_id).exists():
        raise forms.ValidationError(
            "That name is taken, or looks just like one that is: choose another.", code="unique"
        )
    return username


class SignupForm(UserCreationForm):
    """Username, an optional email address, and a password checked by every AUTH_PASSWORD_VALIDATOR.

    A username that reads like a taken one (another case, a look-alike letter from another script,
    :mod:`accounts.names`) is refused: nobody can pass for someone else at the table.
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

    def clean_username(self) -> str | None:
        return refuse_look_alike(super().clean_username())


class LoginForm(AuthenticationForm):
    """Django's log-in form, refusing a name longer than any username before a password is checked (its
    own form sets the length on the input only), so that no such name reaches the failure counts."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        username = self.fields["username"]
        username.validators.append(MaxLengthValidator(username.max_length))


class AccountForm(forms.Form):
    """A new email address, for which the current password is asked: whoever finds the account signed
    in somewhere must not be able to point its reset links at themselves."""

    email = forms.EmailField(label="Email address", help_text=EMAIL_HELP, required=False, max_length=254,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))  # fmt: skip
    current_password = forms.CharField(
        label="Your current password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"email": user.email})
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_current_password(self) -> str:
        password = self.cleaned_data["current_password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your current password.", code="password_incorrect")
        return password


class TokenForm(forms.Form):
    """A name for a new API token: one line without control characters, as the API's text is."""

    name = TextField(label="Name", max_length=TOKEN_NAME_LENGTH, help_text="What the token is for, e.g. “dice bot”.")


class SiteLinkPasswordResetForm(PasswordResetForm):
    """Django's reset form, its link always on ``SITE_URL``.

    Django builds the link on the request's Host (``RequestSite``) and its scheme: whoever can get a
    request with another Host through would receive the reset token at their own site.
    """

    def save(self, **kwargs: Any) -> None:
        kwargs.update(domain_override=site_domain(), use_https=site_is_https())
        super().save(**kwargs)
