"""The schema states every limit the server checks, so that a generated client checks it too.

Each serializer the schema is generated from (request and response components) and each
parameter of a filter set is compared with what the schema says of it: string lengths
(the field's own, or for a field that shows a model column, the column's), the shape of
ids (config.ids), bounds of numbers, sizes of lists. A limit the server checks that the
schema leaves out fails the test.
"""

import json
import re
import sys
from decimal import Decimal

import pytest
from django import forms
from django.core import validators
from django.core.exceptions import FieldDoesNotExist
from djangorestframework_camel_case.util import camelize
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from rest_framework import serializers
from rest_framework.relations import RelatedField

from config.api.fields import ID_SCHEMA
from config.api.schema import (
    NO_NULL_CHARACTERS,
    NOT_BLANK_NO_NULL_CHARACTERS,
    WHITESPACE,
    AutoSchema,
)
from config.ids import ID_LENGTH, ID_PATTERN
from listings.search import PARAMETERS

ID_LIMITS = {"pattern": ID_PATTERN, "minLength": ID_LENGTH, "maxLength": ID_LENGTH}
# Keywords that limit a value; `type`, `format`, `enum` and the rest describe it.
LIMIT_KEYWORDS = ("pattern", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems")
# Components the walk must meet, so that it cannot pass by meeting none.
SOME_COMPONENTS = {
    "PropertyWriteRequest",
    "PatchedPropertyPatchRequest",
    "PropertyDetail",
    "AppointmentCreateRequest",
    "NotificationBulkCreateRequest",
    "HouseCreateRequestRequest",
    "ImageUploadRequest",
    "User",
    "WebhookDelivery",
}


@pytest.fixture(scope="module")
def generated() -> tuple[dict, dict]:
    """The schema as the API serves it, and the serializer (and direction) each of its
    components was made from, noted as drf-spectacular resolves them."""
    components: dict[str, tuple[serializers.Serializer, str]] = {}
    resolve = AutoSchema.resolve_serializer

    def noting(self, serializer, direction, bypass_extensions=False):
        component = resolve(self, serializer, direction, bypass_extensions)
        if component.name is not None:
            components.setdefault(component.name, (component.object, direction))
        return component

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AutoSchema, "resolve_serializer", noting)
        document = SchemaGenerator().get_schema(request=None, public=True)
    # As a client reads it: JSON (drf-spectacular keeps Decimal bounds until it renders).
    return json.loads(OpenApiJsonRenderer().render(document)), components


def _camel(name: str) -> str:
    return next(iter(camelize({name: None})))


def _number(value) -> int | float:
    return float(value) if isinstance(value, Decimal | float) else value


def _column(field: serializers.Field):
    """The model column a ModelSerializer's field shows, if any."""
    parent = field.parent
    if not isinstance(parent, serializers.ModelSerializer) or "." in field.source:
        return None
    try:
        return parent.Meta.model._meta.get_field(field.source)
    except FieldDoesNotExist:
        return None


def _names_an_id(name: str) -> bool:
    return name == "id" or name.endswith("_id")


def expected_limits(name: str, field: serializers.Field, direction: str) -> dict:
    """The limits the schema must state for a serializer field, worked out from the field
    (and the model column it shows) alone."""
    if isinstance(field, RelatedField) or _names_an_id(name):
        return dict(ID_LIMITS)
    if isinstance(field, serializers.ChoiceField):
        return {}
    limits = {}
    if isinstance(field, serializers.CharField):
        column = _column(field)
        max_length = field.max_length or getattr(column, "max_length", None)
        if max_length:
            limits["maxLength"] = max_length
        if field.min_length:
            limits["minLength"] = field.min_length
        elif direction == "request" and not field.allow_blank:
            limits["minLength"] = 1
        if direction == "request" and any(
            isinstance(validator, validators.ProhibitNullCharactersValidator)
            for validator in field.validators
        ):
            # DRF trims a string before it checks that it is not blank.
            blank_refused = field.trim_whitespace and not field.allow_blank
            limits["pattern"] = (
                NOT_BLANK_NO_NULL_CHARACTERS if blank_refused else NO_NULL_CHARACTERS
            )
    if isinstance(
        field, serializers.IntegerField | serializers.FloatField | serializers.DecimalField
    ):
        if field.max_value is not None:
            limits["maximum"] = _number(field.max_value)
        if field.min_value is not None:
            limits["minimum"] = _number(field.min_value)
    if isinstance(field, serializers.ListField):
        if field.max_length is not None:
            limits["maxItems"] = field.max_length
        if field.min_length is not None:
            limits["minItems"] = field.min_length
        elif not field.allow_empty:
            limits["minItems"] = 1
    return limits


def _stated_schema(schema: dict) -> dict:
    """A property's schema, or the string's inside oneOf for a string that may be blank."""
    return schema["oneOf"][0] if "oneOf" in schema else schema


def _stated(schema: dict) -> dict:
    """The limits a property's schema states."""
    schema = _stated_schema(schema)
    return {key: schema[key] for key in LIMIT_KEYWORDS if key in schema}


def _states(stated: dict, key: str, value) -> bool:
    """Whether the stated limits hold `key: value`. No NUL may also be said by a pattern of
    the field's own that leaves NUL out (the bbox filter's)."""
    if key == "pattern" and value == NO_NULL_CHARACTERS and key in stated:
        return not any(re.search(stated[key], text) for text in ("\x00", "1\x001"))
    return stated.get(key) == value


def _missing(where: str, expected: dict, stated: dict) -> list[str]:
    return [
        f"{where}: {key} {stated.get(key, 'missing')}, the server checks {value}"
        for key, value in expected.items()
        if not _states(stated, key, value)
    ]


def _mismatches(where: str, name: str, field, schema: dict, direction: str) -> list[str]:
    expected = expected_limits(name, field, direction)
    if {"allOf", "enum", "format"} & set(_stated_schema(schema)):
        # An enum lists the values it takes (event names), and an email's or a URL's format
        # is a syntax of its own: neither admits NUL or blank strings.
        expected.pop("pattern", None)
    found = _missing(where, expected, _stated(schema))
    if isinstance(field, serializers.ListField) and not isinstance(
        field.child, serializers.Serializer
    ):
        found += _mismatches(
            f"{where}[]", name.removesuffix("s"), field.child, schema["items"], direction
        )
    return found


def test_every_serializer_field_states_its_limits(generated):
    # given every component of the schema and the serializer it was made from
    document, components = generated
    schemas = document["components"]["schemas"]
    # (the envelopes of paginated lists are the paginators' own, around a serializer's items)
    made_from_serializers = {
        name
        for name, schema in schemas.items()
        if schema.get("type") == "object" and not name.startswith("Paginated")
    }
    assert made_from_serializers <= set(components)
    assert set(components) >= SOME_COMPONENTS

    # when each field is compared with its property
    mismatches = []
    compared = 0
    for component, (serializer, direction) in components.items():
        properties = schemas[component]["properties"]
        for name, field in serializer.fields.items():
            if (direction == "request" and field.read_only) or (
                direction == "response" and field.write_only
            ):
                continue
            compared += 1
            mismatches += _mismatches(
                f"{component}.{_camel(name)}", name, field, properties[_camel(name)], direction
            )

    # then the schema states every limit
    assert compared > 300
    assert mismatches == []


def _list_filters() -> list[tuple[str, type]]:
    """(path, filter set) of every list operation that reads a django-filter filter set."""
    return sorted(
        {
            (path, callback.cls.filterset_class)
            for path, _regex, method, callback in EndpointEnumerator().get_api_endpoints()
            if method == "GET"
            and getattr(callback, "actions", {}).get("get") == "list"
            and getattr(callback.cls, "filterset_class", None) is not None
        },
        key=lambda pair: pair[0],
    )


def form_field_limits(field: forms.Field) -> dict:
    """What a query parameter's form field checks, the tightest bound of each kind."""
    limits: dict = {}

    def tighten(key: str, value, tighter) -> None:
        value = _number(value)
        limits[key] = tighter(limits[key], value) if key in limits else value

    for validator in field.validators:
        if isinstance(validator, validators.MaxLengthValidator):
            tighten("maxLength", validator.limit_value, min)
        elif isinstance(validator, validators.MinLengthValidator):
            tighten("minLength", validator.limit_value, max)
        elif isinstance(validator, validators.MaxValueValidator):
            tighten("maximum", validator.limit_value, min)
        elif isinstance(validator, validators.MinValueValidator):
            tighten("minimum", validator.limit_value, max)
        elif isinstance(validator, validators.DecimalValidator) and validator.max_digits:
            whole_digits = validator.max_digits - (validator.decimal_places or 0)
            largest = 10**whole_digits - Decimal(1).scaleb(-(validator.decimal_places or 0))
            tighten("maximum", largest, min)
            tighten("minimum", -largest, max)
        elif isinstance(validator, validators.ProhibitNullCharactersValidator):
            limits.setdefault("pattern", NO_NULL_CHARACTERS)
        elif isinstance(validator, validators.RegexValidator):
            limits["pattern"] = validator.regex.pattern
    return limits


def test_every_filter_parameter_states_its_limits(generated):
    # given the list operations with filter sets, and their parameters in the schema
    document, _components = generated
    list_filters = _list_filters()
    assert {path for path, _filterset in list_filters} == {
        "/api/v1/appointments/",
        "/api/v1/notifications/",
        "/api/v1/users/",
    }
    # and the listing search's own parameters (listings.search.params), each its form field
    form_fields = [(path, filterset().form.fields.items()) for path, filterset in list_filters] + [
        (
            "/api/v1/properties/",
            [(name, parameter.field()) for name, parameter in PARAMETERS.items()],
        )
    ]

    # when each filter's form field is compared with its parameter
    mismatches = []
    for path, fields in form_fields:
        parameters = {
            parameter["name"]: parameter["schema"]
            for parameter in document["paths"][path]["get"]["parameters"]
        }
        for name, field in fields:
            expected = form_field_limits(field)
            if expected.get("pattern") not in (None, NO_NULL_CHARACTERS) or name.endswith("Id"):
                # A pattern of the field's own: here only ids have one.
                expected.update(ID_LIMITS)
            mismatches += _missing(f"GET {path} {name}", expected, _stated(parameters[name]))

    # then the schema states every limit
    assert mismatches == []


@pytest.mark.parametrize(
    ("text", "anything_but_nul", "not_blank"),
    [
        ("a", True, True),
        (" a\t", True, True),
        ("é ü", True, True),
        ("\u200b", True, True),
        ("\n", True, False),
        ("\x1c\u3000 ", True, False),
        ("\x00", False, False),
        ("a\x00b", False, False),
        ("", False, False),
    ],
)
def test_the_patterns_of_strings_say_what_drf_refuses(text, anything_but_nul, not_blank):
    # then a string may hold anything but NUL, and one that may not be blank must hold
    # something that is not whitespace, as DRF checks them (whether a string may be empty
    # is its field's to say)
    assert (re.search(NO_NULL_CHARACTERS, text) is not None) is anything_but_nul
    assert (re.search(NOT_BLANK_NO_NULL_CHARACTERS, text) is not None) is not_blank
    assert (text.strip() != "" and "\x00" not in text) is not_blank


def test_the_whitespace_of_the_patterns_is_what_python_strips():
    # given every character Python's str.strip() removes
    stripped = {chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace()}

    # then the schema's class of whitespace holds exactly those
    whitespace = re.compile(f"[{WHITESPACE}]")
    assert {character for character in stripped if whitespace.fullmatch(character)} == stripped
    assert not any(
        whitespace.fullmatch(chr(code)) for code in range(0x3001) if chr(code) not in stripped
    )


def test_every_path_id_is_an_id(generated):
    # given every path parameter of the schema
    document, _components = generated
    schemas = [
        parameter["schema"]
        for operations in document["paths"].values()
        for operation in operations.values()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "path"
    ]

    # then each is an id, as the routes match it
    assert len(schemas) > 40
    assert all(schema == {"type": "string", "pattern": ID_PATTERN} for schema in schemas)


@pytest.mark.parametrize(
    ("component", "fields"),
    [
        ("PropertyWriteRequest", ["categoryId", "ownerId"]),
        ("PatchedPropertyPatchRequest", ["categoryId", "ownerId"]),
        ("AppointmentCreateRequest", ["propertyId", "userId", "ownerId"]),
        ("FavoriteCreateRequest", ["propertyId", "userId"]),
        ("NotificationCreateRequest", ["propertyId", "userId"]),
        ("PatchedMarkAllReadRequest", ["userId"]),
        ("ImageUploadRequest", ["propertyId"]),
        ("HouseCreateRequestRequest", ["propertyId"]),
        ("PropertyDetail", ["id", "ownerId", "categoryId"]),
        ("Appointment", ["id", "propertyId", "userId", "ownerId"]),
    ],
)
def test_references_in_bodies_are_ids(generated, component, fields):
    # given a component's properties
    document, _components = generated
    properties = document["components"]["schemas"][component]["properties"]

    # then each reference says it is an id, and nothing looser
    for name in fields:
        assert _stated(properties[name]) == ID_LIMITS, name
        assert properties[name]["type"] == "string"


def test_the_items_of_user_ids_are_ids(generated):
    document, _components = generated
    user_ids = document["components"]["schemas"]["NotificationBulkCreateRequest"]["properties"][
        "userIds"
    ]

    assert user_ids["items"] == ID_SCHEMA


def _query_parameter(document: dict, method: str, path: str, name: str) -> dict:
    return next(
        parameter
        for parameter in document["paths"][path][method]["parameters"]
        if parameter["name"] == name and parameter["in"] == "query"
    )


@pytest.mark.parametrize(
    ("method", "path", "name"),
    [
        ("get", "/api/v1/images/", "propertyId"),
        ("get", "/api/v1/videos/", "propertyId"),
        ("delete", "/api/v1/favorites/", "propertyId"),
        ("delete", "/api/v1/favorites/", "userId"),
    ],
)
def test_query_ids_that_may_not_be_empty_say_so(generated, method, path, name):
    # given a query parameter the server refuses when it is sent empty
    document, _components = generated
    parameter = _query_parameter(document, method, path, name)

    # then its schema says it is an id, at least one character long, and not that it may be
    # sent empty
    assert parameter["schema"] == ID_SCHEMA
    assert parameter["schema"]["minLength"] >= 1
    assert "allowEmptyValue" not in parameter


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/api/v1/favorites/", "userId"),
        ("/api/v1/notifications/", "userId"),
        ("/api/v1/notifications/", "propertyId"),
        ("/api/v1/properties/", "ownerId"),
        ("/api/v1/properties/", "categoryId"),
        ("/api/v1/appointments/", "userId"),
    ],
)
def test_query_ids_an_empty_value_leaves_out_say_so(generated, path, name):
    # given an optional query parameter whose empty value is no value (no filter, the caller)
    document, _components = generated
    parameter = _query_parameter(document, "get", path, name)

    # then its schema says it is an id, and that it may be sent empty
    assert parameter["schema"] == ID_SCHEMA
    assert parameter["allowEmptyValue"] is True
    assert not parameter.get("required")
