from django.contrib.auth.decorators import login_not_required
from django.urls import include, path

from api import views
from api.api import api


def _public(patterns: list) -> list:
    """The API authenticates by token itself: the site's log-in requirement does not apply."""
    for pattern in patterns:
        if hasattr(pattern, "url_patterns"):
            _public(pattern.url_patterns)
        else:
            pattern.callback = login_not_required(pattern.callback)
    return patterns


_patterns, _app, _namespace = api.urls  # not `app_name`: include() would read that

urlpatterns = [
    path("api/v1/docs/", views.docs, name="api-docs"),
    path("accounts/tokens/<int:pk>/revoke/", views.revoke_token, name="api-token-revoke"),
    path("api/v1/", include((_public(_patterns), _app), namespace=_namespace)),
]
