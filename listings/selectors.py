"""Reads of listings: who sees what (D7) and how each read loads its data, in one place."""

import datetime
import functools
import json
from collections.abc import Iterable

from django.db import connections
from django.db.models import JSONField, Prefetch, Q, QuerySet

from accounts.models import Owner, User, UserType
from listings.cache import public_read
from listings.models import (
    HIDDEN_STATUSES,
    PUBLIC_LISTING,
    RECORD_FIELDS,
    DeletedListing,
    PriceChange,
    Property,
    PropertyRow,
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


def public_listing_count() -> int:
    """How many listings anyone may see (the sitemap's size): counted from the sitemap's
    partial index alone on PostgreSQL."""
    return _public_listings().count()


def public_listing_addresses(
    *, offset: int, limit: int
) -> list[tuple[str, str, datetime.datetime]]:
    """(id, slug, updated_at) of public listings in id order, `limit` of them from `offset`:
    what a sitemap part writes. Read from the partial index listings_prop_pub_sitemap_idx
    alone (its key holds all three), so a deep offset skips index entries, not rows."""
    rows = _public_listings().order_by("id").values_list("id", "slug", "updated_at")
    return list(rows[offset : offset + limit])


def listing_was_deleted(*, pk: str) -> bool:
    """True when a listing of this id was deleted (its page answers 410 Gone)."""
    return DeletedListing.objects.filter(pk=pk).exists()


def _ordered_images() -> QuerySet[Image]:
    """Photos in gallery order: the first is the listing's cover."""
    return Image.objects.order_by(*GALLERY_ORDER)


def property_list_loading(listings: QuerySet[Property]) -> QuerySet[Property]:
    """What a list item shows: the type-specific record (one join) and the photos (one query)."""
    # thumbnails and title: the website's cards show the cover's 400 px copy with its
    # description as alternative text; width and height cap the copies' widths
    # (media_app.selectors.photo_sources, docs/website.md).
    photos = _ordered_images().only(
        "id", "file", "title", "thumbnails", "width", "height", "property_id"
    )
    return listings.select_related("type_record").prefetch_related(
        Prefetch("images", queryset=photos)
    )


def property_cards(ids: list[str]) -> list[Property]:
    """These listings in the order of `ids`, with what the website's cards show
    (property_list_loading): two queries, none for no id."""
    if not ids:
        return []
    by_id = {
        listing.pk: listing
        for listing in property_list_loading(Property.objects.filter(pk__in=ids))
    }
    return [by_id[listing_id] for listing_id in ids]


# The columns of a list item (GET /properties): the listing's own fields.
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
# ... then its record's and its photos (PropertyRow's columns).
LIST_ROW_COLUMNS = (
    *LIST_COLUMNS,
    "record_id",
    "record_kind",
    *(f"record_{field}" for field in RECORD_FIELDS),
    "photo_entries",
)
# ... and the detail's: the category, the owner's contact and the videos too.
DETAIL_ROW_COLUMNS = (
    *LIST_ROW_COLUMNS,
    "category_name",
    "category_description",
    "owner_user_id",
    "owner_user_name",
    "owner_user_email",
    "owner_user_phone",
    "video_entries",
)


def _row_statement(columns: tuple[str, ...], condition: str) -> str:
    """A read of PropertyRow: these columns of the rows matching `condition`."""
    selected = ", ".join(columns)
    return f"SELECT {selected} FROM {PropertyRow._meta.db_table} WHERE {condition}"  # noqa: S608


# The detail's statement: its text never changes, so nothing is built or compiled per
# request, and psycopg prepares it once per connection (PropertyRow).
DETAIL_ROW_STATEMENT = _row_statement(DETAIL_ROW_COLUMNS, "id = %s")


# The view's JSON columns (the galleries): text from PostgreSQL's driver, decoded here.
_JSON_COLUMNS = frozenset(
    field.attname for field in PropertyRow._meta.concrete_fields if isinstance(field, JSONField)
)


def _read_rows(columns: tuple[str, ...], statement: str, params: list) -> list[dict]:
    """The rows of a PropertyRow statement as dicts of `columns`, each a Python value of its
    field's type: PostgreSQL's driver returns them so (its JSON as text, which is decoded
    here); elsewhere Django's field converters make them (Manager.raw), as SQLite keeps
    decimals and times as text."""
    connection = connections[PropertyRow.objects.db]
    if connection.vendor != "postgresql":
        listings = PropertyRow.objects.raw(statement, params)
        return [{column: getattr(listing, column) for column in columns} for listing in listings]
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        rows = [dict(zip(columns, values, strict=True)) for values in cursor.fetchall()]
    for row in rows:
        for column in _JSON_COLUMNS.intersection(row):
            row[column] = json.loads(row[column]) if row[column] is not None else None
    return rows


def _property_rows(columns: tuple[str, ...], statement: str, params: list) -> list[dict]:
    """The rows a PropertyRow statement reads, as plain dicts of `columns`, each gallery a
    list of tuples in gallery order: `images` [(id, file name)], with the photos' titles
    and `videos` when the statement reads the videos (the detail)."""
    rows = _read_rows(columns, statement, params)
    for row in rows:
        photos = row.pop("photo_entries") or ()
        if "video_entries" not in row:
            row["images"] = [(photo_id, name) for photo_id, name, _title in photos]
        else:
            row["images"] = [tuple(entry) for entry in photos]
            row["videos"] = [
                (video_id, name, title, _json_time(created))
                for video_id, name, title, created in row.pop("video_entries") or ()
            ]
    return rows


def _json_time(text: str) -> datetime.datetime:
    """A time read from a gallery's JSON: ISO 8601 text, with its offset on PostgreSQL,
    naive UTC on SQLite (how Django keeps times there)."""
    moment = datetime.datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def property_list_rows(ids: list[str]) -> list[dict]:
    """The list rows of these listings (LIST_ROW_COLUMNS), in the order of `ids`, each with
    `images` [(id, file name)] in gallery order: one statement (PropertyRow), none
    for no id. Plain rows, no model instances: a list page is the API's hottest read, and
    rows shaped by listings.api.serializers.property_list_items cost a fraction of model
    serializers (docs/performance.md)."""
    if not ids:
        return []
    placeholders = ", ".join(["%s"] * len(ids))
    statement = _row_statement(LIST_ROW_COLUMNS, f"id IN ({placeholders})")
    by_id = {row["id"]: row for row in _property_rows(LIST_ROW_COLUMNS, statement, ids)}
    return [by_id[listing_id] for listing_id in ids]


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


def row_visible_to(viewer: User, row: dict) -> bool:
    """Whether the viewer may see the listing of a row already read (DETAIL_ROW_COLUMNS):
    visible_listing(viewer) for one listing, the same rule (a test holds them equal)."""
    if row["status"] not in HIDDEN_STATUSES:
        return True
    if viewer_sees_only_public(viewer):
        return False
    return viewer.user_type == UserType.ADMIN or row["owner_user_id"] == viewer.pk


def _detail_row(viewer: User, pk: str) -> dict | None:
    rows = _property_rows(DETAIL_ROW_COLUMNS, DETAIL_ROW_STATEMENT, [pk])
    if not (rows and row_visible_to(viewer, rows[0])):
        return None
    row = rows[0]
    row["price_history"] = price_history(property_id=pk)
    return row


def price_history(*, property_id: str) -> list[dict]:
    """The listing's price changes, newest first: [{price, previous_price, changed_at}]."""
    return list(
        PriceChange.objects.filter(property_id=property_id)
        .order_by("-changed_at", "-id")
        .values("price", "previous_price", "changed_at")
    )


def property_detail_row(*, viewer: User, pk: str) -> dict | None:
    """The listing `pk` as a plain row (DETAIL_ROW_COLUMNS) if the viewer may see it, else
    None: the listing, its record, category and owner's contact, `images` [(id, file name,
    title)] and `videos` [(id, file name, title, created at)] in gallery order, and its
    `price_history` (price_history). One statement, the same text for every listing and
    viewer (PropertyRow), and one for the history. What visitors and
    customers read is the same for them all, and kept in the cache of public reads
    (listings.cache).

    The API's detail is built from rows like its list pages (listings.api.serializers.
    property_detail_item): model instances and model serializers cost twice as much.
    """
    if viewer_sees_only_public(viewer):
        # Every visitor and customer reads the same public listing: one read for them all.
        return public_read(("detail", pk), lambda: _detail_row(viewer, pk))
    return _detail_row(viewer, pk)


def property_detail_loading(listings: QuerySet[Property]) -> QuerySet[Property]:
    """What the detail shows: record, category and owner with user (one query), photos,
    videos, price history."""
    return listings.select_related("type_record", "category", "owner__user").prefetch_related(
        Prefetch("images", queryset=_ordered_images()),
        Prefetch("videos", queryset=Video.objects.order_by(*GALLERY_ORDER)),
        Prefetch("price_changes", queryset=PriceChange.objects.order_by("-changed_at", "-id")),
    )


def type_record_visible_to(*, viewer: User, kind: str) -> QuerySet[TypeSpecificRecord]:
    """Type-specific records of one kind whose listing the viewer may see."""
    return TypeSpecificRecord.objects.filter(
        kind=kind, property__in=property_visible_to(viewer=viewer)
    ).select_related("property__owner")
