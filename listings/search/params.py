"""What a listing search asks for: its parameters, read and checked once for every face.

GET /properties, the website's search page and anything else that searches listings read a
query string's parameters with `search_params(query)` (decisions D8; docs/api.md): each
parameter is cleaned by a Django form field made for it, the rules that tie parameters
together are checked, and the answer is a SearchParams, or SearchParamsInvalid naming every
refused parameter with Django's message (the API answers it as a 400 problem document, the
website on its form). Parameters nobody sent are not read at all.

Paging is read apart (`search_page`), since each face pages its own way.
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from django import forms
from django.conf import settings
from django.utils.translation import gettext, gettext_lazy

from config.filters import IdFormField
from listings.geometry import MAX_POLYGON_VERTICES, Polygon, PolygonInvalid, parse_polygon
from listings.models import PropertyStatus, PropertyType, TransactionType

# Great-circle searches reach at most this far.
MAX_RADIUS_KM = 500
# The orders a search may ask for (`sort`); each breaks ties by id in the same direction.
SORTS = {
    "price": ("price", "id"),
    "-price": ("-price", "-id"),
    "createdAt": ("created_at", "id"),
    "-createdAt": ("-created_at", "-id"),
    "area": ("area", "id"),
    "-area": ("-area", "-id"),
}
# Without `sort`: newest first (D8).
DEFAULT_ORDER = ("-created_at", "-id")


@dataclass(frozen=True, slots=True)
class Box:
    """A map area, edges included; west > east crosses the antimeridian."""

    west: float
    south: float
    east: float
    north: float


@dataclass(frozen=True, slots=True)
class Circle:
    """Within `radius_km` (great-circle distance) of a point."""

    latitude: float
    longitude: float
    radius_km: float


@dataclass(frozen=True, slots=True)
class SearchParams:
    """A search's criteria; None (or the empty text) where it does not filter."""

    kind: str | None = None
    transaction_type: str | None = None
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    # Stripped; matched case-insensitively and exactly.
    municipality: str | None = None
    owner_id: str | None = None
    category_id: str | None = None
    status: str | None = None
    # Free text (`q`), stripped; "" for none.
    text: str = ""
    min_area: Decimal | None = None
    max_area: Decimal | None = None
    min_bedrooms: int | None = None
    box: Box | None = None
    circle: Circle | None = None
    # A drawn area (listings.geometry).
    polygon: Polygon | None = None
    sort: str | None = None


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a parameter was refused: a message for people, a code for programs (Django's)."""

    message: str
    code: str


class SearchParamsInvalid(ValueError):
    """Refused parameters: each API name with why it was refused."""

    def __init__(self, errors: dict[str, list[Refusal]]):
        super().__init__(
            "; ".join(
                f"{name}: {refusal.message}"
                for name, refusals in errors.items()
                for refusal in refusals
            )
        )
        self.errors = errors


def _bbox(value: str) -> Box:
    """`minLng,minLat,maxLng,maxLat` as a Box, or ValidationError saying what is wrong."""
    parts = value.split(",")
    if len(parts) != 4:
        raise forms.ValidationError(
            gettext_lazy("bbox is minLng,minLat,maxLng,maxLat: four numbers.")
        )
    try:
        west, south, east, north = (float(part) for part in parts)
    except ValueError as error:
        raise forms.ValidationError(gettext_lazy("bbox must hold four numbers.")) from error
    if not all(math.isfinite(number) for number in (west, south, east, north)):
        raise forms.ValidationError(gettext_lazy("bbox must hold four finite numbers."))
    if not (-180 <= west <= 180 and -180 <= east <= 180):
        raise forms.ValidationError(gettext_lazy("bbox longitudes must be within -180..180."))
    if not (-90 <= south <= 90 and -90 <= north <= 90):
        raise forms.ValidationError(gettext_lazy("bbox latitudes must be within -90..90."))
    if south > north:
        raise forms.ValidationError(gettext_lazy("bbox minLat must not be greater than maxLat."))
    return Box(west, south, east, north)


class BboxField(forms.CharField):
    """A map area as `minLng,minLat,maxLng,maxLat`, cleaned to a Box."""

    def clean(self, value):
        value = super().clean(value)
        return _bbox(value) if value else None


class PolygonField(forms.CharField):
    """A drawn area as `lng,lat,lng,lat,...` (closed), cleaned to a Polygon."""

    def clean(self, value):
        value = super().clean(value)
        if not value:
            return None
        try:
            return parse_polygon(value)
        except PolygonInvalid as error:
            raise forms.ValidationError(str(error)) from error


def _choices(choices) -> Callable[[], forms.Field]:
    return lambda: forms.ChoiceField(choices=choices, required=False)


def _decimal(**bounds) -> Callable[[], forms.Field]:
    return lambda: forms.DecimalField(required=False, **bounds)


def _text(max_length: int) -> Callable[[], forms.Field]:
    return lambda: forms.CharField(required=False, max_length=max_length)


def _identifier() -> forms.Field:
    return IdFormField(required=False)


@dataclass(frozen=True)
class Parameter:
    """One query parameter: the SearchParams attribute it sets and the form field that
    cleans it (a new field for each use: nothing is shared between requests)."""

    attribute: str
    field: Callable[[], forms.Field]
    description: str


# Every search parameter by its API name, in the order the docs and the website list them.
PARAMETERS: dict[str, Parameter] = {
    "q": Parameter(
        "text", _text(200), "Free text over title, description, address and municipality."
    ),
    "type": Parameter("kind", _choices(PropertyType.choices), "The kind of property."),
    "transactionType": Parameter(
        "transaction_type", _choices(TransactionType.choices), "For sale or for rent."
    ),
    "municipality": Parameter(
        "municipality", _text(120), "The town, matched exactly whatever the case."
    ),
    "minPrice": Parameter(
        "min_price", _decimal(min_value=0, max_digits=14, decimal_places=2), "Lowest price."
    ),
    "maxPrice": Parameter(
        "max_price", _decimal(min_value=0, max_digits=14, decimal_places=2), "Highest price."
    ),
    "minArea": Parameter(
        "min_area", _decimal(min_value=0, max_digits=12, decimal_places=2), "Smallest area, m²."
    ),
    "maxArea": Parameter(
        "max_area", _decimal(min_value=0, max_digits=12, decimal_places=2), "Largest area, m²."
    ),
    "minBedrooms": Parameter(
        "min_bedrooms",
        lambda: forms.IntegerField(required=False, min_value=0, max_value=1_000_000),
        "At least this many bedrooms (houses and apartments).",
    ),
    "categoryId": Parameter("category_id", _identifier, "A category's id."),
    "ownerId": Parameter("owner_id", _identifier, "An owner's id."),
    "status": Parameter(
        "status",
        _choices(PropertyStatus.choices),
        "A status; PENDING and SUSPENDED listings are only their owner's and admins'.",
    ),
    "bbox": Parameter(
        "box", lambda: BboxField(required=False), "A map area: minLng,minLat,maxLng,maxLat."
    ),
    "polygon": Parameter(
        "polygon",
        # Up to 100 vertices of numbers written in full, and the closing point.
        lambda: PolygonField(required=False, max_length=(MAX_POLYGON_VERTICES + 1) * 2 * 24),
        f"A drawn area: lng,lat,lng,lat,... closed (the last point repeats the first), up to"
        f" {MAX_POLYGON_VERTICES} vertices, edges that never cross.",
    ),
    "lat": Parameter(
        "latitude",
        lambda: forms.FloatField(required=False, min_value=-90, max_value=90),
        "With lng and radiusKm: the centre's latitude.",
    ),
    "lng": Parameter(
        "longitude",
        lambda: forms.FloatField(required=False, min_value=-180, max_value=180),
        "With lat and radiusKm: the centre's longitude.",
    ),
    "radiusKm": Parameter(
        "radius_km",
        lambda: forms.FloatField(required=False, min_value=0, max_value=MAX_RADIUS_KM),
        f"With lat and lng: up to {MAX_RADIUS_KM} km from the centre.",
    ),
    "sort": Parameter(
        "sort",
        _choices([(key, key) for key in SORTS]),
        "The order; newest first by default, best match first for q (PostgreSQL).",
    ),
}
CIRCLE_PARAMETERS = ("lat", "lng", "radiusKm")
# Pairs a search must give in order: each error names the lower one.
RANGES = (("minPrice", "maxPrice"), ("minArea", "maxArea"))


def _cleaned(query: Mapping[str, str]) -> tuple[dict[str, object], dict[str, list[Refusal]]]:
    """Each parameter the query gives, cleaned by its field (a repeated one: its last value,
    as Django's QueryDict reads it); an empty value filters nothing."""
    values: dict[str, object] = {}
    errors: dict[str, list[str]] = {}
    for name, parameter in PARAMETERS.items():
        raw = query.get(name)
        if raw is None or raw == "":
            continue
        try:
            value = parameter.field().clean(raw)
        except forms.ValidationError as error:
            errors[name] = [
                Refusal(message, refused.code or "invalid")
                for refused in error.error_list
                for message in refused.messages
            ]
            continue
        if value not in (None, ""):
            values[name] = value
    return values, errors


def _together(values: dict[str, object], errors: dict[str, list[Refusal]]) -> None:
    """The rules that tie parameters together; each error names one parameter."""
    for low, high in RANGES:
        if low in values and high in values and values[low] > values[high]:
            message = gettext("%(low)s must not be greater than %(high)s.") % {
                "low": low,
                "high": high,
            }
            refusal = Refusal(message, "invalid")
            errors.setdefault(low, []).append(refusal)
    given = [name for name in CIRCLE_PARAMETERS if name in values or name in errors]
    if given and len(given) < len(CIRCLE_PARAMETERS):
        for name in CIRCLE_PARAMETERS:
            if name not in given:
                refusal = Refusal(gettext("lat, lng and radiusKm go together."), "invalid")
                errors.setdefault(name, []).append(refusal)


def search_params(query: Mapping[str, str]) -> SearchParams:
    """The search a query string asks for, or SearchParamsInvalid naming what is refused.

    Other parameters of the query (page, limit, the website's own) are left alone.
    """
    values, errors = _cleaned(query)
    _together(values, errors)
    if errors:
        raise SearchParamsInvalid(errors)
    attributes = {
        PARAMETERS[name].attribute: value
        for name, value in values.items()
        if name not in CIRCLE_PARAMETERS
    }
    if "radiusKm" in values:
        attributes["circle"] = Circle(
            float(values["lat"]), float(values["lng"]), float(values["radiusKm"])
        )
    return SearchParams(**attributes)


def search_query(params: SearchParams) -> dict[str, str]:
    """The query string parameters that ask for `params` (search_params reads them back)."""
    query: dict[str, str] = {}
    for name, parameter in PARAMETERS.items():
        if name in CIRCLE_PARAMETERS:
            continue
        value = getattr(params, parameter.attribute)
        if value is None or value == "":
            continue
        if isinstance(value, Box):
            value = f"{value.west},{value.south},{value.east},{value.north}"
        elif isinstance(value, Polygon):
            value = value.as_parameter()
        query[name] = str(value)
    if params.circle is not None:
        query["lat"] = str(params.circle.latitude)
        query["lng"] = str(params.circle.longitude)
        query["radiusKm"] = str(params.circle.radius_km)
    return query


def result_window() -> int:
    """How many results a search can be paged through: page * limit at most this."""
    return settings.PROPERTY_LIST_RESULT_WINDOW


def search_page(*, page: int, limit: int) -> int:
    """The offset of a page of a search, or SearchParamsInvalid (on `page`) when the page
    lies past the result window: reading a page reads every result before it, so a
    search is paged as deep as its exact count goes, as a search engine's window."""
    window = result_window()
    if page * limit > window:
        message = gettext(
            "page * limit may be at most %(window)d: narrow the search or change its order"
            " to reach further results."
        ) % {"window": window}
        raise SearchParamsInvalid({"page": [Refusal(message, "max_value")]})
    return (page - 1) * limit
