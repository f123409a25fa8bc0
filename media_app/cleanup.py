"""Removing stored media files: after a commit, never before, and finding strays (D11, D14).

A row's files are deleted only once the transaction that deleted the row has committed: a
rolled-back deletion keeps both the row and its files. The names are read before the rows
go, because afterwards nothing says which files were theirs.

Kept free of listings.services and accounts.services so that both can import it.
"""

import datetime
import logging
from collections.abc import Iterable, Iterator
from functools import partial

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from listings.models import Property
from media_app.files import MEDIA_PREFIX
from media_app.models import Image, Video

logger = logging.getLogger("media_app")


def owned_by_listing(name: str, property_id: str) -> bool:
    """True for a file under the listing's own prefix, the only files its deletion removes.

    Rows may point at shared files (the benchmark data set's photo pool under demo/), which
    other listings still use; those are never deleted with one row.
    """
    return bool(name) and name.startswith(f"{MEDIA_PREFIX}/{property_id}/")


def image_file_names(image: Image) -> list[str]:
    """The stored files of one photo that belong to it: the original and its thumbnails."""
    names = (image.file.name, *image.thumbnails.values())
    return [name for name in names if owned_by_listing(name, image.property_id)]


def video_file_names(video: Video) -> list[str]:
    """The stored file of one video, when it belongs to it."""
    return [video.file.name] if owned_by_listing(video.file.name, video.property_id) else []


def media_files_for_deletion(*, properties: QuerySet[Property]) -> list[str]:
    """Lock these listings and return the names of every file of their photos and videos.

    Call it inside the transaction that deletes the listings, before the delete: the row
    locks make an upload to one of them wait (and then find the listing gone), so no file
    is added after the names are read.
    """
    locked = list(properties.select_for_update().values_list("pk", flat=True))
    names: list[str] = []
    images = Image.objects.filter(property_id__in=locked).values_list(
        "property_id", "file", "thumbnails"
    )
    for property_id, original, thumbnails in images:
        names.extend(
            name for name in (original, *thumbnails.values()) if owned_by_listing(name, property_id)
        )
    videos = Video.objects.filter(property_id__in=locked).values_list("property_id", "file")
    names.extend(name for property_id, name in videos if owned_by_listing(name, property_id))
    return names


def media_files_delete_on_commit(names: Iterable[str]) -> None:
    """Delete these files once the current transaction commits; nothing if it rolls back."""
    names = [name for name in names if name]
    if names:
        transaction.on_commit(partial(media_files_delete, names), robust=True)


def media_files_delete(names: Iterable[str]) -> int:
    """Delete files from the default storage now; returns how many deletions succeeded.

    A file that cannot be deleted (storage down) is logged and left for `media_orphans`.
    """
    deleted = 0
    for name in names:
        try:
            default_storage.delete(name)
        except Exception as error:  # any storage backend error: the row is already gone
            logger.warning("Could not delete media file %s: %s", name, type(error).__name__)
        else:
            deleted += 1
    return deleted


def media_referenced_names() -> set[str]:
    """Every file name a photo or a video row references."""
    names: set[str] = set()
    for original, thumbnails in Image.objects.values_list("file", "thumbnails").iterator():
        names.add(original)
        names.update(thumbnails.values())
    names.update(Video.objects.values_list("file", flat=True).iterator())
    return names


def _stored_names(directory: str) -> Iterator[str]:
    """Every file under a storage directory, depth first."""
    try:
        directories, files = default_storage.listdir(directory)
    except FileNotFoundError:
        return
    for name in sorted(files):
        yield f"{directory}/{name}"
    for name in sorted(directories):
        yield from _stored_names(f"{directory}/{name}")


def media_orphans_find(*, older_than: datetime.timedelta) -> list[str]:
    """Files under `properties/` that no row references and that are older than `older_than`.

    Young files are left out: an upload stores its files a moment before its row commits.
    """
    referenced = media_referenced_names()
    cutoff = timezone.now() - older_than
    orphans = []
    for name in _stored_names(MEDIA_PREFIX):
        if name in referenced:
            continue
        if older_than and default_storage.get_modified_time(name) > cutoff:
            continue
        orphans.append(name)
    return orphans
