"""Writes on media: uploading, reordering, renaming and deleting photos and videos.

Decisions D7 (only the listing's owner and admins write), D11 (formats, limits, storage),
D13 (at most 50 photos and 5 videos per listing) and D14 (files go with their rows).

An upload checks the bytes and writes the files first, then records the row in a short
transaction that holds the listing's row lock: the per-listing limits are counted under that
lock, so two uploads at once cannot both take the last place, and no storage round trip
happens while the lock is held. Files written for an upload that then fails are removed at
once; files of deleted rows are removed after the deletion commits (media_app.cleanup).
"""

from django.conf import settings
from django.core.files import File
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import models, transaction
from django.utils.translation import gettext, gettext_lazy, ngettext

from accounts.models import User
from config.errors import Conflict, NotFound, PermissionRefused, ValidationFailed
from config.ids import new_id
from listings.cache import public_reads_changed
from listings.models import Property
from listings.services import property_is_managed_by
from media_app.cleanup import (
    image_file_names,
    media_files_delete,
    media_files_delete_on_commit,
    video_file_names,
)
from media_app.files import media_file_name
from media_app.images import image_prepare
from media_app.models import GALLERY_ORDER, Image, Video
from media_app.video_locations import video_strip_location
from media_app.videos import video_format_of

LISTING_GONE = gettext_lazy("No listing you can see has this id.")


def _require_manager(*, property: Property, by: User) -> None:
    if not property_is_managed_by(property=property, user=by):
        raise PermissionRefused(
            gettext_lazy("Only the listing's owner may change its photos and videos.")
        )


def _lock_listing(property_id: str) -> Property:
    """The listing under a row lock: gallery changes of one listing apply one at a time."""
    # FOR NO KEY UPDATE: see listings.services._lock.
    return Property.objects.select_for_update(no_key=True).get(pk=property_id)


def _gallery_rows(model: type[models.Model], listing: Property) -> list:
    return list(model.objects.filter(property=listing).order_by(*GALLERY_ORDER).only("position"))


def _renumber(model: type[models.Model], rows: list) -> None:
    """Give rows (in their new order) positions 0..n-1; only changed rows are written."""
    changed = []
    for index, row in enumerate(rows):
        if row.position != index:
            row.position = index
            changed.append(row)
    if changed:
        model.objects.bulk_update(changed, ["position"])


def _check_room(*, model: type[models.Model], count: int) -> None:
    """At most MEDIA_MAX_IMAGES_PER_PROPERTY photos and MEDIA_MAX_VIDEOS_PER_PROPERTY videos."""
    if model is Image:
        limit = settings.MEDIA_MAX_IMAGES_PER_PROPERTY
        message = ngettext(
            "A listing may have at most %(limit)d photo; delete one first.",
            "A listing may have at most %(limit)d photos; delete one first.",
            limit,
        )
    else:
        limit = settings.MEDIA_MAX_VIDEOS_PER_PROPERTY
        message = ngettext(
            "A listing may have at most %(limit)d video; delete one first.",
            "A listing may have at most %(limit)d videos; delete one first.",
            limit,
        )
    if count >= limit:
        raise Conflict(message % {"limit": limit})


def _store(name: str, content: File) -> str:
    """Write a file to the default storage; returns the name it was stored under."""
    return default_storage.save(name, content)


def _record_upload(
    *, model: type[models.Model], property: Property, stored: list[str], fields: dict
) -> models.Model:
    """Insert the row of an upload whose files are stored, last in the listing's gallery.

    On any failure the stored files are deleted: no row will ever reference them.
    """
    try:
        with transaction.atomic():
            try:
                listing = _lock_listing(property.pk)
            except Property.DoesNotExist as error:
                # The listing was deleted while the files were being written.
                raise ValidationFailed(LISTING_GONE, field="propertyId") from error
            rows = _gallery_rows(model, listing)
            _check_room(model=model, count=len(rows))
            _renumber(model, rows)
            public_reads_changed()
            return model.objects.create(property=listing, position=len(rows), **fields)
    except BaseException:
        media_files_delete(stored)
        raise


def image_upload(*, property: Property, by: User, file: File, title: str | None = None) -> Image:
    """Add a photo at the end of a listing's gallery (the first photo is the cover).

    The bytes must be a JPEG, PNG or WebP image within MEDIA_IMAGE_MAX_BYTES and
    MEDIA_IMAGE_MAX_PIXELS (415 / 413). What is stored is the photo re-encoded without any
    metadata, upright, under `properties/<propertyId>/images/<imageId>.<ext>`, and WebP
    copies 400 and 1200 pixels wide beside it (`<imageId>_400.webp`, `<imageId>_1200.webp`).
    """
    _require_manager(property=property, by=by)
    prepared = image_prepare(file)
    # Counted early too, so that a full gallery costs no storage writes.
    _check_room(model=Image, count=Image.objects.filter(property=property).count())
    image_id = new_id()
    stored: list[str] = []
    try:
        original = _store(
            media_file_name(
                property_id=property.pk,
                folder="images",
                object_id=image_id,
                extension=prepared.format.extension,
            ),
            ContentFile(prepared.original),
        )
        stored.append(original)
        thumbnails: dict[str, str] = {}
        for width, data in prepared.thumbnails.items():
            name = media_file_name(
                property_id=property.pk,
                folder="images",
                object_id=image_id,
                extension="webp",
                variant=str(width),
            )
            thumbnails[str(width)] = _store(name, ContentFile(data))
            stored.append(thumbnails[str(width)])
    except BaseException:
        media_files_delete(stored)
        raise
    return _record_upload(
        model=Image,
        property=property,
        stored=stored,
        fields={
            "id": image_id,
            "file": original,
            "title": title,
            "width": prepared.width,
            "height": prepared.height,
            "content_type": prepared.format.content_type,
            "thumbnails": thumbnails,
        },
    )


def video_upload(*, property: Property, by: User, file: File, title: str | None = None) -> Video:
    """Add a video at the end of a listing's videos.

    The bytes must be MP4 or WebM within MEDIA_VIDEO_MAX_BYTES (415 / 413). Where it was
    shot is overwritten in the upload itself, by padding of the same size
    (media_app.video_locations); every other byte is stored as sent. The file is streamed
    to `properties/<propertyId>/videos/<videoId>.<ext>` in chunks (a spooled upload is
    moved, not copied, on the local filesystem); it is never read whole into memory.
    """
    _require_manager(property=property, by=by)
    video_format = video_format_of(file)
    _check_room(model=Video, count=Video.objects.filter(property=property).count())
    video_strip_location(file, video_format=video_format)
    video_id = new_id()
    name = media_file_name(
        property_id=property.pk,
        folder="videos",
        object_id=video_id,
        extension=video_format.extension,
    )
    stored: list[str] = []
    try:
        stored.append(_store(name, file))
    except BaseException:
        media_files_delete(stored)
        raise
    return _record_upload(
        model=Video,
        property=property,
        stored=stored,
        fields={
            "id": video_id,
            "file": stored[0],
            "title": title,
            "content_type": video_format.content_type,
            "size": file.size,
        },
    )


def _locked_item(model: type[models.Model], item: models.Model) -> tuple[Property, models.Model]:
    """The item's listing (locked) and the item read again; 404 when either is gone."""
    try:
        listing = _lock_listing(item.property_id)
        return listing, model.objects.get(pk=item.pk)
    except (Property.DoesNotExist, model.DoesNotExist) as error:
        message = (
            gettext("No image with this id.")
            if model is Image
            else gettext("No video with this id.")
        )
        raise NotFound(message) from error


def _move(model: type[models.Model], listing: Property, item: models.Model, position: int) -> None:
    """Put the item at `position` (past the end: last); the others close up around it."""
    rows = [row for row in _gallery_rows(model, listing) if row.pk != item.pk]
    position = min(position, len(rows))
    rows.insert(position, item)
    _renumber(model, rows)


def _update(
    *,
    model: type[models.Model],
    item: models.Model,
    by: User,
    fields: set[str],
    title: str | None,
    position: int | None,
) -> models.Model:
    _require_manager(property=item.property, by=by)
    listing, current = _locked_item(model, item)
    public_reads_changed()
    if "title" in fields and title != current.title:
        current.title = title
        current.save(update_fields=["title"])
    if "position" in fields and position is not None:
        _move(model, listing, current, position)
    return current


@transaction.atomic
def image_update(
    *,
    image: Image,
    by: User,
    fields: set[str],
    title: str | None = None,
    position: int | None = None,
) -> Image:
    """Rename a photo and/or move it in its listing's gallery.

    `fields` names the attributes the caller sent (so a None title clears it). Moving a
    photo shifts the others so that positions stay 0..n-1 without gaps; a position past
    the end puts it last. Position 0 makes it the cover.
    """
    return _update(model=Image, item=image, by=by, fields=fields, title=title, position=position)


@transaction.atomic
def video_update(
    *,
    video: Video,
    by: User,
    fields: set[str],
    title: str | None = None,
    position: int | None = None,
) -> Video:
    """Rename a video and/or move it among its listing's videos (like image_update)."""
    return _update(model=Video, item=video, by=by, fields=fields, title=title, position=position)


def _delete(*, model: type[models.Model], item: models.Model, by: User, file_names) -> None:
    _require_manager(property=item.property, by=by)
    listing, current = _locked_item(model, item)
    public_reads_changed()
    # The names are read from the row before it goes; the files go after the commit.
    names = file_names(current)
    current.delete()
    _renumber(model, _gallery_rows(model, listing))
    media_files_delete_on_commit(names)


@transaction.atomic
def image_delete(*, image: Image, by: User) -> None:
    """Delete a photo; the others close up, and its files go once the deletion commits."""
    _delete(model=Image, item=image, by=by, file_names=image_file_names)


@transaction.atomic
def video_delete(*, video: Video, by: User) -> None:
    """Delete a video; the others close up, and its file goes once the deletion commits."""
    _delete(model=Video, item=video, by=by, file_names=video_file_names)
