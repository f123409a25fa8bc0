"""Shapes of the listings endpoints."""

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal

from django.core.files.storage import FileSystemStorage, storages
from django.utils.encoding import filepath_to_uri
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from accounts.models import Owner, User
from config.api.fields import IdReferenceField
from config.api.json_types import JSONTypedSerializer
from config.json import camel_case
from listings.models import (
    COUNT_FIELDS,
    KIND_FIELDS,
    KIND_MODELS,
    PriceChange,
    Property,
    PropertyCategory,
    PropertyStatus,
    PropertyType,
    TransactionType,
)
from listings.places import DEFAULT_SUGGESTIONS, MAX_PLACE_SUGGESTIONS
from listings.search import SearchParamsInvalid
from listings.search.clusters import MAX_ZOOM, Clusters
from listings.selectors import LIST_COLUMNS
from media_app.files import absolute_media_url
from media_app.models import Image, Video


class CategorySerializer(JSONTypedSerializer, serializers.ModelSerializer):
    """A property category: id, name, description (D15)."""

    name = serializers.CharField(max_length=100)
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)

    class Meta:
        model = PropertyCategory
        fields = ["id", "name", "description"]
        read_only_fields = ["id"]


# --- Places -----------------------------------------------------------------------------


class PlaceQuerySerializer(serializers.Serializer):
    """GET /places' query: the typed text, and how many suggestions at most."""

    q = serializers.CharField(max_length=120, help_text="What was typed: a town's first letters.")
    limit = serializers.IntegerField(
        min_value=1,
        max_value=MAX_PLACE_SUGGESTIONS,
        default=DEFAULT_SUGGESTIONS,
        help_text="How many towns at most.",
    )


class PlaceSerializer(serializers.Serializer):
    """A town to search in: `name` is what the `municipality` filter takes, `listings` how
    many public listings that search finds."""

    name = serializers.CharField()
    listings = serializers.IntegerField()


class PlaceSuggestionsSerializer(serializers.Serializer):
    """GET /places' answer: the suggested towns, best first."""

    places = PlaceSerializer(many=True)


# --- Properties -------------------------------------------------------------------------

# Text columns of type-specific records that hold one of a fixed set of values (D9).
CHOICE_FIELDS = ("land_type", "type_of_activity")

RECORD_KEYS: dict[str, str] = {
    PropertyType.HOUSE: "house",
    PropertyType.APARTMENT: "apartment",
    PropertyType.LAND: "land",
    PropertyType.OFFICE: "office",
    PropertyType.COMMERCIAL: "commercial",
    PropertyType.HOTEL: "hotels",
    PropertyType.DEVELOPMENT: "development",
}


def _record_serializer_class(kind: str) -> type[serializers.ModelSerializer]:
    """The serializer of one kind of type-specific record: id, propertyId and its own fields."""
    model = KIND_MODELS[kind]
    own_fields = list(KIND_FIELDS[kind])
    extra = {field: {"required": True, "allow_null": False} for field in own_fields}
    for field in own_fields:
        if field in COUNT_FIELDS:
            extra[field]["min_value"] = 0
            extra[field]["max_value"] = 1_000_000
        if field in CHOICE_FIELDS:
            # The model column is blank=True (other kinds leave it empty), but a kind that
            # uses it needs one of its values: "" would only fail the database's check.
            extra[field]["allow_blank"] = False
    meta = type(
        "Meta",
        (),
        {
            "model": model,
            "fields": ["id", "property_id", *own_fields],
            "read_only_fields": ["id", "property_id"],
            "extra_kwargs": extra,
        },
    )
    name = f"{model.__name__}Serializer"
    attributes = {
        "Meta": meta,
        "__module__": __name__,
        "property_id": serializers.CharField(read_only=True),
    }
    return type(name, (JSONTypedSerializer, serializers.ModelSerializer), attributes)


RECORD_SERIALIZERS: dict[str, type[serializers.ModelSerializer]] = {
    kind: _record_serializer_class(kind) for kind in PropertyType.values
}


class DecimalNumberField(serializers.DecimalField):
    """An exact decimal in the database, a JSON number on the wire (D3).

    Input is rounded half-up to the field's decimal places (1234.567 -> 1234.57), since JSON
    numbers from clients often carry binary floating-point noise; the digit limit still holds.

    The bounds (min_value, and max_value, which defaults to the largest value the digits
    hold) apply to the value as sent, before rounding, as the schema's minimum and maximum
    say: 9999999999.999 is over an area's 9999999999.99 even though it would round to 10^10,
    and -0.001 is under a price's 0 even though it would round to 0.
    """

    def __init__(self, *, max_digits: int, decimal_places: int, **kwargs):
        kwargs.setdefault("coerce_to_string", False)
        kwargs.setdefault("rounding", ROUND_HALF_UP)
        unit = Decimal(1).scaleb(-decimal_places)
        kwargs.setdefault("max_value", Decimal(10) ** (max_digits - decimal_places) - unit)
        super().__init__(max_digits=max_digits, decimal_places=decimal_places, **kwargs)

    def validate_precision(self, value: Decimal) -> Decimal:
        if value.is_finite():
            if self.max_value is not None and value > self.max_value:
                self.fail("max_value", max_value=self.max_value)
            if self.min_value is not None and value < self.min_value:
                self.fail("min_value", min_value=self.min_value)
            value = value.quantize(Decimal(1).scaleb(-self.decimal_places), rounding=self.rounding)
        return super().validate_precision(value)


class PropertyTypeField(serializers.ChoiceField):
    """`type` of a listing shown inside another resource (a favorite, a notification, a
    visit, an owner's listings): its kind, null before step 2 (D9). Read from the listing's
    own copy of its record's kind, so no join to the record."""

    def __init__(self, **kwargs):
        kwargs.setdefault("source", "kind")
        super().__init__(choices=PropertyType.choices, allow_null=True, read_only=True, **kwargs)


class ImageSummarySerializer(serializers.ModelSerializer):
    """A photo in a list item: id and absolute url."""

    url = serializers.SerializerMethodField()

    class Meta:
        model = Image
        fields = ["id", "url"]
        read_only_fields = fields

    def get_url(self, image) -> str:
        return absolute_media_url(self.context.get("request"), image.file)


class ImageDetailSerializer(ImageSummarySerializer):
    """A photo in the detail: id, url, title and description (which repeats the title, D9)."""

    description = serializers.CharField(source="title", allow_null=True, read_only=True)

    class Meta(ImageSummarySerializer.Meta):
        fields = ["id", "url", "title", "description"]
        read_only_fields = fields


class VideoSummarySerializer(ImageSummarySerializer):
    """A video in the detail: id, url, title and when it was added."""

    class Meta(ImageSummarySerializer.Meta):
        model = Video
        fields = ["id", "url", "title", "created_at"]
        read_only_fields = fields


class PriceChangeSerializer(serializers.ModelSerializer):
    """One change in a listing's price history: the new price, the one before, and when."""

    price = DecimalNumberField(max_digits=14, decimal_places=2, read_only=True)
    previous_price = DecimalNumberField(max_digits=14, decimal_places=2, read_only=True)

    class Meta:
        model = PriceChange
        fields = ["price", "previous_price", "changed_at"]
        read_only_fields = fields


class PropertySerializer(serializers.ModelSerializer):
    """The common fields of a listing, plus its derived `type` (POST and PATCH answers)."""

    price = DecimalNumberField(max_digits=14, decimal_places=2)
    area = DecimalNumberField(max_digits=12, decimal_places=2)
    type = serializers.SerializerMethodField()

    class Meta:
        model = Property
        # The columns a list page reads (listings.selectors), and the derived type.
        fields = [*LIST_COLUMNS, "type"]
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=PropertyType.choices, allow_null=True))
    def get_type(self, listing: Property) -> str | None:
        return listing.type


def _record_field(kind: str):
    """A read-only field holding the listing's record under its key when it is of this kind."""

    @extend_schema_field(RECORD_SERIALIZERS[kind](allow_null=True))
    def method(self, listing: Property):
        record = getattr(listing, "type_record", None) if listing.type == kind else None
        return RECORD_SERIALIZERS[kind](record).data if record is not None else None

    return method


class _WithRecords(serializers.Serializer):
    """Adds the seven type-specific keys; the one of the listing's kind holds its record."""

    house = serializers.SerializerMethodField()
    apartment = serializers.SerializerMethodField()
    land = serializers.SerializerMethodField()
    office = serializers.SerializerMethodField()
    commercial = serializers.SerializerMethodField()
    hotels = serializers.SerializerMethodField()
    development = serializers.SerializerMethodField()

    get_house = _record_field(PropertyType.HOUSE)
    get_apartment = _record_field(PropertyType.APARTMENT)
    get_land = _record_field(PropertyType.LAND)
    get_office = _record_field(PropertyType.OFFICE)
    get_commercial = _record_field(PropertyType.COMMERCIAL)
    get_hotels = _record_field(PropertyType.HOTEL)
    get_development = _record_field(PropertyType.DEVELOPMENT)


RECORD_FIELD_NAMES = list(RECORD_KEYS.values())


class PropertyListItemSerializer(PropertySerializer, _WithRecords):
    """A listing in GET /properties: common fields, type, photos [{id, url}], the record."""

    images = ImageSummarySerializer(many=True, read_only=True)

    class Meta(PropertySerializer.Meta):
        fields = [*PropertySerializer.Meta.fields, "images", *RECORD_FIELD_NAMES]
        read_only_fields = fields


_LIST_KEYS = tuple((column, camel_case(column)) for column in LIST_COLUMNS)
_RECORD_ITEM_KEYS = {
    kind: (RECORD_KEYS[kind], tuple((f"record_{field}", camel_case(field)) for field in fields))
    for kind, fields in KIND_FIELDS.items()
}
_EMPTY_RECORDS = dict.fromkeys(RECORD_KEYS.values())


def request_origin(request) -> str:
    """Scheme and host that local media URLs are made absolute with (D11)."""
    return request.build_absolute_uri("/")[:-1] if request is not None else ""


def media_urls(origin: str) -> Callable[[str], str]:
    """What makes the absolute URL of a stored file: S3 URLs already are; local ones get
    the origin. The storage is looked at once, not for each of a page's thirty photos."""
    storage = storages["default"]
    if isinstance(storage, FileSystemStorage) and storage.base_url.startswith("/"):
        # What FileSystemStorage.url makes, without its urljoin: local names are the
        # server's own (media_app.files.media_file_name), with no dot segments, scheme or
        # leading slash for urljoin to resolve.
        prefix = origin + storage.base_url
        return lambda name: prefix + filepath_to_uri(name)

    def absolute(name: str) -> str:
        url = storage.url(name)
        return origin + url if url.startswith("/") else url

    return absolute


def media_url(name: str, origin: str) -> str:
    """The absolute URL of one stored file (media_urls)."""
    return media_urls(origin)(name)


def image_summaries(images: list[tuple[str, str]], origin: str) -> list[dict]:
    """Photos as list items show them, [{id, url}], from [(id, file name)] in gallery order."""
    url = media_urls(origin)
    return [{"id": image_id, "url": url(name)} for image_id, name in images]


def _common_fields(row: dict) -> dict:
    """A listing's own fields and its `type`, from a row of listings.selectors."""
    item = {key: row[column] for column, key in _LIST_KEYS}
    item["type"] = row["record_kind"]
    return item


def _record_fields(row: dict) -> dict:
    """The seven record keys, the listing's own holding its record (the others null)."""
    records = dict(_EMPTY_RECORDS)
    kind = row["record_kind"]
    if kind is not None:
        key, fields = _RECORD_ITEM_KEYS[kind]
        record = {"id": row["record_id"], "propertyId": row["id"]}
        for column, name in fields:
            record[name] = row[column]
        records[key] = record
    return records


def property_list_items(rows: list[dict], *, request) -> list[dict]:
    """List items from the rows of listings.selectors.property_list_page, keys already camelCase.

    The same shape as PropertyListItemSerializer (a test holds them equal) without building a
    serializer per listing and per record: common fields, `type`, `images` [{id, url}] and
    the seven record keys, the listing's own holding its record. Render with
    config.api.renderers.CamelCasedJSONRenderer.
    """
    origin = request_origin(request)
    items = []
    for row in rows:
        item = _common_fields(row)
        item["images"] = image_summaries(row["images"], origin)
        item.update(_record_fields(row))
        items.append(item)
    return items


def property_detail_item(row: dict, *, request) -> dict:
    """The detail from a row of listings.selectors.property_detail_row, keys already camelCase.

    The same shape as PropertyDetailSerializer (a test holds them equal): a list item's
    fields with the category, the owner's contact, photos with their titles, videos and
    the price history.
    """
    origin = request_origin(request)
    item = _common_fields(row)
    item["propertyCategory"] = {
        "id": row["category_id"],
        "name": row["category_name"],
        "description": row["category_description"],
    }
    item["owner"] = {
        "id": row["owner_id"],
        "user": {
            "id": row["owner_user_id"],
            "name": row["owner_user_name"],
            "email": row["owner_user_email"],
            "phone": row["owner_user_phone"],
        },
    }
    url = media_urls(origin)
    item["images"] = [
        {"id": image_id, "url": url(name), "title": title, "description": title}
        for image_id, name, title in row["images"]
    ]
    item["videos"] = [
        {"id": video_id, "url": url(name), "title": title, "createdAt": created}
        for video_id, name, title, created in row["videos"]
    ]
    item.update(_record_fields(row))
    item["priceHistory"] = [
        {
            "price": change["price"],
            "previousPrice": change["previous_price"],
            "changedAt": change["changed_at"],
        }
        for change in row["price_history"]
    ]
    return item


class CategorySummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = PropertyCategory
        fields = ["id", "name", "description"]
        read_only_fields = fields


class OwnerUserSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "name", "email", "phone"]
        read_only_fields = fields


class PropertyOwnerSerializer(serializers.ModelSerializer):
    user = OwnerUserSerializer(read_only=True)

    class Meta:
        model = Owner
        fields = ["id", "user"]
        read_only_fields = fields


class PropertyDetailSerializer(PropertySerializer, _WithRecords):
    """GET /properties/:id: the listing with its category, owner, photos, videos, record and
    price history (newest first)."""

    property_category = CategorySummarySerializer(source="category", read_only=True)
    owner = PropertyOwnerSerializer(read_only=True)
    images = ImageDetailSerializer(many=True, read_only=True)
    videos = VideoSummarySerializer(many=True, read_only=True)
    price_history = PriceChangeSerializer(source="price_changes", many=True, read_only=True)

    class Meta(PropertySerializer.Meta):
        fields = [
            *PropertySerializer.Meta.fields,
            "property_category",
            "owner",
            "images",
            "videos",
            *RECORD_FIELD_NAMES,
            "price_history",
        ]
        read_only_fields = fields


class PropertyWriteSerializer(JSONTypedSerializer):
    """Body of POST /properties (all required) and PATCH /properties/:id (any subset)."""

    title = serializers.CharField(min_length=1, max_length=200)
    description = serializers.CharField(min_length=1, max_length=10_000)
    price = DecimalNumberField(max_digits=14, decimal_places=2, min_value=Decimal(0))
    latitude = serializers.FloatField(min_value=-90, max_value=90)
    longitude = serializers.FloatField(min_value=-180, max_value=180)
    transaction_type = serializers.ChoiceField(choices=TransactionType.choices)
    municipality = serializers.CharField(min_length=1, max_length=120)
    address = serializers.CharField(min_length=1, max_length=300)
    area = DecimalNumberField(max_digits=12, decimal_places=2, min_value=Decimal("0.01"))
    category_id = IdReferenceField(queryset=PropertyCategory.objects.all())
    owner_id = IdReferenceField(queryset=Owner.objects.all(), required=False)


class PropertyPatchSerializer(PropertyWriteSerializer):
    """PATCH also takes `status`, moved by the state machine of D10."""

    status = serializers.ChoiceField(choices=PropertyStatus.choices, required=False)


class TypeRecordCreateSerializer(JSONTypedSerializer):
    """`propertyId` of a POST to /houses, /apartments, ...; the listing must be visible."""

    property_id = IdReferenceField(queryset=Property.objects.none())

    def __init__(self, *args, properties=None, **kwargs):
        super().__init__(*args, **kwargs)
        if properties is not None:
            self.fields["property_id"].queryset = properties


class ClusterQuerySerializer(serializers.Serializer):
    """GET /properties/clusters' own query parameter (the search's are the list's)."""

    zoom = serializers.IntegerField(
        min_value=0,
        max_value=MAX_ZOOM,
        help_text=(
            "The map's zoom (0: the world in one 256-pixel tile): cells are a quarter of a"
            " tile, 90 / 2^zoom degrees."
        ),
    )


class ClusterBoundsSerializer(serializers.Serializer):
    """Where a cluster's listings lie, in degrees."""

    west = serializers.FloatField()
    south = serializers.FloatField()
    east = serializers.FloatField()
    north = serializers.FloatField()


class ClusterSerializer(serializers.Serializer):
    """The matches of one grid cell."""

    count = serializers.IntegerField()
    latitude = serializers.FloatField(help_text="The mean latitude of its listings.")
    longitude = serializers.FloatField(help_text="The mean longitude of its listings.")
    bounds = ClusterBoundsSerializer()
    lowest_price = DecimalNumberField(max_digits=14, decimal_places=2)


class ClustersSerializer(serializers.Serializer):
    """GET /properties/clusters' answer: most listings first; the counts add up to
    totalItems, every match of the search."""

    zoom = serializers.IntegerField()
    cell_size = serializers.FloatField(help_text="A cell's width and height, in degrees.")
    total_items = serializers.IntegerField()
    clusters = ClusterSerializer(many=True)


def clusters_item(clusters: Clusters) -> dict:
    """ClustersSerializer's shape (camelCased), built directly: hundreds of cells a request."""
    return {
        "zoom": clusters.zoom,
        "cellSize": clusters.cell_size,
        "totalItems": clusters.total,
        "clusters": [
            {
                "count": cluster.count,
                "latitude": cluster.latitude,
                "longitude": cluster.longitude,
                "bounds": {
                    "west": cluster.west,
                    "south": cluster.south,
                    "east": cluster.east,
                    "north": cluster.north,
                },
                "lowestPrice": cluster.lowest_price,
            }
            for cluster in clusters.clusters
        ],
    }


def search_refusals(invalid: SearchParamsInvalid) -> dict[str, list[ErrorDetail]]:
    """Refused search parameters as DRF's error details, each under its parameter's name."""
    return {
        name: [ErrorDetail(refusal.message, refusal.code) for refusal in refusals]
        for name, refusals in invalid.errors.items()
    }
