"""The photo and video lists of the back office are to look at: files are added by upload and
changed from the listing's page, through media_app.services, never by a form of their own."""

import pytest
from django.urls import reverse

from media_app.models import Image, Video
from tests.factories import ImageFactory, ListingFactory, VideoFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("model", "factory"), [(Image, ImageFactory), (Video, VideoFactory)])
def test_an_admin_sees_photos_and_videos_but_writes_none_here(back_office, model, factory):
    # given a listing with one item, and another listing
    item = factory(title="Front")
    other = ListingFactory()
    prefix = f"admin:media_app_{model._meta.model_name}"

    # when an admin opens the list and the item, and tries to add, change and delete
    listed = back_office.get(reverse(f"{prefix}_changelist"))
    shown = back_office.get(reverse(f"{prefix}_change", args=[item.pk]))
    add_page = back_office.get(reverse(f"{prefix}_add"))
    added = back_office.post(
        reverse(f"{prefix}_add"), {"property": other.pk, "title": "Sneaked", "position": 0}
    )
    changed = back_office.post(
        reverse(f"{prefix}_change", args=[item.pk]),
        {"property": other.pk, "title": "Changed", "position": 5},
    )
    deleted = back_office.post(reverse(f"{prefix}_delete", args=[item.pk]), {"post": "yes"})

    # then reading works, every write is refused, and nothing changed
    assert (listed.status_code, shown.status_code) == (200, 200)
    assert (add_page.status_code, added.status_code) == (403, 403)
    assert (changed.status_code, deleted.status_code) == (403, 403)
    item.refresh_from_db()
    assert (item.property_id, item.title, item.position) != (other.pk, "Changed", 5)
    assert item.title == "Front"
    assert list(model.objects.values_list("pk", flat=True)) == [item.pk]
