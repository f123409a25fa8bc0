"""Request body parsers: camelCase JSON with a size limit (D13)."""

import io

from django.conf import settings
from djangorestframework_camel_case.parser import CamelCaseJSONParser
from rest_framework import status
from rest_framework.exceptions import APIException


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is larger than the limit."
    default_code = "payload_too_large"


class LimitedCamelCaseJSONParser(CamelCaseJSONParser):
    """JSON bodies up to DATA_UPLOAD_MAX_MEMORY_SIZE bytes; larger ones are 413.

    DRF reads JSON straight from the request stream, so Django's own body limit never
    applies to it; the parser reads at most one byte past the limit, never the whole body.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = stream.read(limit + 1) if stream is not None else b""
        if limit is not None and len(body) > limit:
            raise PayloadTooLarge()
        return super().parse(io.BytesIO(body), media_type, parser_context)
