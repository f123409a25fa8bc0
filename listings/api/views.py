"""The listings endpoints."""

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from drf_spectacular.helpers import forced_singular_serializer
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ErrorDetail, PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from config.api.pagination import read_page_and_limit
from config.api.permissions import IsOwnerUser, ReadOnlyOrAdmin
from config.api.renderers import CamelCasedActionsMixin
from config.api.viewsets import ApiViewSet
from config.routers import replica_reads
from listings import selectors, services, statistics
from listings.api.pagination import DEFAULT_LIMIT, MAX_LIMIT, PropertyPagination
from listings.api.schema import search_parameters
from listings.api.serializers import (
    RECORD_SERIALIZERS,
    CategorySerializer,
    ClusterQuerySerializer,
    ClustersSerializer,
    PlaceQuerySerializer,
    PlaceSuggestionsSerializer,
    PropertyDetailSerializer,
    PropertyListItemSerializer,
    PropertyPatchSerializer,
    PropertySerializer,
    PropertyWriteSerializer,
    TypeRecordCreateSerializer,
    clusters_item,
    property_detail_item,
    property_list_items,
    search_refusals,
)
from listings.api.statistics import PropertyStatisticsSerializer, statistics_item
from listings.models import KIND_MODELS, PropertyCategory, PropertyType
from listings.places import place_suggestions
from listings.search import (
    SearchParams,
    SearchParamsInvalid,
    listing_search,
    search_params,
)
from listings.search.clusters import listing_clusters
from listings.search.params import search_page


@extend_schema_view(
    list=extend_schema(summary="All categories, by name"),
    retrieve=extend_schema(summary="A category"),
    create=extend_schema(summary="Create a category (administrators)"),
    partial_update=extend_schema(summary="Change a category (administrators)"),
    destroy=extend_schema(summary="Delete an unused category (administrators)"),
)
class CategoryViewSet(ApiViewSet):
    """Property categories (decisions D15): everyone reads, admins write."""

    serializer_class = CategorySerializer
    permission_classes = [ReadOnlyOrAdmin]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        return PropertyCategory.objects.order_by("name", "id")

    def get_object(self) -> PropertyCategory:
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])

    def list(self, request):
        return Response(CategorySerializer(self.get_queryset(), many=True).data)

    def retrieve(self, request, pk=None):
        return Response(CategorySerializer(self.get_object()).data)

    def create(self, request):
        serializer = CategorySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        category = services.category_create(**serializer.validated_data)
        return Response(CategorySerializer(category).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        category = self.get_object()
        serializer = CategorySerializer(category, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        category = services.category_update(category=category, **serializer.validated_data)
        return Response(CategorySerializer(category).data)

    def destroy(self, request, pk=None):
        services.category_delete(category=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Places -----------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(
        summary="Towns to search in, from the first letters of their name",
        description=(
            "Towns with public listings whose name starts with `q`, accents and case aside;"
            " from four letters on, a name one letter away (after the first letter) also"
            " matches. Those that start with `q` come first, then by their listings, most"
            " first."
        ),
        parameters=[PlaceQuerySerializer],
        # One object, though the action is a list (drf-spectacular would make it an array).
        responses={200: forced_singular_serializer(PlaceSuggestionsSerializer)},
    ),
)
class PlaceViewSet(viewsets.ViewSet):
    """Place suggestions for the search box (listings.places): a list, no ids."""

    http_method_names = ["get", "head", "options"]

    @replica_reads()
    def list(self, request):
        query = PlaceQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        suggestions = place_suggestions(
            text=query.validated_data["q"], limit=query.validated_data["limit"]
        )
        # PlaceSerializer's shape (the schema's), built directly: 1 ms a request less.
        places = [{"name": place.name, "listings": place.listings} for place in suggestions]
        return Response({"places": places})


# --- Properties -------------------------------------------------------------------------


def _search_request(request) -> tuple[SearchParams, int, int]:
    """The search, page and limit a request asks for; every refused parameter at once is a
    400 naming each."""
    errors: dict[str, list[ErrorDetail]] = {}
    params = page = limit = None
    try:
        params = search_params(request.query_params)
    except SearchParamsInvalid as invalid:
        errors.update(search_refusals(invalid))
    try:
        given = read_page_and_limit(request.query_params, max_limit=MAX_LIMIT)
        page, limit = given.get("page", 1), given.get("limit", DEFAULT_LIMIT)
        search_page(page=page, limit=limit)
    except ValidationError as invalid:
        errors.update(invalid.detail)
    except SearchParamsInvalid as invalid:
        errors.update(search_refusals(invalid))
    if errors:
        raise ValidationError(errors)
    return params, page, limit


def _clusters_request(request) -> tuple[SearchParams, int]:
    """The search and zoom a clusters request asks for; every refused parameter at once is
    a 400 naming each (paging is not read: clusters are one answer)."""
    errors: dict[str, list[ErrorDetail]] = {}
    params = None
    try:
        params = search_params(request.query_params)
    except SearchParamsInvalid as invalid:
        errors.update(search_refusals(invalid))
    query = ClusterQuerySerializer(data=request.query_params)
    if not query.is_valid():
        errors.update(query.errors)
    if errors:
        raise ValidationError(errors)
    return params, query.validated_data["zoom"]


def _require_manager(listing, user) -> None:
    """Refuse before reading the body: who may not change a listing learns no validation rules."""
    if not services.property_is_managed_by(property=listing, user=user):
        raise PermissionDenied(gettext_lazy("Only the listing's owner may change it."))


@extend_schema_view(
    list=extend_schema(
        summary="Search listings",
        parameters=search_parameters(),
    ),
    clusters=extend_schema(
        summary="A search's listings counted in the cells of a map grid",
        description=(
            "Every search parameter of GET /properties (sort and paging aside) and the map's"
            " zoom: the matches in cells of 90 / 2^zoom degrees, each with its count, bounds,"
            " mean point and lowest price; the counts add up to every match. A box (or the"
            " world without `bbox`) of more than 10,000 cells at that zoom is a 400 on zoom."
        ),
        parameters=[*search_parameters(), ClusterQuerySerializer],
        responses={200: forced_singular_serializer(ClustersSerializer)},
    ),
    stats=extend_schema(
        summary="A listing's views, favorites and visit requests over the last 30 days",
        description=(
            "For the listing's owner and admins (403 for other signed-in users, 404 when the"
            " caller may not see the listing). Views count the listing's public page seen by"
            " others than its owner and admins, robots left out, and reach these figures when"
            " the counters are next written (about a minute); favorites and visit requests"
            " are those made in the window, visits with their status now."
        ),
        responses={200: PropertyStatisticsSerializer},
    ),
    retrieve=extend_schema(
        summary="A listing with its category, owner, photos, videos, record",
        responses={200: PropertyDetailSerializer},
    ),
    create=extend_schema(
        summary="Create a listing (step 1; it starts PENDING)",
        request=PropertyWriteSerializer,
        responses={201: PropertySerializer},
    ),
    partial_update=extend_schema(
        summary="Change a listing's fields and/or move its status",
        request=PropertyPatchSerializer,
        responses={200: PropertySerializer},
    ),
    destroy=extend_schema(summary="Delete a listing and everything on it"),
)
class PropertyViewSet(CamelCasedActionsMixin, ApiViewSet):
    """Listings (interface: Properties; decisions D7 to D10)."""

    # List items and the detail are built with camelCase keys (property_list_items,
    # property_detail_item).
    camel_cased_actions = ("list", "retrieve", "clusters", "stats")
    serializer_class = PropertyListItemSerializer
    pagination_class = PropertyPagination
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_permissions(self):
        if self.action in ("list", "retrieve", "clusters"):
            return []
        if self.action == "create":
            return [IsOwnerUser()]
        return [IsAuthenticated()]

    def get_queryset(self):
        return selectors.property_visible_to(viewer=self.request.user)

    def get_object(self):
        listings = self.get_queryset().select_related("owner", "type_record")
        return get_object_or_404(listings, pk=self.kwargs["pk"])

    def _detail(self, listing, *, response_status=status.HTTP_200_OK) -> Response:
        body = PropertySerializer(listing, context=self.get_serializer_context()).data
        return Response(body, status=response_status)

    @replica_reads()
    def list(self, request):
        params, page, limit = _search_request(request)
        result = listing_search(viewer=request.user, params=params, page=page, limit=limit)
        return self.paginator.response(result, property_list_items(result.rows, request=request))

    @action(detail=False, methods=["get"], pagination_class=None)
    @replica_reads()
    def clusters(self, request):
        params, zoom = _clusters_request(request)
        try:
            clusters = listing_clusters(viewer=request.user, params=params, zoom=zoom)
        except SearchParamsInvalid as invalid:
            raise ValidationError(search_refusals(invalid)) from invalid
        return Response(clusters_item(clusters))

    @action(detail=True, methods=["get"], pagination_class=None)
    def stats(self, request, pk=None):
        listing = self.get_object()
        if not services.property_is_managed_by(property=listing, user=request.user):
            raise PermissionDenied(
                gettext_lazy("Only the listing's owner and admins may see its statistics.")
            )
        figures = statistics.property_statistics(property_ids=[listing.pk])[listing.pk]
        return Response(statistics_item(figures))

    @replica_reads()
    def retrieve(self, request, pk=None):
        row = selectors.property_detail_row(viewer=request.user, pk=pk)
        if row is None:
            raise Http404
        return Response(property_detail_item(row, request=request))

    def create(self, request):
        serializer = PropertyWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        listing = services.property_create(
            by=request.user,
            category=data.pop("category_id"),
            owner=data.pop("owner_id", None),
            **data,
        )
        return self._detail(listing, response_status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        listing = self.get_object()
        _require_manager(listing, request.user)
        serializer = PropertyPatchSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        listing = services.property_update(
            property=listing,
            by=request.user,
            category=data.pop("category_id", None),
            owner=data.pop("owner_id", None),
            status=data.pop("status", None),
            changes=data,
        )
        return self._detail(listing)

    def destroy(self, request, pk=None):
        services.property_delete(property=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TypeRecordViewSet(ApiViewSet):
    """POST, GET /:id, PATCH /:id, DELETE /:id of one kind of type-specific record (D9)."""

    kind: str = ""
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_serializer_class(self):
        return RECORD_SERIALIZERS[self.kind]

    def get_permissions(self):
        return [] if self.action == "retrieve" else [IsAuthenticated()]

    def get_queryset(self):
        return selectors.type_record_visible_to(viewer=self.request.user, kind=self.kind)

    def get_object(self):
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])

    def retrieve(self, request, pk=None):
        return Response(self.get_serializer(self.get_object()).data)

    def create(self, request):
        target = TypeRecordCreateSerializer(
            data=request.data,
            properties=selectors.property_visible_to(viewer=request.user).select_related("owner"),
        )
        values = self.get_serializer(data=request.data)
        target_valid, values_valid = target.is_valid(), values.is_valid()
        if not (target_valid and values_valid):
            raise ValidationError({**target.errors, **values.errors})
        record = services.type_record_create(
            property=target.validated_data["property_id"],
            by=request.user,
            kind=self.kind,
            values=dict(values.validated_data),
        )
        return Response(self.get_serializer(record).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        record = self.get_object()
        _require_manager(record.property, request.user)
        serializer = self.get_serializer(record, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        record = services.type_record_update(
            record=record, by=request.user, values=dict(serializer.validated_data)
        )
        return Response(self.get_serializer(record).data)

    def destroy(self, request, pk=None):
        services.type_record_delete(record=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _type_record_viewset(kind: str) -> type[TypeRecordViewSet]:
    """A TypeRecordViewSet for one kind, documented with that kind's serializer."""
    serializer = RECORD_SERIALIZERS[kind]
    label = PropertyType(kind).label.lower()
    create_request = inline_serializer(
        name=f"{KIND_MODELS[kind].__name__}CreateRequest",
        fields={
            **TypeRecordCreateSerializer().get_fields(),
            **{
                name: field
                for name, field in serializer().get_fields().items()
                if name not in ("id", "property_id")
            },
        },
    )
    documented = extend_schema_view(
        create=extend_schema(
            summary=f"Add the {label} record of a listing (step 2)",
            request=create_request,
            responses={201: serializer},
        ),
        retrieve=extend_schema(summary=f"A {label} record"),
        partial_update=extend_schema(summary=f"Change a {label} record"),
        destroy=extend_schema(summary=f"Delete a {label} record"),
    )
    name = f"{KIND_MODELS[kind].__name__}ViewSet"
    return documented(type(name, (TypeRecordViewSet,), {"kind": kind, "__module__": __name__}))


TYPE_RECORD_VIEWSETS = {kind: _type_record_viewset(kind) for kind in PropertyType.values}
