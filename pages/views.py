"""Home, About, the health check and the favicon: the public pages that belong to no rules system."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_safe

from rules import systems

ROLL_SESSION_KEY = "calculator-roll"


@login_not_required
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/home.html")


@login_not_required
@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and the container health check: up, and the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


@login_not_required
@require_safe
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page says; send them to the real one."""
    return redirect(static("favicon.svg"))


@cache
def _license_text(name: str) -> str:
    return (settings.BASE_DIR / "LICENSES" / name).read_text(encoding="utf-8")


@login_not_required
@require_safe
def about(request: HttpRequest) -> HttpResponse:
    """Every rules system's attribution, disclaimer and license, as each license asks."""
    notices = [
        {
            "name": system.name,
            "key": system.key,
            "attribution": system.attribution,
            "disclaimer": system.disclaimer,
            "license_name": system.license_name,
            "license_file": system.license_file,
            "license_text": _license_text(system.license_file) if system.license_file else "",
        }
        for system in systems.all_systems()
    ]
    return render(request, "pages/about.html", {"notices": notices})
