"""The one exception handler of the API: every error becomes an RFC 9457 problem document.

    {"type": "about:blank", "title": "...", "status": 400, "detail": "...",
     "code": "validation_error", "errors": [{"field": "price", "message": "...", "code": "..."}]}

No stack trace, SQL or exception text from a library ever reaches the client (D5).
"""

import logging
import math

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.db import DataError, IntegrityError
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404, JsonResponse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import csrf_exempt
from djangorestframework_camel_case.util import camelize_re, underscore_to_camel
from rest_framework import exceptions, status

from config.api.parsers import PayloadTooLarge
from config.errors import DomainError
from config.uploads import FileTooLarge

logger = logging.getLogger("config.api")

PROBLEM_CONTENT_TYPE = "application/problem+json"

# code and title of each DRF exception class the API can raise.
_DRF_CODES: list[tuple[type[exceptions.APIException], str, str]] = [
    (exceptions.ValidationError, "validation_error", _("Invalid request")),
    (exceptions.ParseError, "parse_error", _("Malformed request body")),
    (exceptions.AuthenticationFailed, "not_authenticated", _("Authentication required")),
    (exceptions.NotAuthenticated, "not_authenticated", _("Authentication required")),
    (exceptions.PermissionDenied, "permission_denied", _("Permission denied")),
    (exceptions.NotFound, "not_found", _("Not found")),
    (exceptions.MethodNotAllowed, "method_not_allowed", _("Method not allowed")),
    (exceptions.NotAcceptable, "not_acceptable", _("Not acceptable")),
    (exceptions.UnsupportedMediaType, "unsupported_media_type", _("Unsupported media type")),
    (exceptions.Throttled, "throttled", _("Too many requests")),
    (PayloadTooLarge, "payload_too_large", _("Payload too large")),
]


def problem(
    *,
    status_code: int,
    code: str,
    title: str,
    detail: str,
    errors: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> JsonResponse:
    """A problem document, always as JSON.

    A plain Django response rather than a DRF one: DRF renders its responses with the
    renderer the client asked for, and the browsable API's HTML would go out labelled
    application/problem+json.
    """
    body: dict[str, object] = {
        "type": "about:blank",
        "title": str(title),
        "status": status_code,
        "detail": str(detail),
        "code": code,
    }
    if errors:
        body["errors"] = errors
    return JsonResponse(
        body, status=status_code, headers=headers, content_type=PROBLEM_CONTENT_TYPE
    )


def _field_name(name: str) -> str:
    if name in ("non_field_errors", "__all__"):
        return ""
    return camelize_re.sub(underscore_to_camel, name)


def flatten_errors(detail, prefix: str = "") -> list[dict[str, str]]:
    """Turn DRF's nested error structure into a flat list of {field, message, code}."""
    if isinstance(detail, dict):
        items: list[dict[str, str]] = []
        for key, value in detail.items():
            name = _field_name(str(key))
            path = f"{prefix}.{name}" if prefix and name else (name or prefix)
            items.extend(flatten_errors(value, path))
        return items
    if isinstance(detail, list):
        items = []
        for index, value in enumerate(detail):
            nested = isinstance(value, dict | list)
            items.extend(flatten_errors(value, f"{prefix}[{index}]" if nested else prefix))
        return items
    code = getattr(detail, "code", None) or "invalid"
    return [{"field": prefix, "message": str(detail), "code": str(code)}]


def _drf_problem(exc: exceptions.APIException) -> JsonResponse:
    code, title = "error", _("Error")
    for exception_class, known_code, known_title in _DRF_CODES:
        if isinstance(exc, exception_class):
            code, title = known_code, known_title
            break
    headers: dict[str, str] = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    errors = None
    detail = exc.detail if isinstance(exc.detail, str) else ""
    if isinstance(exc, exceptions.ValidationError):
        errors = flatten_errors(exc.detail)
        detail = _validation_summary(errors)
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        headers["Retry-After"] = str(max(1, math.ceil(exc.wait)))
        detail = _("Too many requests; retry after %(seconds)s seconds.") % {
            "seconds": headers["Retry-After"]
        }
    return problem(
        status_code=exc.status_code,
        code=code,
        title=title,
        detail=str(detail) or title,
        errors=errors,
        headers=headers or None,
    )


def _validation_summary(errors: list[dict[str, str]]) -> str:
    fields = [error["field"] for error in errors if error["field"]]
    if not fields:
        return errors[0]["message"] if errors else _("The request is invalid.")
    return _("Invalid value for: %(fields)s.") % {"fields": ", ".join(dict.fromkeys(fields))}


def exception_handler(exc: Exception, context) -> JsonResponse:
    """DRF's EXCEPTION_HANDLER: shape every error, known or not, as a problem document."""
    if isinstance(exc, DomainError):
        errors = None
        if exc.field is not None:
            errors = [
                {"field": exc.field, "message": exc.detail, "code": exc.field_code or exc.code}
            ]
        headers = None
        if exc.status_code == status.HTTP_401_UNAUTHORIZED:
            # Every 401 names the scheme to use (RFC 9110), invalid_credentials included.
            auth_header = _authenticate_header(context)
            headers = {"WWW-Authenticate": auth_header} if auth_header else None
        return problem(
            status_code=exc.status_code,
            code=exc.code,
            title=exc.title,
            detail=exc.detail,
            errors=errors,
            headers=headers,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if isinstance(exc, exceptions.APIException):
        if isinstance(exc, exceptions.AuthenticationFailed | exceptions.NotAuthenticated):
            exc.auth_header = _authenticate_header(context)
        return _drf_problem(exc)
    if isinstance(exc, ProtectedError | RestrictedError):
        return problem(
            status_code=status.HTTP_409_CONFLICT,
            code="conflict",
            title=_("Conflict"),
            detail=_("The resource is still in use and cannot be deleted."),
        )
    if isinstance(exc, DataError):
        # A value the database cannot hold (too long, out of range) that validation missed.
        logger.info("Data error on %s", _where(context))
        return problem(
            status_code=status.HTTP_400_BAD_REQUEST,
            code="validation_error",
            title=_("Invalid request"),
            detail=_("A value is too long or out of range."),
        )
    if isinstance(exc, IntegrityError):
        # A race the service's own checks could not see (two requests at once): the
        # database refused the second write, so the answer is the same 409 a check gives.
        logger.info("Integrity conflict on %s", _where(context))
        return problem(
            status_code=status.HTTP_409_CONFLICT,
            code="conflict",
            title=_("Conflict"),
            detail=_("The request conflicts with the current state of the resource."),
        )
    if isinstance(exc, FileTooLarge):
        # A file part passed its limit while the multipart body was read (config.uploads).
        return problem(
            status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            code="payload_too_large",
            title=_("Payload too large"),
            detail=exc.detail,
        )
    if isinstance(exc, RequestDataTooBig):
        return problem(
            status_code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
            code="payload_too_large",
            title=_("Payload too large"),
            detail=_("The request body is larger than the limit."),
        )
    if isinstance(exc, TooManyFieldsSent):
        return problem(
            status_code=status.HTTP_400_BAD_REQUEST,
            code="validation_error",
            title=_("Invalid request"),
            detail=_("The request has too many fields."),
        )
    return server_error_problem(exc, where=_where(context))


def _authenticate_header(context) -> str | None:
    """The WWW-Authenticate challenge of the view's first authentication class (Bearer)."""
    request = context.get("request") if context else None
    view = context.get("view") if context else None
    if request is None or view is None:
        return None
    return view.get_authenticate_header(request)


def _where(context) -> str:
    request = context.get("request") if context else None
    return f"{request.method} {request.path}" if request is not None else "unknown request"


def server_error_problem(exc: Exception, *, where: str) -> JsonResponse:
    """A 500 is a bug: log where and what kind, never the message or traceback (may hold data)."""
    frame = exc.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    location = f"{frame.tb_frame.f_code.co_filename}:{frame.tb_lineno}" if frame else "unknown"
    logger.error("Unhandled %s on %s at %s", type(exc).__name__, where, location)
    return problem(
        status_code=status.HTTP_500_INTERNAL_SERVER_ERROR,
        code="server_error",
        title=_("Internal server error"),
        detail=_("The server could not complete the request."),
    )


# code and title of the answers made outside the API's views (problem_for_status).
STATUS_CODES: dict[int, tuple[str, str]] = {
    400: ("validation_error", _("Invalid request")),
    401: ("not_authenticated", _("Authentication required")),
    403: ("permission_denied", _("Permission denied")),
    404: ("not_found", _("Not found")),
    405: ("method_not_allowed", _("Method not allowed")),
    406: ("not_acceptable", _("Not acceptable")),
    413: ("payload_too_large", _("Payload too large")),
    415: ("unsupported_media_type", _("Unsupported media type")),
    429: ("throttled", _("Too many requests")),
    500: ("server_error", _("Internal server error")),
}
# Headers of such an answer that the problem document keeps.
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def problem_for_status(status_code: int, *, headers: dict[str, str] | None = None) -> JsonResponse:
    """A problem document for an error answered outside the API's views (an unmatched path,
    a host not allowed, an error page of Django's), by its status alone."""
    code, title = STATUS_CODES.get(
        status_code, ("server_error" if status_code >= 500 else "error", _("Error"))
    )
    detail = {
        404: _("No API endpoint matches this path."),
        500: _("The server could not complete the request."),
    }.get(status_code, f"{title}.")
    kept = {name: value for name, value in (headers or {}).items() if name in KEPT_HEADERS}
    return problem(
        status_code=status_code, code=code, title=title, detail=detail, headers=kept or None
    )


@csrf_exempt
def api_not_found(request, *args, **kwargs) -> JsonResponse:
    """Unknown route under /api/: a 404 problem document, not an HTML page.

    Exempt from CSRF like every API view, or a POST to an unknown path would get
    Django's 403 HTML page instead.
    """
    return problem_for_status(404)
