"""Ids in the API's bodies and query strings (decisions D2), as the schema states them.

Every id a client sends is a string of one shape (config.ids). The fields here refuse
anything else with a 400 on the field, before any lookup, and the schema says the same:
`pattern`, `minLength` and `maxLength` (ID_SCHEMA), so that a client generated from it
checks an id before sending it.
"""

from django.http import QueryDict
from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers

from config.errors import ValidationFailed
from config.ids import ID_LENGTH, ID_MESSAGE, ID_PATTERN, id_validator, is_id

# The schema of an id, wherever the API reads or shows one.
ID_SCHEMA = {
    "type": "string",
    "pattern": ID_PATTERN,
    "minLength": ID_LENGTH,
    "maxLength": ID_LENGTH,
}


class IdField(serializers.CharField):
    """An id as a plain string (the caller's `userId`, the items of `userIds`, ...).

    Its length and pattern are validators, which drf-spectacular writes into the schema as
    ID_SCHEMA says; to_internal_value refuses anything that is not an id before they run,
    so a wrong id gets one message, not three. Kept exactly as sent: an id with spaces
    around it is not an id.
    """

    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(min_length=ID_LENGTH, max_length=ID_LENGTH, **kwargs)
        self.validators.append(id_validator)

    def to_internal_value(self, data) -> str:
        value = super().to_internal_value(data)
        if not is_id(value):
            raise serializers.ValidationError(ID_MESSAGE, code="invalid")
        return value


@extend_schema_field(ID_SCHEMA)
class IdReferenceField(serializers.PrimaryKeyRelatedField):
    """A row of `queryset` named by its id (propertyId, categoryId, ownerId, userId).

    A value that is not an id is refused before the lookup; one that names no row of the
    queryset is refused by it (D2). Both are a 400 on the field.
    """

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("incorrect_type", data_type=type(data).__name__)
        if not is_id(data):
            raise serializers.ValidationError(ID_MESSAGE, code="invalid")
        return super().to_internal_value(data)


def id_parameter(
    name: str, *, description: str, required: bool = False, allow_blank: bool = True
) -> OpenApiParameter:
    """A query parameter holding an id, as the schema states it.

    `allow_blank` says whether an empty value is taken as no value (the schema then says
    `allowEmptyValue`, config.api.schema.AutoSchema) or refused.
    """
    return OpenApiParameter(
        name, ID_SCHEMA, required=required, description=description, allow_blank=allow_blank
    )


def query_id(query: QueryDict, name: str) -> str | None:
    """The id query parameter `name` holds, or None when it is missing or empty (its default
    applies); a 400 on the parameter when it holds anything but an id."""
    value = query.get(name)
    if not value:
        return None
    if not is_id(value):
        raise ValidationFailed(ID_MESSAGE, field=name)
    return value
