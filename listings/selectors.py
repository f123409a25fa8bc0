"""Reads of listings: who sees what (D7) and how each read loads its data, in one place."""

import datetime
import functools
from collections.abc import Iterable

from django.contrib.postgres.aggregates import JSONBAgg
from django.db import connections
from django.db.models import F, JSONField, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import JSONArray

from accounts.models import Owner, User, UserType
from listings.cache import public_read
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


# Building these querysets (resolving their columns through the record's join and the
# photos' subquery) cost more than compiling them: built once, never evaluated themselves,
# each use filters a copy (QuerySet.filter clones).
@functools.cache
def _list_rows(galleries: bool) -> QuerySet[Property]:
    """Every listing as a list row (LIST_COLUMNS and _list_columns), to be filtered."""
    return Property.objects.values(*LIST_COLUMNS, **_list_columns(galleries))


def property_list_rows(ids: list[str]) -> list[dict]:
    """The list rows of these listings, in the order of `ids`, each with `images` [(id, file
    name)] in gallery order: one statement on PostgreSQL (the photos with the rows), two
    elsewhere; none for no id. Plain rows, no model instances: a list page is the API's
    hottest read, and rows shaped by listings.api.serializers.property_list_items cost a
    fraction of model serializers (docs/performance.md)."""
    if not ids:
        return []
    galleries = _galleries_in_row(Property.objects.db)
    by_id = {row["id"]: row for row in _list_rows(galleries).filter(pk__in=ids).order_by()}
    rows = [by_id[listing_id] for listing_id in ids]
    if galleries:
        for row in rows:
            row["images"] = [tuple(entry) for entry in row.pop("photo_entries") or ()]
        return rows
    photos = gallery_files(ids)
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


def property_detail_row(*, viewer: User, pk: str) -> dict | None:
    """The listing `pk` as a plain row if the viewer may see it, else None: the listing, its
    record, category and owner's contact, `images` [(id, file name, title)] and `videos`
    [(id, file name, title, created at)] in gallery order. One query on PostgreSQL; elsewhere
    the photos and the videos take a query each. What visitors and customers read is the
    same for them all, and kept in the cache of public reads (listings.cache).

    The API's detail is built from rows like its list pages (listings.api.serializers.
    property_detail_item): model instances and model serializers cost twice as much.
    """
    if viewer_sees_only_public(viewer):
        # Every visitor and customer reads the same public listing: one read for them all.
        return public_read(("detail", pk), lambda: _detail_row(PUBLIC_LISTING, pk))
    return _detail_row(visible_listing(viewer), pk)


def _detail_row(visible: Q, pk: str) -> dict | None:
    galleries = _galleries_in_row(Property.objects.db)
    # order_by(): the model's default order would sort the one row.
    rows = list(_detail_rows(galleries).filter(visible, pk=pk).order_by()[:1])
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


def type_record_visible_to(*, viewer: User, kind: str) -> QuerySet[TypeSpecificRecord]:
    """Type-specific records of one kind whose listing the viewer may see."""
    return TypeSpecificRecord.objects.filter(
        kind=kind, property__in=property_visible_to(viewer=viewer)
    ).select_related("property__owner")
