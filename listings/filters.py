"""Query filters of GET /properties (the interface's and those D8 adds)."""

import math

import django_filters
from django import forms
from django.conf import settings
from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connections
from django.db.models import F, FloatField, Q, QuerySet, Value
from django.db.models.functions import ASin, Cos, Lower, Power, Radians, Sin, Sqrt
from django_filters.constants import EMPTY_VALUES
from drf_spectacular.utils import extend_schema_field

from config.filters import FilterSet, IdFilter
from listings.groups import GroupedSearch
from listings.models import (
    SEARCH_CONFIG,
    SEARCH_FIELDS,
    Property,
    PropertyStatus,
    PropertyType,
    TransactionType,
)

EARTH_RADIUS_KM = 6371.0088
# About 0.1 m: widens the pre-filter box of a radius search past rounding errors.
BOX_MARGIN_DEGREES = 1e-6
MAX_RADIUS_KM = 500
SORTS = {
    "price": ("price", "id"),
    "-price": ("-price", "-id"),
    "createdAt": ("created_at", "id"),
    "-createdAt": ("-created_at", "-id"),
    "area": ("area", "id"),
    "-area": ("-area", "-id"),
}
DEFAULT_ORDER = ("-created_at", "-id")
# The filters whose matches listings.groups can count (PropertyFilter.grouped_search).
GROUPED_FILTERS = frozenset(
    ("type", "transactionType", "municipality", "categoryId", "minBedrooms", "minPrice", "maxPrice")
)


def web_search(text: str) -> SearchQuery:
    """`q` as PostgreSQL reads it: websearch syntax, the configuration of the search document."""
    return SearchQuery(text, config=SEARCH_CONFIG, search_type="websearch")


class PropertyFilterForm(forms.Form):
    """Rules that tie several parameters together; each error names one parameter."""

    def clean(self):
        data = super().clean()
        for low, high in (("minPrice", "maxPrice"), ("minArea", "maxArea")):
            if data.get(low) is not None and data.get(high) is not None and data[low] > data[high]:
                self.add_error(low, f"{low} must not be greater than {high}.")
        radius = ("lat", "lng", "radiusKm")
        given = [name for name in radius if data.get(name) is not None]
        if given and len(given) < len(radius):
            for name in radius:
                if data.get(name) is None:
                    self.add_error(name, "lat, lng and radiusKm go together.")
        return data


def parse_bbox(value: str) -> tuple[float, float, float, float]:
    """`minLng,minLat,maxLng,maxLat` -> floats, or ValidationError naming what is wrong."""
    parts = value.split(",")
    if len(parts) != 4:
        raise forms.ValidationError("bbox is minLng,minLat,maxLng,maxLat: four numbers.")
    try:
        west, south, east, north = (float(part) for part in parts)
    except ValueError as error:
        raise forms.ValidationError("bbox must hold four numbers.") from error
    if not all(math.isfinite(number) for number in (west, south, east, north)):
        raise forms.ValidationError("bbox must hold four finite numbers.")
    if not (-180 <= west <= 180 and -180 <= east <= 180):
        raise forms.ValidationError("bbox longitudes must be within -180..180.")
    if not (-90 <= south <= 90 and -90 <= north <= 90):
        raise forms.ValidationError("bbox latitudes must be within -90..90.")
    if south > north:
        raise forms.ValidationError("bbox minLat must not be greater than maxLat.")
    return west, south, east, north


class BboxField(forms.CharField):
    def clean(self, value):
        value = super().clean(value)
        return parse_bbox(value) if value else None


@extend_schema_field(
    {
        "type": "string",
        "pattern": r"^-?[\d.]+,-?[\d.]+,-?[\d.]+,-?[\d.]+$",
        "description": "minLng,minLat,maxLng,maxLat",
    }
)
class BboxFilter(django_filters.Filter):
    field_class = BboxField


def longitude_between(west: float, east: float) -> Q:
    """Longitudes from west to east; west > east means the box crosses the antimeridian."""
    if west <= east:
        return Q(longitude__gte=west, longitude__lte=east)
    return Q(longitude__gte=west) | Q(longitude__lte=east)


def within_box(west: float, south: float, east: float, north: float) -> Q:
    return Q(latitude__gte=south, latitude__lte=north) & longitude_between(west, east)


def distance_km(latitude: float, longitude: float):
    """Great-circle (haversine) distance from a point to each listing, in km."""
    half_latitude = Radians(F("latitude") - Value(latitude)) / 2
    half_longitude = Radians(F("longitude") - Value(longitude)) / 2
    haversine = Power(Sin(half_latitude), 2) + Cos(Radians(Value(latitude))) * Cos(
        Radians(F("latitude"))
    ) * Power(Sin(half_longitude), 2)
    return Value(2 * EARTH_RADIUS_KM, output_field=FloatField()) * ASin(Sqrt(haversine))


def radius_box(latitude: float, longitude: float, radius_km: float) -> Q:
    """A box around the circle, so that the (latitude, longitude) index narrows the rows first.

    The box must hold the whole circle, on the same sphere as distance_km: the circle spans
    r / R radians of latitude, and at latitude phi it reaches asin(sin(r / R) / cos(phi)) east
    and west, which is wider than r / (R cos(phi)). A circle that reaches a pole spans every
    longitude. BOX_MARGIN_DEGREES keeps points on the circle itself clear of rounding.
    """
    angular_radius = radius_km / EARTH_RADIUS_KM
    latitude_span = math.degrees(angular_radius) + BOX_MARGIN_DEGREES
    south, north = max(-90.0, latitude - latitude_span), min(90.0, latitude + latitude_span)
    if south <= -90 or north >= 90:
        return Q(latitude__gte=south, latitude__lte=north)
    reach = math.sin(angular_radius) / math.cos(math.radians(latitude))
    if reach >= 1:
        return Q(latitude__gte=south, latitude__lte=north)
    longitude_span = math.degrees(math.asin(reach)) + BOX_MARGIN_DEGREES
    if longitude_span >= 180:
        return Q(latitude__gte=south, latitude__lte=north)
    west = (longitude - longitude_span + 180) % 360 - 180
    east = (longitude + longitude_span + 180) % 360 - 180
    return within_box(west, south, east, north)


class PropertyFilter(FilterSet):
    """Filters of GET /properties; parameter names are the API's camelCase names."""

    # Property.kind is the listing's copy of its record's kind: no join (docs/performance.md).
    type = django_filters.ChoiceFilter(field_name="kind", choices=PropertyType.choices)
    transactionType = django_filters.ChoiceFilter(
        field_name="transaction_type", choices=TransactionType.choices
    )
    minPrice = django_filters.NumberFilter(field_name="price", lookup_expr="gte", min_value=0)
    maxPrice = django_filters.NumberFilter(field_name="price", lookup_expr="lte", min_value=0)
    municipality = django_filters.CharFilter(method="filter_municipality", max_length=120)
    ownerId = IdFilter(field_name="owner_id")
    categoryId = IdFilter(field_name="category_id")
    status = django_filters.ChoiceFilter(choices=PropertyStatus.choices)
    q = django_filters.CharFilter(method="filter_text", max_length=200)
    minArea = django_filters.NumberFilter(field_name="area", lookup_expr="gte", min_value=0)
    maxArea = django_filters.NumberFilter(field_name="area", lookup_expr="lte", min_value=0)
    minBedrooms = django_filters.NumberFilter(
        field_name="bedrooms",
        lookup_expr="gte",
        min_value=0,
        max_digits=6,
        decimal_places=0,
    )
    bbox = BboxFilter(method="filter_bbox")
    lat = django_filters.NumberFilter(method="filter_nothing", min_value=-90, max_value=90)
    lng = django_filters.NumberFilter(method="filter_nothing", min_value=-180, max_value=180)
    radiusKm = django_filters.NumberFilter(
        method="filter_nothing", min_value=0, max_value=MAX_RADIUS_KM
    )
    sort = django_filters.ChoiceFilter(
        method="filter_nothing", choices=[(key, key) for key in SORTS]
    )

    class Meta:
        model = Property
        fields: list[str] = []
        form = PropertyFilterForm

    def grouped_search(self) -> GroupedSearch | None:
        """The search as listings.groups counts it, or None when it filters on anything the
        groups do not hold (only for a valid filterset; `sort` orders, it does not filter)."""
        data = self.form.cleaned_data
        # A filter applies when its value is not one django-filter skips (EMPTY_VALUES).
        if any(
            value not in EMPTY_VALUES
            for name, value in data.items()
            if name not in GROUPED_FILTERS and name != "sort"
        ):
            return None
        bedrooms = data.get("minBedrooms")
        return GroupedSearch(
            transaction_type=data.get("transactionType") or None,
            kind=data.get("type") or None,
            municipality=(data.get("municipality") or "").strip().lower() or None,
            category_id=data.get("categoryId") or None,
            min_bedrooms=int(bedrooms) if bedrooms is not None else None,
            min_price=data.get("minPrice"),
            max_price=data.get("maxPrice"),
        )

    def filter_municipality(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        # lower(municipality) = lower(value): served by the lower(municipality) index.
        return queryset.alias(municipality_lower=Lower("municipality")).filter(
            municipality_lower=value.strip().lower()
        )

    def filter_text(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        value = value.strip()
        if not value:
            return queryset
        if connections[queryset.db].vendor == "postgresql":
            return queryset.filter(search_document=web_search(value))
        # SQLite: every word must appear in one of the searched fields, in any case.
        for word in value.split():
            word_anywhere = Q()
            for field in SEARCH_FIELDS:
                word_anywhere |= Q(**{f"{field}__icontains": word})
            queryset = queryset.filter(word_anywhere)
        return queryset

    def filter_bbox(self, queryset: QuerySet, name: str, value) -> QuerySet:
        return queryset.filter(within_box(*value)) if value else queryset

    def filter_nothing(self, queryset: QuerySet, name: str, value) -> QuerySet:
        # lat, lng, radiusKm and sort act together in filter_queryset.
        return queryset

    def filter_queryset(self, queryset: QuerySet) -> QuerySet:
        queryset = super().filter_queryset(queryset)
        data = self.form.cleaned_data
        if data.get("radiusKm") is not None:
            latitude, longitude = float(data["lat"]), float(data["lng"])
            radius = float(data["radiusKm"])
            queryset = (
                queryset.filter(radius_box(latitude, longitude, radius))
                .alias(distance=distance_km(latitude, longitude))
                .filter(distance__lte=radius)
            )
        sort = data.get("sort")
        if sort:
            return queryset.order_by(*SORTS[sort])
        text = (data.get("q") or "").strip()
        if text and connections[queryset.db].vendor == "postgresql":
            return ranked_window(queryset, text)
        return queryset.order_by(*DEFAULT_ORDER)


def ranked_window(matches: QuerySet, text: str) -> QuerySet:
    """The newest SEARCH_RANK_WINDOW `matches`, best match for `text` first, then newest.

    Ranking every match of a common word reads and scores a large part of the table (0.35 s
    for a word in one listing in six at 1,000,000 listings); the newest matches come from
    the date index, checked against the stored search document, and only they are ranked.
    Like a search engine's result window, older matches are reached with `sort` or
    narrower filters (docs/api.md).
    """
    window = matches.order_by(*DEFAULT_ORDER).values("pk")[: settings.SEARCH_RANK_WINDOW]
    return (
        matches.model._default_manager.filter(pk__in=window)
        .alias(rank=SearchRank(F("search_document"), web_search(text)))
        .order_by("-rank", *DEFAULT_ORDER)
    )
