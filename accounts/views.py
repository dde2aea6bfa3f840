"""Sign-up, the account page, and log-in for people already signed in.

Django's auth views do everything else (log-out, password change and reset) with our
templates in templates/registration/.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

from django.contrib import auth, messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, Resolver404, resolve, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from accounts.forms import AccountForm, SignupForm
from api.models import ApiToken
from api.views import TokenForm
from web import limits

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
    return _login_view(request)


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


@require_http_methods(["GET", "HEAD", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """The signed-in player's username and email address, with the way to a new password."""
    form = AccountForm(request.POST if request.method == "POST" else None, instance=request.user)
    if form.is_bound and form.is_valid():
        form.save()
        messages.success(request, "Your email address is saved.")
        return redirect("account")
    status = 400 if form.errors else 200
    context = {
        "form": form,
        "tokens": ApiToken.objects.live().filter(user=request.user),
        "token_form": TokenForm(),
    }
    return render(request, "accounts/account.html", context, status=status)
