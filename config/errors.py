"""Domain errors raised by services; the API turns each into a problem document (D5).

Services raise these instead of HTTP exceptions so that the website and the admin can show
the same rule's message in their own way. Each carries the HTTP status the API answers it
with (config.api.exceptions), as a plain number: the domain knows nothing of the API.
"""

from http import HTTPStatus

from django.utils.translation import gettext_lazy as _


class DomainError(Exception):
    """A business rule refused an operation; `code` is stable and documented."""

    status_code = HTTPStatus.BAD_REQUEST.value
    code = "validation_error"
    # Titles follow the request's language (Accept-Language under /api/); codes never do.
    title = _("Invalid request")
    # Code of the entry in `errors` when the error names a field; defaults to `code`.
    field_code: str | None = None

    def __init__(self, detail: str, *, field: str | None = None, code: str | None = None):
        super().__init__(detail)
        self.detail = detail
        self.field = field
        if code is not None:
            self.code = code


class ValidationFailed(DomainError):
    """Input that breaks a rule of the domain (400 validation_error)."""

    field_code = "invalid"


class PermissionRefused(DomainError):
    status_code = HTTPStatus.FORBIDDEN.value
    code = "permission_denied"
    title = _("Permission denied")


class NotFound(DomainError):
    status_code = HTTPStatus.NOT_FOUND.value
    code = "not_found"
    title = _("Not found")


class Conflict(DomainError):
    """The resource already exists or is in use (409 conflict)."""

    status_code = HTTPStatus.CONFLICT.value
    code = "conflict"
    title = _("Conflict")


class InvalidTransition(DomainError):
    """A status move the state machine forbids (409 invalid_transition)."""

    status_code = HTTPStatus.CONFLICT.value
    code = "invalid_transition"
    title = _("Invalid status transition")


class InvalidCredentials(DomainError):
    """Wrong email or password; one message for both (401 invalid_credentials)."""

    status_code = HTTPStatus.UNAUTHORIZED.value
    code = "invalid_credentials"
    title = _("Invalid credentials")
