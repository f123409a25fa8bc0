"""JSON as the platform writes it, in API answers and in event payloads alike (D3): decimals
are JSON numbers, datetimes ISO 8601 ending in Z for UTC, lazy texts strings."""

import datetime
import re
from decimal import Decimal

import orjson
from django.utils import timezone
from django.utils.functional import Promise


def _default(value: object) -> object:
    """What orjson does not know: decimals are JSON numbers (D3), lazy texts are strings."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, Promise):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def json_bytes(data: object) -> bytes:
    """`data` as JSON text."""
    return orjson.dumps(data, default=_default, option=orjson.OPT_UTC_Z)


def json_value(data: object) -> object:
    """`data` with JSON types only, as a client reading its JSON text would see it."""
    return orjson.loads(json_bytes(data))


def local_time(moment: datetime.datetime | None) -> datetime.datetime | None:
    """A moment in the platform's time zone (TIME_ZONE, UTC), as the API writes every moment
    whatever offset it was given with."""
    return None if moment is None else timezone.localtime(moment)


def camel_case(name: str) -> str:
    """A field's name as the API writes it: created_at -> createdAt."""
    return re.sub(r"_([a-z0-9])", lambda match: match.group(1).upper(), name)
