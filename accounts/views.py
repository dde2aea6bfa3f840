"""Sign-up, log-in, the account page (email address and API tokens), and what a new password ends.

Django's auth views do everything else (log-out, the password forms) with our templates in
templates/registration/; :mod:`accounts.operations` secures the account after a new password.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urlsplit

from django.contrib import auth, messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from accounts import lockout, operations
from accounts.forms import AccountForm, LoginForm, SignupForm, TokenForm
from api import tokens
from api.models import ApiToken
from campaigns.operations import Refused
from web import limits
from web.site import absolute_url

#: Pages that are no place to land after signing in: the front page (where "Log in" is usually
#: clicked) and the sign-in pages themselves. A ``next`` naming one goes to my campaigns instead.
NOT_ONWARD: Final = ("pages:home", "login", "logout", "signup")


def onward(url: str) -> str:
    """``url`` (already known to be safe) if it is somewhere to go on to after signing in, else ''."""
    if not url:
        return ""
    try:
        match = resolve(urlsplit(url).path or "/")
    except Resolver404:
        return url
    return "" if match.view_name in NOT_ONWARD else url


def safe_next(request: HttpRequest) -> str:
    """The ``next`` the request asks for, if it stays on this site and leads somewhere onward; else ''."""
    url = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return onward(url) if allowed else ""


def landing() -> str:
    """Where a newly signed-in player goes without a ``next``: their campaigns, or home until that page exists."""
    try:
        return reverse("campaigns:list")
    except NoReverseMatch:
        return "/"


class LoginView(auth_views.LoginView):
    """Django's log-in, landing on my campaigns unless ``next`` is a safe page of this site to go on to."""

    authentication_form = LoginForm

    def get_redirect_url(self) -> str:
        return onward(super().get_redirect_url())


_login_view = LoginView.as_view()


@login_not_required
def login(request: HttpRequest) -> HttpResponse:
    """Django's LoginView, except that someone already signed in goes straight on to ``next``.

    (LoginView's own redirect_authenticated_user raises an error when ``next`` is the log-in page.)
    """
    if request.user.is_authenticated:
        return redirect(safe_next(request) or landing())
    if request.method == "POST" and (slowed := lockout.pace(request)) is not None:
        return lockout.too_soon(request, slowed)
    return _login_view(request)


def _ended_words(ended: operations.Ended, *, kept_this_one: bool) -> str:
    """What a new password ended, in words: "2 other sessions of yours logged out, 1 API token revoked"."""
    other = "other " if kept_this_one else ""
    sessions = f"{ended.sessions} {other}session{pluralize(ended.sessions)}"
    revoked = f"{ended.tokens} API token{pluralize(ended.tokens)}"
    told = "; a mail tells you so too" if ended.mailed else ""
    return f"{sessions} of yours logged out, {revoked} revoked{told}."


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's password change, keeping this browser signed in and ending every other session."""

    def form_valid(self, form: Any) -> HttpResponse:
        before = self.request.session.session_key
        response = super().form_valid(form)  # update_session_auth_hash gives this browser a new session key
        keep = {key for key in (before, self.request.session.session_key) if key}
        ended = operations.password_changed(user=form.user, keep=keep)
        messages.success(self.request, f"Your password is changed: {_ended_words(ended, kept_this_one=True)}")
        return response


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """Django's reset by mailed link, ending every session of the account and forgetting its failed
    log-ins (a locked-out owner can log in with the new password at once)."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        ended = operations.password_changed(user=form.user, keep=set())
        lockout.forget_account_failures(form.user)
        messages.success(self.request, f"Your password is set: {_ended_words(ended, kept_this_one=False)}")
        return response


password_change = PasswordChangeView.as_view()
password_reset_confirm = login_not_required(PasswordResetConfirmView.as_view())


@login_not_required
@sensitive_post_parameters("password1", "password2")
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
@limits.limited(limits.SIGNUP, methods=("POST",))
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(safe_next(request) or landing())
    form = SignupForm(request.POST) if request.method == "POST" else SignupForm()
    if form.is_bound and form.is_valid():
        user = form.save()
        auth.login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(safe_next(request) or landing())
    status = 400 if form.errors else 200
    return render(request, "accounts/signup.html", {"form": form, "next": safe_next(request)}, status=status)


def _account_page(request: HttpRequest, *, form: AccountForm, token_form: TokenForm, status: int) -> HttpResponse:
    context = {
        "form": form,
        "tokens": ApiToken.objects.live().filter(user=request.user),
        "token_form": token_form,
    }
    return render(request, "accounts/account.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
@limits.limited(limits.ACCOUNT, methods=("POST",))
def account(request: HttpRequest) -> HttpResponse:
    """The signed-in player's username and email address, with the way to a new password.

    A new address is only asked for here: it takes effect when the link mailed to it is followed
    (:func:`confirm_email`). No address at all takes effect at once (there is nowhere to send a link).
    """
    user = request.user
    form = AccountForm(request.POST if request.method == "POST" else None, user=user)
    if form.is_bound and form.is_valid():
        email = form.cleaned_data["email"]
        if email == user.email:
            messages.info(request, "Your email address is as it was.")
        elif not email:
            operations.set_email(user=user, email="")
            messages.success(request, "Your email address is removed; the old address was told.")
        else:
            token = operations.email_change_token(user=user, new_email=email)
            link = absolute_url(reverse("email-confirm", args=[token]))
            operations.ask_email_change(user=user, new_email=email, link=link)
            messages.success(request, f"We sent a link to {email}: your address changes when you follow it.")
        return redirect("account")
    return _account_page(request, form=form, token_form=TokenForm(), status=400 if form.errors else 200)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """The mailed link: a page asking to confirm (mail scanners follow links), whose button sets the address."""
    try:
        email = operations.read_email_change(user=request.user, token=token)
    except operations.BadEmailLink as bad:
        return render(request, "accounts/email_confirm.html", {"problem": bad.message}, status=400)
    if request.method == "POST":
        operations.change_email(user=request.user, token=token)
        messages.success(request, f"Your email address is now {email}.")
        return redirect("account")
    return render(request, "accounts/email_confirm.html", {"email": email})


@never_cache
@require_http_methods(["POST"])
def create_token(request: HttpRequest) -> HttpResponse:
    """Makes a token and shows it once (only its hash is kept); a name it cannot have is a 400 on the account page."""
    token_form = TokenForm(request.POST)
    if token_form.is_valid():
        try:
            token, raw = tokens.create_token(user=request.user, name=token_form.cleaned_data["name"])
        except Refused as refused:
            token_form.add_error("name", refused.message)
        else:
            return render(request, "api/token_created.html", {"token": token, "raw": raw})
    form = AccountForm(user=request.user)
    return _account_page(request, form=form, token_form=token_form, status=400)
