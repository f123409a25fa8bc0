"""Domain errors of media uploads; the API turns them into problem documents (D5)."""

from rest_framework import status

from config.errors import DomainError


class UnsupportedMedia(DomainError):
    """The bytes of an upload are not an accepted format (415 unsupported_media_type)."""

    status_code = status.HTTP_415_UNSUPPORTED_MEDIA_TYPE
    code = "unsupported_media_type"
    title = "Unsupported media type"


class MediaTooLarge(DomainError):
    """An upload over its size or pixel limit (413 payload_too_large)."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    code = "payload_too_large"
    title = "Payload too large"
