"""Reads of media: photos and videos follow the visibility of their listing (D7)."""

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db.models import QuerySet

from accounts.models import User
from listings.models import Property
from listings.selectors import property_visible_to
from media_app.models import GALLERY_ORDER, Image, Video


def image_visible_to(*, viewer: User) -> QuerySet[Image]:
    """Photos of the listings the viewer may see, with the listing's owner for write checks."""
    return Image.objects.filter(property__in=property_visible_to(viewer=viewer)).select_related(
        "property__owner"
    )


def video_visible_to(*, viewer: User) -> QuerySet[Video]:
    """Videos of the listings the viewer may see, with the listing's owner for write checks."""
    return Video.objects.filter(property__in=property_visible_to(viewer=viewer)).select_related(
        "property__owner"
    )


def image_gallery(*, property: Property) -> QuerySet[Image]:
    """A listing's photos in gallery order (position, then createdAt, then id)."""
    return Image.objects.filter(property=property).order_by(*GALLERY_ORDER)


def video_gallery(*, property: Property) -> QuerySet[Video]:
    """A listing's videos in gallery order (position, then createdAt, then id)."""
    return Video.objects.filter(property=property).order_by(*GALLERY_ORDER)


# How long the cache keeps whether a photo's file is in the storage. A stored file only
# goes away with its row (image_delete), so "there" is kept for a day; "missing" (a storage
# restored without some files, a row copied from elsewhere) is asked again after 5 minutes.
FILE_THERE_SECONDS = 24 * 60 * 60
FILE_MISSING_SECONDS = 5 * 60


def media_files_stored(names: Iterable[str]) -> set[str]:
    """The names among these whose files are in the default storage.

    A page shows only files that are there, so no image request of the site ends in a 404.
    The storage is asked once per file (a stat on disk, a HEAD request on S3); the answers
    are kept in the cache, so a page costs one cache read for all its photos.
    """
    wanted = list(dict.fromkeys(name for name in names if name))
    keys = {name: "media-file:" + hashlib.sha256(name.encode()).hexdigest() for name in wanted}
    known = cache.get_many(keys.values())
    there = {name for name in wanted if known.get(keys[name]) is True}
    unknown = [name for name in wanted if keys[name] not in known]
    found = {name for name in unknown if default_storage.exists(name)}
    if found:
        cache.set_many({keys[name]: True for name in found}, FILE_THERE_SECONDS)
    if missing := [name for name in unknown if name not in found]:
        cache.set_many({keys[name]: False for name in missing}, FILE_MISSING_SECONDS)
    return there | found


@dataclass(frozen=True)
class PhotoSource:
    """A photo as a page shows it, from those of its files that are in the storage.

    `src` is the 400 px copy (else the smallest file there); `srcset` lists the resized
    copies with their widths, for a photo on the page; `full_url` is the original (else the
    widest copy) and `full_srcset` adds it to the copies, for the photo seen full size.
    `width` and `height` are the photo's own: its aspect ratio, so the page does not shift.
    """

    image: Image
    src: str
    srcset: str
    full_url: str
    full_srcset: str
    width: int | None
    height: int | None


def _copies(image: Image) -> list[tuple[str, int]]:
    """The photo's resized copies as (storage name, width in pixels), narrowest first. A
    copy is never wider than the photo (media_app.images), so its width is capped by it."""
    copies = []
    for key, name in (image.thumbnails or {}).items():
        if name and str(key).isdigit():
            width = min(int(key), image.width) if image.width else int(key)
            copies.append((name, width))
    return sorted(copies, key=lambda copy: copy[1])


def _srcset(files: list[tuple[str, int | None]]) -> str:
    """`url 400w, url 1200w`: one URL per width (the first given), files of unknown width
    left out."""
    urls: dict[int, str] = {}
    for name, width in files:
        if width:
            urls.setdefault(width, default_storage.url(name))
    return ", ".join(f"{url} {width}w" for width, url in sorted(urls.items()))


def photo_sources(images: Iterable[Image]) -> list[PhotoSource]:
    """What pages show of these photos, in their order; a photo none of whose files is in
    the storage is left out (a page with none left shows its placeholder)."""
    images = list(images)
    copies = {image.pk: _copies(image) for image in images}
    stored = media_files_stored(
        [image.file.name for image in images]
        + [name for pairs in copies.values() for name, _width in pairs]
    )
    sources = []
    for image in images:
        there = [(name, width) for name, width in copies[image.pk] if name in stored]
        original = [(image.file.name, image.width)] if image.file.name in stored else []
        files = there + original
        if not files:
            continue
        sources.append(
            PhotoSource(
                image=image,
                src=default_storage.url(files[0][0]),
                srcset=_srcset(there),
                full_url=default_storage.url(files[-1][0]),
                full_srcset=_srcset(files),
                width=image.width,
                height=image.height,
            )
        )
    return sources
