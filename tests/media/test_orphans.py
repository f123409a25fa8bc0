"""`manage.py media_orphans`: files in storage that no row references (D11)."""

import io
import os
import time

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command

from media_app.models import Image
from tests.factories import ImageFactory, VideoFactory
from tests.media.conftest import stored_files
from tests.media.support import jpeg_bytes, upload_image

pytestmark = pytest.mark.django_db


def run(*arguments: str) -> list[str]:
    """Run the command; its output lines."""
    out = io.StringIO()
    call_command("media_orphans", *arguments, stdout=out)
    return out.getvalue().splitlines()


def put(name: str, *, age_seconds: int = 0) -> str:
    """Store a stray file, its modification time `age_seconds` in the past."""
    stored = default_storage.save(name, ContentFile(b"stray bytes"))
    if age_seconds:
        moment = time.time() - age_seconds
        os.utime(default_storage.path(stored), (moment, moment))
    return stored


@pytest.fixture
def referenced(owner_client, listing) -> list[str]:
    """An uploaded photo (original and thumbnails), a factory photo and a video: all in use."""
    assert upload_image(owner_client, listing.id, jpeg_bytes()).status_code == 201
    ImageFactory(property=listing)
    VideoFactory(property=listing)
    names = []
    for image in Image.objects.all():
        names += [image.file.name, *image.thumbnails.values()]
    return sorted([*names, listing.videos.get().file.name])


def test_orphans_are_reported_and_nothing_is_removed(referenced, listing, media_root):
    # given two stray files, an hour and a half old
    strays = sorted(
        [
            put(f"properties/{listing.id}/images/gone.jpg", age_seconds=5400),
            put("properties/nosuchlisting0000000000000/videos/gone.mp4", age_seconds=5400),
        ]
    )

    # when
    lines = run()

    # then only they are reported, and every file is still there
    assert lines == [*strays, "2 orphaned file(s)."]
    assert stored_files(media_root) == sorted(referenced + strays)


def test_delete_removes_the_orphans_and_keeps_what_rows_reference(referenced, listing, media_root):
    stray = put(f"properties/{listing.id}/images/gone_400.webp", age_seconds=5400)

    lines = run("--delete")

    assert lines == [stray, "1 orphaned file(s), 1 deleted."]
    assert stored_files(media_root) == referenced


def test_young_files_are_left_alone_for_the_uploads_in_progress(referenced, listing, media_root):
    # given a stray file written a moment ago, as an upload does before its row commits
    young = put(f"properties/{listing.id}/images/uploading.jpg")

    # when the default minimum age (an hour) applies
    lines = run("--delete")

    # then it is not touched; with --min-age 0 it is
    assert lines == ["0 orphaned file(s), 0 deleted."]
    assert young in stored_files(media_root)
    assert run("--min-age", "0") == [young, "1 orphaned file(s)."]


def test_files_outside_the_media_prefix_are_not_considered(media_root):
    put("elsewhere/readme.txt", age_seconds=5400)

    assert run("--delete") == ["0 orphaned file(s), 0 deleted."]
    assert stored_files(media_root) == ["elsewhere/readme.txt"]


def test_an_empty_storage_has_no_orphans(media_root):
    assert run() == ["0 orphaned file(s)."]
