"""Files shared by several rows (the benchmark's photo pool) survive one listing's deletion."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from listings.services import property_delete
from media_app.models import Image
from tests.factories import AdminFactory, ListingFactory

pytestmark = pytest.mark.django_db


def test_deleting_a_listing_keeps_files_outside_its_own_prefix(
    django_capture_on_commit_callbacks,
):
    # given two listings whose photos point at one shared pool file
    shared = default_storage.save("demo/pool/photo-01.jpg", ContentFile(b"\xff\xd8shared"))
    first, second = ListingFactory(), ListingFactory()
    for listing in (first, second):
        Image.objects.create(property=listing, file=shared, width=10, height=10)
    admin = AdminFactory().user

    # when the first listing is deleted and the transaction commits
    with django_capture_on_commit_callbacks(execute=True):
        property_delete(property=first, by=admin)

    # then the shared file is still there for the second listing
    assert default_storage.exists(shared)
    assert Image.objects.filter(property=second).count() == 1
