"""JSON request bodies are read by their JSON types: no silent conversions (D3, D5).

DRF's fields convert what they are given: a CharField takes 12 and stores "12", an
IntegerField takes "12", a BooleanField takes 0, "no" or "off". Fine for HTML forms, whose
values are all strings, but a JSON client that sends a number where the API documents a
string has a bug, and the answer it needs is a 400 naming the field, not a guess.

`JSONTypedSerializer` checks, before any field converts anything, that every value of a
JSON object body has the JSON type its field documents in the OpenAPI schema. Form and
multipart bodies (QueryDicts, whose values are all strings) and query parameters keep DRF's
conversions: the mixin goes on the serializers of JSON bodies only.
"""

from collections.abc import Mapping

from django.http import QueryDict
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.relations import RelatedField

# JSON type names as the schema writes them, and the Python types json.loads gives for each.
_STRING = ("string", (str,))
_INTEGER = ("integer", (int,))
_NUMBER = ("number", (int, float))
_BOOLEAN = ("boolean", (bool,))
_ARRAY = ("array", (list,))


def _expected_type(field: serializers.Field) -> tuple[str, tuple[type, ...]] | None:
    """The JSON type a field documents, or None when it takes more than one (left to DRF)."""
    # Order matters: BooleanField is not an IntegerField, but ChoiceField and the relations
    # must be matched before CharField-like fallbacks.
    if isinstance(field, serializers.BooleanField):
        return _BOOLEAN
    if isinstance(field, serializers.IntegerField):
        return _INTEGER
    if isinstance(field, serializers.FloatField | serializers.DecimalField):
        return _NUMBER
    if isinstance(field, serializers.ListField):
        return _ARRAY
    if isinstance(field, serializers.ChoiceField):
        keys = list(field.choices)
        return _STRING if keys and all(isinstance(key, str) for key in keys) else None
    if isinstance(field, RelatedField):
        # Every id of the platform is a string (D2).
        return _STRING
    if isinstance(
        field,
        serializers.CharField
        | serializers.DateTimeField
        | serializers.DateField
        | serializers.TimeField,
    ):
        return _STRING
    return None


def json_type_error(field: serializers.Field, value: object) -> str | None:
    """Why a JSON value does not fit its field's type, or None when it does.

    null is left to the field (allow_null decides), and so are the items of a list, checked
    against the list's child field in the same way.
    """
    if value is None:
        return None
    expected = _expected_type(field)
    if expected is None:
        return None
    name, types = expected
    # bool is an int in Python, never a number or an integer in JSON.
    if isinstance(value, bool) and bool not in types:
        return f"Must be a JSON {name}."
    if not isinstance(value, types):
        return f"Must be a JSON {name}."
    if isinstance(field, serializers.ListField):
        for item in value:
            error = json_type_error(field.child, item)
            if error is not None:
                return f"Every item: {error[0].lower()}{error[1:]}"
    return None


class JSONTypedSerializer(serializers.Serializer):
    """A serializer whose JSON object input must carry each field's own JSON type.

    A mismatch is a 400 validation_error naming every mismatched field (code "invalid"),
    reported before any other rule, so the client learns the shape problem first.
    """

    def to_internal_value(self, data):
        if isinstance(data, Mapping) and not isinstance(data, QueryDict):
            errors = {}
            for field in self._writable_fields:
                value = data.get(field.field_name, empty)
                if value is empty:
                    continue
                error = json_type_error(field, value)
                if error is not None:
                    errors[field.field_name] = [
                        serializers.ErrorDetail(error, code="invalid"),
                    ]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)
