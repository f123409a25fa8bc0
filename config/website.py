"""Building blocks shared by the pages of the server-rendered website (docs/website.md).

The website calls the same services and selectors as the API; what lives here is only how a
page shows their answers: a service's refusal on a form, a role check that answers with the
site's 403 page, the map settings, and the error pages (handler400/403/404/500).
"""

import functools
import re
from collections.abc import Callable

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseServerError
from django.shortcuts import render
from django.template import loader
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext_lazy
from django.views import defaults

from accounts.models import UserType
from config.errors import DomainError
from config.uploads import FileTooLarge

OWNERS_ONLY = gettext_lazy(
    "The owner area is for owner accounts. Register as an owner to list a property."
)
# A sign-in or sign-up form over its rate limit (config.api.throttling.page_request_wait).
TOO_MANY_ATTEMPTS = gettext_lazy("Too many attempts. Try again in %(seconds)s seconds.")

_CAMEL_HUMP = re.compile(r"(?<!^)(?=[A-Z])")


def site_settings(request: HttpRequest) -> dict[str, str]:
    """Template context processor: the map settings every map of the site reads (no query)."""
    return {
        "MAP_TILE_URL": settings.MAP_TILE_URL,
        "MAP_TILE_ATTRIBUTION": settings.MAP_TILE_ATTRIBUTION,
    }


def form_field_name(api_field: str) -> str:
    """The form field of a service error's field, which is named like the API (camelCase)."""
    return _CAMEL_HUMP.sub("_", api_field).lower()


def add_domain_error(
    form: forms.Form, error: DomainError, fields: dict[str, str] | None = None
) -> None:
    """Show a service's refusal on the form field it names, else above the whole form.

    `fields` maps the API's field names to this form's names where they differ (for example
    the API's `password` is the form's `new_password`).
    """
    name = None
    if error.field:
        name = (fields or {}).get(error.field) or form_field_name(error.field)
    form.add_error(name if name in form.fields else None, error.detail)


def next_url(request: HttpRequest, default: str) -> str:
    """Where to go after a form: the `next` parameter when it is a path of this site."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    allowed = url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return candidate if candidate and allowed else default


def owner_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The owner area: signed-in OWNER users only; anyone else signed in gets the 403 page."""

    @login_required
    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.user.user_type != UserType.OWNER:
            raise PermissionDenied(OWNERS_ONLY)
        return view(request, *args, **kwargs)

    return wrapped


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: Django's 400 page; a file part refused for its size is the 413 page.

    FileTooLarge reaches here from any page whose form was read outside a view that catches
    it (the CSRF check reads every posted form). Under /api/, config.api.middleware answers
    the problem document of the status instead.
    """
    if isinstance(exception, FileTooLarge):
        return render(request, "413.html", {"reason": exception.detail}, status=413)
    return defaults.bad_request(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: the site's 404 page (under /api/, config.api.middleware answers a problem
    document instead)."""
    return render(request, "404.html", status=404)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler403: the site's 403 page, saying why when the refusal was ours."""
    reason = str(exception) if isinstance(exception, PermissionDenied | DomainError) else ""
    return render(request, "403.html", {"reason": reason}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: the site's 500 page, rendered without the request's context.

    Like Django's own handler, it runs no context processor: the database may be what
    failed, and a second error while showing the first would hide the page.
    """
    return HttpResponseServerError(loader.get_template("500.html").render())
