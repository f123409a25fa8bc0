"""The OpenAPI description of GET /properties' query parameters, made from the search's own
parameters (listings.search.params.PARAMETERS): each parameter's form field says its type,
choices and limits (config.api.schema.form_field_limits), so the schema cannot drift from
what the server enforces."""

from django import forms
from drf_spectacular.utils import OpenApiParameter

from config.api.schema import form_field_limits
from listings.search.params import PARAMETERS, BboxField, PolygonField

NUMBER = r"-?\d+(\.\d+)?"


def _schema(field: forms.Field) -> dict:
    """The OpenAPI schema of the values a form field accepts."""
    if isinstance(field, forms.ChoiceField):
        return {"type": "string", "enum": [value for value, _label in field.choices]}
    if isinstance(field, BboxField):
        return {"type": "string", "pattern": rf"^{NUMBER},{NUMBER},{NUMBER},{NUMBER}$"}
    if isinstance(field, PolygonField):
        limits = form_field_limits(field)
        return {**limits, "type": "string", "pattern": rf"^{NUMBER}(,{NUMBER})*$"}
    limits = form_field_limits(field)
    # Django's DecimalField and FloatField are IntegerFields too.
    if isinstance(field, forms.IntegerField):
        whole = not isinstance(field, forms.DecimalField | forms.FloatField)
        bounds = {key: limits[key] for key in ("minimum", "maximum") if key in limits}
        return {"type": "integer" if whole else "number", **bounds}
    return {"type": "string", **limits}


def search_parameters() -> list[OpenApiParameter]:
    """Every search parameter of GET /properties; sent empty, each filters nothing."""
    return [
        OpenApiParameter(
            name,
            type=_schema(parameter.field()),
            location=OpenApiParameter.QUERY,
            description=parameter.description,
            allow_blank=True,
        )
        for name, parameter in PARAMETERS.items()
    ]


def _criterion_schema(field: forms.Field) -> dict:
    """The schema of one search parameter's value in a JSON object: as in the query string,
    never empty, and a number also as a string of digits."""
    schema = _schema(field)
    if schema["type"] in ("integer", "number"):
        return {"anyOf": [schema, {"type": "string", "pattern": rf"^{NUMBER}$"}]}
    return {**schema, "minLength": 1}


def search_criteria_schema(*, leaving_out: tuple[str, ...]) -> dict:
    """The OpenAPI schema of a search's parameters as one JSON object (a saved search's
    criteria): each parameter as GET /properties describes it, but those `leaving_out`."""
    return {
        "type": "object",
        "properties": {
            name: {**_criterion_schema(parameter.field()), "description": parameter.description}
            for name, parameter in PARAMETERS.items()
            if name not in leaving_out
        },
        "additionalProperties": False,
        "minProperties": 1,
    }
