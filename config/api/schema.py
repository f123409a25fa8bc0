"""OpenAPI generation: error responses, optional credentials, empty filters, non-empty lists,
and the limits the server checks (lengths, ranges, the shape of ids) on every field and query
parameter, so that a client generated from the schema checks them before it sends."""

from decimal import Decimal
from types import SimpleNamespace

from django import forms
from django.contrib.auth.models import AnonymousUser
from django.core import validators
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from config.api.exceptions import PROBLEM_CONTENT_TYPE
from config.api.fields import ID_SCHEMA
from config.models import IdField


class FieldErrorSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="camelCase field or query parameter name.")
    message = serializers.CharField()
    code = serializers.CharField()


class ProblemSerializer(serializers.Serializer):
    """An RFC 9457 problem document (decisions D5)."""

    type = serializers.CharField()
    title = serializers.CharField()
    status = serializers.IntegerField()
    detail = serializers.CharField()
    code = serializers.CharField(help_text="Stable error code, e.g. validation_error.")
    errors = FieldErrorSerializer(many=True, required=False)


ERROR_DESCRIPTIONS = {
    "400": "validation_error or parse_error",
    "401": "not_authenticated (or invalid_credentials on login)",
    "403": "permission_denied",
    "404": "not_found",
    "409": "conflict or invalid_transition",
    "413": "payload_too_large",
    "415": "unsupported_media_type",
    "429": "throttled; see Retry-After",
}


# What a string may hold, as Django's and DRF's CharFields check it: anything but the NUL
# character (ProhibitNullCharactersValidator; PostgreSQL cannot store it), whose refusal a
# client would otherwise learn from a 400. One character or more: whether a string may be
# empty is the field's to say (minLength, or drf-spectacular's `oneOf` with an empty string
# for a field that allows blank, which needs this pattern to leave "" to the other branch).
NO_NULL_CHARACTERS = "^[^\\u0000]+$"
# The characters Python's str.strip() removes (those of str.isspace()), which DRF trims
# from a string before it checks it.
WHITESPACE = (
    "\\u0009-\\u000d\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a"
    "\\u2028\\u2029\\u202f\\u205f\\u3000"
)
# A string DRF trims and may not be blank (a title): no NUL, and something besides
# whitespace, or it is blank once trimmed ("This field may not be blank.").
NOT_BLANK_NO_NULL_CHARACTERS = f"^[^\\u0000]*[^\\u0000{WHITESPACE}][^\\u0000]*$"


def refuses_null_characters(field: serializers.Field) -> bool:
    """Whether a serializer field refuses the NUL character, and has no pattern of its own
    (an id's pattern already leaves it out)."""
    checks = field.validators
    return any(
        isinstance(validator, validators.ProhibitNullCharactersValidator) for validator in checks
    ) and not any(isinstance(validator, validators.RegexValidator) for validator in checks)


def model_column(field: serializers.Field) -> models.Field | None:
    """The model column a ModelSerializer's field shows (`id`, `title`, `owner_id`, ...),
    or None for any other field (computed, nested, of a plain serializer)."""
    parent = getattr(field, "parent", None)
    if not isinstance(parent, serializers.ModelSerializer) or "." in field.source:
        return None
    try:
        # get_field also knows a foreign key by its column's name (owner_id).
        return parent.Meta.model._meta.get_field(field.source)
    except FieldDoesNotExist:
        return None


def column_limits(column: models.Field) -> dict:
    """What the schema of a string read from `column` says of it: an id's shape, or the
    column's max_length (an enum needs none: its values are listed)."""
    if isinstance(column, models.ForeignKey):
        column = column.target_field
    if isinstance(column, IdField):
        return {key: value for key, value in ID_SCHEMA.items() if key != "type"}
    if isinstance(column, models.CharField | models.TextField) and not column.choices:
        return {"maxLength": column.max_length} if column.max_length else {}
    return {}


def _number(value: Decimal | int | float) -> int | float:
    """A limit as a JSON number (a Decimal is not one): an integer when it is whole."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def form_field_limits(field: forms.Field) -> dict:
    """The limits a form field (a query parameter's) checks, as schema keywords: lengths,
    pattern (or no NUL character), bounds, and the largest values a decimal's digits hold.
    Of two bounds on one side (django-filter's NumberFilter adds a maximum of 1e50 to every
    number), the tighter one holds."""
    limits: dict = {}

    def bound(key: str, value, tighter) -> None:
        value = _number(value)
        limits[key] = tighter(limits[key], value) if key in limits else value

    for validator in field.validators:
        if isinstance(validator, validators.MaxLengthValidator):
            bound("maxLength", validator.limit_value, min)
        elif isinstance(validator, validators.MinLengthValidator):
            bound("minLength", validator.limit_value, max)
        elif isinstance(validator, validators.RegexValidator):
            pattern = validator.regex.pattern
            limits["pattern"] = pattern.replace(r"\A", "^").replace(r"\Z", "$")
        elif isinstance(validator, validators.ProhibitNullCharactersValidator):
            # A pattern of the field's own (an id's) leaves NUL out already.
            limits.setdefault("pattern", NO_NULL_CHARACTERS)
        elif isinstance(validator, validators.MaxValueValidator):
            bound("maximum", validator.limit_value, min)
        elif isinstance(validator, validators.MinValueValidator):
            bound("minimum", validator.limit_value, max)
        elif isinstance(validator, validators.DecimalValidator) and validator.max_digits:
            places = validator.decimal_places or 0
            largest = Decimal(10) ** (validator.max_digits - places) - Decimal(1).scaleb(-places)
            bound("maximum", largest, min)
            bound("minimum", -largest, max)
    return limits


class FilterExtension(DjangoFilterExtension):
    """drf-spectacular's django-filter parameters, with the limits their form fields check.

    drf-spectacular gives a filter its type (and the choices of a choice filter) but not
    the limits of its form field: a client would learn that `lat` is a number, not that it
    is within -90..90, nor that `ownerId` is an id.
    """

    target_class = "django_filters.rest_framework.DjangoFilterBackend"
    priority = 1

    def resolve_filter_field(self, auto_schema, model, filterset_class, field_name, filter_field):
        parameters = super().resolve_filter_field(
            auto_schema, model, filterset_class, field_name, filter_field
        )
        # The form field the server checks the parameter with (the filterset's own form).
        form_field = filterset_class().form.fields[field_name]
        limits = form_field_limits(form_field)
        for parameter in parameters:
            schema = parameter["schema"]
            if schema.get("type") in ("integer", "number"):
                schema.update({key: limits[key] for key in ("minimum", "maximum") if key in limits})
            elif schema.get("type") == "string" and "enum" not in schema:
                schema.update(
                    {key: limits[key] for key in ("minLength", "maxLength") if key in limits}
                )
                # A pattern the filter declares itself (bbox) says more than one of NUL.
                if "pattern" in limits:
                    schema.setdefault("pattern", limits["pattern"])
        return parameters


class AutoSchema(SpectacularAutoSchema):
    """drf-spectacular's AutoSchema plus the error responses each kind of operation can give."""

    def _error_codes(self) -> list[str]:
        codes = ["400", "401", "403", "429"]
        if "{" in self.path:
            codes.append("404")
        if self.method in ("POST", "PUT", "PATCH", "DELETE"):
            codes.append("409")
        if self.method in ("POST", "PUT", "PATCH"):
            codes.append("413")
            codes.append("415")
        return codes

    def get_auth(self):
        """The security requirements, with `{}` (no credentials) when anonymous callers pass.

        drf-spectacular adds `{}` only for AllowAny; the platform's public operations
        (reading listings, registering, signing in) use no permission class or one that
        lets anonymous reads through, so without this every operation would claim that it
        needs a token, and clients and API testers would expect a 401 from public ones.
        """
        auths = super().get_auth()
        if auths and {} not in auths and self._admits_anonymous_callers():
            auths.append({})
        return auths

    def _admits_anonymous_callers(self) -> bool:
        """Whether every permission of the operation lets a caller without credentials through.

        The permissions of the API read only the method and the user, so a stand-in request
        carrying those is enough to ask them.
        """
        request = SimpleNamespace(method=self.method, user=AnonymousUser(), auth=None)
        return all(
            permission.has_permission(request, self.view)
            for permission in self.view.get_permissions()
        )

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        """A field's schema; a list that may not be empty says so (`minItems: 1`), and a
        string a ModelSerializer shows from a column says what the column holds.

        drf-spectacular maps min_length but not allow_empty=False, so without this a client
        would read `[]` as valid and get a 400 for it. And DRF leaves out a column's
        max_length from a read-only field (all the fields of an answer), so the schema of
        an answer would not say how long its strings may be, nor that its ids are ids. A
        string of a request says it may not hold NUL, nor, when it is trimmed and may not
        be blank, only whitespace (NOT_BLANK_NO_NULL_CHARACTERS); an email's or a URL's
        `format` already leaves NUL and whitespace out.
        """
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if (
            isinstance(field, serializers.ListField)
            and not field.allow_empty
            and schema.get("type") == "array"
        ):
            schema["minItems"] = max(schema.get("minItems", 0), 1)
        column = model_column(field)
        if column is not None and schema.get("type") == "string":
            for key, value in column_limits(column).items():
                schema.setdefault(key, value)
        if (
            direction == "request"
            and schema.get("type") == "string"
            and not {"pattern", "enum", "format"} & set(schema)
            and refuses_null_characters(field)
        ):
            blank_refused = field.trim_whitespace and not field.allow_blank
            schema["pattern"] = (
                NOT_BLANK_NO_NULL_CHARACTERS if blank_refused else NO_NULL_CHARACTERS
            )
        return schema

    def _get_parameters(self):
        """The parameters, with `allowEmptyValue` on the optional ones an empty value is
        the same as leaving out.

        django-filter reads an empty value as no filter (`?to=` is the same as no `to`), and
        a parameter declared with `allow_blank` (the default of OpenApiParameter) takes an
        empty value as none (`?userId=` is the caller); so the schema says an empty value is
        allowed. Without it, a client or an API tester would take `?to=` for an invalid
        timestamp that should be refused. A parameter declared with `allow_blank=False`
        refuses an empty value, and its schema says `minLength`.
        """
        parameters = super()._get_parameters()
        filterset = getattr(self.view, "filterset_class", None)
        filters = filterset.base_filters if filterset is not None else {}
        blank_allowed = {
            parameter.name: parameter.allow_blank
            for parameter in self.get_override_parameters()
            if isinstance(parameter, OpenApiParameter)
        }
        for parameter in parameters:
            name = parameter["name"]
            if parameter["in"] != "query" or parameter.get("required"):
                continue
            if name in blank_allowed:
                empty_allowed = blank_allowed[name]
            else:
                empty_allowed = name in filters and not filters[name].extra.get("required")
            if empty_allowed:
                parameter["allowEmptyValue"] = True
        return parameters

    def _get_request_for_media_type(self, serializer, direction="request"):
        # drf-spectacular documents every PATCH body as partial (all fields optional). A
        # serializer that sets `required_on_patch = True` (a PATCH whose fields are all
        # required, like `{read}` of a notification) is documented as it validates.
        if self.method == "PATCH" and getattr(serializer, "required_on_patch", False):
            self.method = "POST"
            try:
                return super()._get_request_for_media_type(serializer, direction)
            finally:
                self.method = "PATCH"
        return super()._get_request_for_media_type(serializer, direction)

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_codes():
            if code in responses:
                continue
            response = self._get_response_for_code(
                ProblemSerializer, code, media_types=[PROBLEM_CONTENT_TYPE], direction=direction
            )
            response["description"] = ERROR_DESCRIPTIONS[code]
            responses[code] = response
        return responses
