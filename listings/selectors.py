"""Reads of listings: who sees what (D7) and how each read loads its data, in one place."""

import datetime
import functools
from collections.abc import Iterable

from django.contrib.postgres.aggregates import JSONBAgg
from django.db import connections
from django.db.models import F, JSONField, Lookup, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import JSONArray

from accounts.models import Owner, User, UserType
from config.statements import KeptStatement
from listings.models import (
    PUBLIC_LISTING,
    RECORD_FIELDS,
    Property,
    TypeSpecificRecord,
)
from media_app.models import GALLERY_ORDER, Image, Video


def viewer_sees_only_public(viewer: User) -> bool:
    """True for anonymous visitors and customers: they all see the same public listings."""
    return not viewer.is_authenticated or viewer.user_type not in (UserType.ADMIN, UserType.OWNER)


def visible_listing(viewer: User) -> Q:
    """The condition on listings the viewer may see: PENDING and SUSPENDED ones only by their
    owner and admins."""
    if viewer_sees_only_public(viewer):
        return PUBLIC_LISTING
    if viewer.user_type == UserType.ADMIN:
        return Q()
    own = Owner.objects.filter(user_id=viewer.pk).values("pk")
    return PUBLIC_LISTING | Q(owner_id__in=own)


@functools.cache
def _public_listings() -> QuerySet[Property]:
    """Public listings, their condition resolved once: every visitor's search starts here.
    Never evaluated itself; each use filters a copy."""
    return Property.objects.filter(PUBLIC_LISTING)


def property_visible_to(*, viewer: User) -> QuerySet[Property]:
    """Listings the viewer may see (visible_listing)."""
    if viewer_sees_only_public(viewer):
        return _public_listings().all()
    return Property.objects.filter(visible_listing(viewer))


def _ordered_images() -> QuerySet[Image]:
    """Photos in gallery order: the first is the listing's cover."""
    return Image.objects.order_by(*GALLERY_ORDER)


def property_list_loading(listings: QuerySet[Property]) -> QuerySet[Property]:
    """What a list item shows: the type-specific record (one join) and the photos (one query)."""
    # thumbnails and title: the website's cards show the cover's 400 px copy with its
    # description as alternative text (docs/website.md).
    photos = _ordered_images().only("id", "file", "title", "thumbnails", "property_id")
    return listings.select_related("type_record").prefetch_related(
        Prefetch("images", queryset=photos)
    )


# The columns of a list item (GET /properties): the common fields, then the record's.
LIST_COLUMNS = (
    "id",
    "title",
    "description",
    "price",
    "latitude",
    "longitude",
    "transaction_type",
    "municipality",
    "address",
    "area",
    "status",
    "owner_id",
    "category_id",
    "created_at",
    "updated_at",
)
RECORD_COLUMNS = {
    "record_id": F("type_record__id"),
    "record_kind": F("type_record__kind"),
    **{f"record_{field}": F(f"type_record__{field}") for field in RECORD_FIELDS},
}


def _galleries_in_row(database: str) -> bool:
    """Whether a listing's photos and videos are read with its row, as arrays (PostgreSQL),
    rather than by a query of their own (elsewhere)."""
    return connections[database].vendor == "postgresql"


def _gallery(model: type[Image] | type[Video], *columns: str) -> Subquery:
    """The listing's photos or videos in gallery order, as one JSON array of entries, each a
    JSON array of `columns` (NULL for none): one column of the listing's row instead of a
    query (and a round trip) of their own, decoded once per row rather than once per
    entry."""
    media = (
        model.objects.filter(property_id=OuterRef("pk"))
        .order_by()
        .values("property_id")
        .annotate(entries=JSONBAgg(JSONArray(*columns), order_by=GALLERY_ORDER))
    )
    return Subquery(media.values("entries"), output_field=JSONField())


def _list_columns(galleries: bool) -> dict:
    """The computed columns of a list row: the record's, and the photos when `galleries`."""
    if not galleries:
        return RECORD_COLUMNS
    return {**RECORD_COLUMNS, "photo_entries": _gallery(Image, "id", "file")}


@functools.cache
def _list_rows(galleries: bool) -> QuerySet[Property]:
    """Every listing as a list row (LIST_COLUMNS and _list_columns), to be filtered further.

    Built once: resolving the twenty-odd columns through the record's join took half a
    millisecond per request, more than the rest of the page's query. Never evaluated
    itself; each use filters a copy.
    """
    return Property.objects.values(*LIST_COLUMNS, **_list_columns(galleries))


class _AnyOf(Lookup):
    """`column = ANY(array)`: a list of any length as one parameter, so the statement's text
    stays the same whatever the page's size (IN (...) has a placeholder per value)."""

    lookup_name = "any_of"
    prepare_rhs = False

    def as_sql(self, compiler, connection):
        column, column_params = self.process_lhs(compiler, connection)
        array, array_params = self.process_rhs(compiler, connection)
        return f"{column} = ANY({array})", [*column_params, *array_params]


# Where the page's ids go in the kept statement of list rows.
_PAGE_IDS = ["page ids stand-in"]


@functools.cache
def _list_rows_statement() -> KeptStatement:
    """List rows with their photos by their ids, compiled once and prepared on each
    connection (config.statements; PostgreSQL): planning its join and the photos' subquery
    cost more than running it, and compiling it more than the rest of the page's ORM work."""
    listings = _list_rows(True).filter(_AnyOf(F("pk"), _PAGE_IDS)).order_by()
    return KeptStatement(listings, stand_in=_PAGE_IDS)


def _rows_in_order(ids: list[str], *, galleries: bool) -> list[dict]:
    """The list rows of these listings, in the order of `ids`: one statement (none for no
    id), kept and prepared on PostgreSQL."""
    if not ids:
        return []
    if galleries:
        rows = _list_rows_statement().rows(ids)
    else:
        rows = list(_list_rows(galleries).filter(pk__in=ids).order_by())
    by_id = {row["id"]: row for row in rows}
    return [by_id[listing_id] for listing_id in ids]


def _page_rows(
    listings: QuerySet[Property],
    *,
    offset: int,
    limit: int,
    galleries: bool,
    ids_statement: tuple[str, list] | None,
) -> list[dict]:
    """The page's listings as list rows, found by their ids first when the order allows it.

    OFFSET reads and throws away every row before the page, joined and whole: a page 800
    deep joined 8,000 records (0.6 s at 1,000,000 listings). Picking the page's ids first
    reads only what the filters and the order need, often from an index alone, and the
    rows of the page are read afterwards by their ids (a "deferred join", in two
    statements: the second is always the same, so it is compiled once and prepared). An
    order on an alias (the relevance rank of a text search) cannot be repeated outside its
    query: such pages are read as they are. A search whose statements are compiled once
    (listings.search_statements) gives the page's ids statement itself.
    """
    if ids_statement is not None:
        with connections[listings.db].cursor() as cursor:
            cursor.execute(*ids_statement)
            ids = [listing_id for (listing_id,) in cursor.fetchall()]
        return _rows_in_order(ids, galleries=galleries)
    concrete = {field.name for field in listings.model._meta.concrete_fields}
    order = listings.query.order_by
    repeatable = order and all(
        not isinstance(item, str) or item.lstrip("-") in concrete for item in order
    )
    if not repeatable:
        page = listings[offset : offset + limit]
        return list(page.values(*LIST_COLUMNS, **_list_columns(galleries)))
    ids = list(listings.values_list("pk", flat=True)[offset : offset + limit])
    return _rows_in_order(ids, galleries=galleries)


def property_list_page(
    listings: QuerySet[Property],
    *,
    offset: int,
    limit: int,
    ids_statement: tuple[str, list] | None = None,
) -> list[dict]:
    """One page of listings as plain rows, each with `images` [(id, file name)] in gallery order.

    On PostgreSQL the page's ids, then its rows with their photos; elsewhere the photos
    take a query of their own; whatever the page size. No model instances are built: a
    list page is the API's hottest read, and rows shaped by listings.api.serializers.
    property_list_items cost a fraction of model serializers (docs/performance.md).
    `ids_statement`: the statement of the page's ids, when the search has one of its own.
    """
    galleries = _galleries_in_row(listings.db)
    rows = _page_rows(
        listings, offset=offset, limit=limit, galleries=galleries, ids_statement=ids_statement
    )
    if galleries:
        for row in rows:
            row["images"] = [tuple(entry) for entry in row.pop("photo_entries") or ()]
        return rows
    photos = gallery_files(row["id"] for row in rows)
    for row in rows:
        row["images"] = photos[row["id"]]
    return rows


def gallery_files(property_ids: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
    """The photos of these listings as [(id, file name)] in gallery order, by listing id:
    one query (none for no listing)."""
    photos: dict[str, list[tuple[str, str]]] = {property_id: [] for property_id in property_ids}
    if not photos:
        return photos
    gallery = (
        Image.objects.filter(property_id__in=list(photos))
        .order_by(*GALLERY_ORDER)
        .values_list("id", "property_id", "file")
    )
    for image_id, property_id, name in gallery:
        photos[property_id].append((image_id, name))
    return photos


# The columns of the detail beyond a list item's: the category and the owner's contact.
DETAIL_COLUMNS = {
    "category_name": F("category__name"),
    "category_description": F("category__description"),
    "owner_user_id": F("owner__user_id"),
    "owner_user_name": F("owner__user__name"),
    "owner_user_email": F("owner__user__email"),
    "owner_user_phone": F("owner__user__phone"),
}


@functools.cache
def _detail_rows(galleries: bool) -> QuerySet[Property]:
    """Every listing as a detail row (a list row, category and owner's contact, and on
    PostgreSQL its photos and videos); built once like _list_rows."""
    columns = {**RECORD_COLUMNS, **DETAIL_COLUMNS}
    if galleries:
        # Named apart from the listing's `images` and `videos` relations.
        columns["photo_entries"] = _gallery(Image, "id", "file", "title")
        columns["video_entries"] = _gallery(Video, "id", "file", "title", "created_at")
    return Property.objects.values(*LIST_COLUMNS, **columns)


# Where the listing's id goes in the kept detail statement; no id can be it (ids are cuid2).
_LISTING_ID = "listing-id stand-in"


@functools.cache
def _public_detail_statement(galleries: bool) -> KeptStatement:
    """The detail row of a public listing by its id, compiled once and prepared on each
    connection (config.statements): the statement every visitor's detail runs."""
    listing = _detail_rows(galleries).filter(PUBLIC_LISTING, pk=_LISTING_ID)
    # order_by(): the model's default order would sort the one row.
    return KeptStatement(listing.order_by()[:1], stand_in=_LISTING_ID)


def property_detail_row(*, viewer: User, pk: str) -> dict | None:
    """The listing `pk` as a plain row if the viewer may see it, else None: the listing, its
    record, category and owner's contact, `images` [(id, file name, title)] and `videos`
    [(id, file name, title, created at)] in gallery order. One query on PostgreSQL; elsewhere
    the photos and the videos take a query each. What visitors and customers read is one
    kept statement (_public_detail_statement); owners and admins, who see more, each read
    one of their own.

    The API's detail is built from rows like its list pages (listings.api.serializers.
    property_detail_item): model instances and model serializers cost twice as much.
    """
    galleries = _galleries_in_row(Property.objects.db)
    if viewer_sees_only_public(viewer):
        rows = _public_detail_statement(galleries).rows(pk)
    else:
        listing = _detail_rows(galleries).filter(visible_listing(viewer), pk=pk)
        rows = list(listing.order_by()[:1])
    if not rows:
        return None
    row = rows[0]
    if galleries:
        row["images"] = [tuple(entry) for entry in row.pop("photo_entries") or ()]
        # JSON holds the creation time as ISO 8601 text.
        row["videos"] = [
            (video_id, name, title, datetime.datetime.fromisoformat(created))
            for video_id, name, title, created in row.pop("video_entries") or ()
        ]
        return row
    row["images"] = list(
        Image.objects.filter(property_id=row["id"])
        .order_by(*GALLERY_ORDER)
        .values_list("id", "file", "title")
    )
    row["videos"] = list(
        Video.objects.filter(property_id=row["id"])
        .order_by(*GALLERY_ORDER)
        .values_list("id", "file", "title", "created_at")
    )
    return row


def property_detail_loading(listings: QuerySet[Property]) -> QuerySet[Property]:
    """What the detail shows: record, category and owner with user (one query), photos, videos."""
    return listings.select_related("type_record", "category", "owner__user").prefetch_related(
        Prefetch("images", queryset=_ordered_images()),
        Prefetch("videos", queryset=Video.objects.order_by(*GALLERY_ORDER)),
    )


def property_list_public() -> QuerySet[Property]:
    """Listings anyone may see, newest first, with their cover data (the website's home page)."""
    listings = Property.objects.filter(PUBLIC_LISTING).select_related("type_record", "category")
    return listings.prefetch_related(Prefetch("images", queryset=_ordered_images())).order_by(
        "-created_at", "-id"
    )


def type_record_visible_to(*, viewer: User, kind: str) -> QuerySet[TypeSpecificRecord]:
    """Type-specific records of one kind whose listing the viewer may see."""
    return TypeSpecificRecord.objects.filter(
        kind=kind, property__in=property_visible_to(viewer=viewer)
    ).select_related("property__owner")
