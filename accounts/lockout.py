"""The log-in rate limit around django-axes: the page a locked-out person sees, and what a success forgets.

axes counts failed log-ins per username and per client address (settings: AXES_*). Five failures
for either within 15 minutes lock it; every try while locked starts the 15 minutes over.
"""

from __future__ import annotations

import math
from typing import Any

from axes.conf import settings
from axes.helpers import get_client_ip_address, get_cool_off
from axes.utils import reset
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """axes' AXES_LOCKOUT_CALLABLE: our own page, 429, saying how long to wait.

    The try that brought this page just started the cool-off over, so the full cool-off is the
    longest anyone has to wait from now.
    """
    cool_off = get_cool_off(request)
    minutes = math.ceil(cool_off.total_seconds() / 60) if cool_off else None
    return render(
        request,
        "accounts/locked_out.html",
        {"minutes": minutes, "failure_limit": settings.AXES_FAILURE_LIMIT},
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )


@receiver(user_logged_in)
def forget_failures(sender: type, request: HttpRequest | None, user: AbstractBaseUser, **kwargs: Any) -> None:
    """A successful log-in forgets the failures of this account from this address, and only those.

    axes' AXES_RESET_ON_SUCCESS deletes every failure for the username *or* from the address, so
    anyone who can log in to some account (sign-up is open) could wipe the count of their guesses
    at another account from the same address, four at a time, for ever.
    """
    if request is None:
        return
    ip_address = get_client_ip_address(request)
    if ip_address:  # a test client's force_login has none; without one the reset would cover every address
        reset(ip=ip_address, username=user.get_username())
