"""GET /properties/:id: the detail shape with category, owner, photos, videos and record."""

import json

import pytest
from django.contrib.auth.models import AnonymousUser
from djangorestframework_camel_case.render import CamelCaseJSONRenderer

from config.api.renderers import CamelCasedJSONRenderer
from listings import selectors
from listings.api.serializers import PropertyDetailSerializer, property_detail_item
from listings.models import PriceChange, Property, PropertyStatus, PropertyType
from tests.factories import (
    CategoryFactory,
    ImageFactory,
    ListingFactory,
    TypeSpecificRecordFactory,
    VideoFactory,
)
from tests.properties.support import (
    DETAIL_KEYS,
    RECORD_FIELDS,
    assert_problem,
    common_fields,
    is_json_number,
    iso,
    property_url,
    records_payload,
)

pytestmark = pytest.mark.django_db


def test_detail_is_the_listing_with_category_owner_photos_videos_and_record(
    anonymous_client, owner, owner_record
):
    # given
    category = CategoryFactory(name="Country houses", description="Homes in the country.")
    listing = ListingFactory(owner=owner_record, category=category)
    record = TypeSpecificRecordFactory(property=listing, kind=PropertyType.HOUSE)
    image = ImageFactory(property=listing, title="Kitchen")
    untitled_image = ImageFactory(property=listing, title=None, position=1)
    video = VideoFactory(property=listing, title="Walkthrough")

    # when
    response = anonymous_client.get(property_url(listing.id))

    # then
    assert response.status_code == 200
    body = response.json()
    assert set(body) == DETAIL_KEYS
    assert body == {
        **common_fields(listing),
        "type": "house",
        "propertyCategory": {
            "id": category.id,
            "name": "Country houses",
            "description": "Homes in the country.",
        },
        "owner": {
            "id": owner_record.id,
            "user": {
                "id": owner.id,
                "name": "Oscar Owner",
                "email": "oscar.owner@example.com",
                "phone": "+34600000002",
            },
        },
        "images": [
            {
                "id": image.id,
                "url": f"http://testserver{image.file.url}",
                "title": "Kitchen",
                "description": "Kitchen",
            },
            {
                "id": untitled_image.id,
                "url": f"http://testserver{untitled_image.file.url}",
                "title": None,
                "description": None,
            },
        ],
        "videos": [
            {
                "id": video.id,
                "url": f"http://testserver{video.file.url}",
                "title": "Walkthrough",
                "createdAt": iso(video.created_at),
            }
        ],
        **records_payload(record),
        "priceHistory": [],
    }


@pytest.mark.parametrize("kind", PropertyType.values)
def test_detail_holds_the_record_under_its_own_key_only(anonymous_client, kind):
    # given
    listing = ListingFactory()
    record = TypeSpecificRecordFactory(property=listing, kind=kind)

    # when
    response = anonymous_client.get(property_url(listing.id))

    # then
    assert response.status_code == 200
    body = response.json()
    assert body["type"] == kind
    assert {key: body[key] for key in records_payload(None)} == records_payload(record)
    [own] = [value for value in records_payload(record).values() if value is not None]
    assert set(own) == {"id", "propertyId"} | RECORD_FIELDS[kind]


def test_detail_without_record_media_or_owner_name(anonymous_client):
    # given
    listing = ListingFactory(owner__user__name=None, owner__user__phone=None)

    # when
    response = anonymous_client.get(property_url(listing.id))

    # then
    assert response.status_code == 200
    body = response.json()
    assert body["type"] is None
    assert body["images"] == []
    assert body["videos"] == []
    assert body["owner"]["user"]["name"] is None
    assert body["owner"]["user"]["phone"] is None
    assert {key: body[key] for key in records_payload(None)} == records_payload(None)


def test_detail_numbers_are_json_numbers_and_timestamps_end_in_z(anonymous_client):
    # given
    listing = ListingFactory(price="1234.50", area="99.90")
    VideoFactory(property=listing)

    # when
    response = anonymous_client.get(property_url(listing.id))

    # then
    body = response.json()
    for key in ("price", "area", "latitude", "longitude"):
        assert is_json_number(body[key]), key
    assert body["price"] == 1234.5
    assert body["area"] == 99.9
    for timestamp in (body["createdAt"], body["updatedAt"], body["videos"][0]["createdAt"]):
        assert timestamp.endswith("Z")


def test_detail_accepts_a_trailing_slash(anonymous_client):
    # given
    listing = ListingFactory()

    # when
    response = anonymous_client.get(f"{property_url(listing.id)}/")

    # then
    assert response.status_code == 200
    assert response.json()["id"] == listing.id


@pytest.mark.parametrize("listing_id", ["zzzzzzzzzzzzzzzzzzzzzzzzz", "not-an-id", "1"])
def test_detail_of_an_unknown_id_is_404(anonymous_client, listing_id):
    # given
    ListingFactory()

    # when
    response = anonymous_client.get(property_url(listing_id))

    # then
    assert_problem(response, status=404, code="not_found")


def test_the_detail_equals_what_the_model_serializer_makes(rf, admin):
    # given listings of every kind with photos and videos, and one with nothing but itself
    listings = []
    for kind in PropertyType.values:
        listing = ListingFactory(price="1234.50", area="80.00")
        TypeSpecificRecordFactory(property=listing, kind=kind)
        ImageFactory(property=listing, position=2, title="Terrace")
        ImageFactory(property=listing, position=0, title=None)
        VideoFactory(property=listing, title="Walkthrough")
        PriceChange.objects.create(property=listing, previous_price="1500", price="1300.25")
        PriceChange.objects.create(property=listing, previous_price="1300.25", price="1234.50")
        listings.append(listing)
    listings.append(ListingFactory(owner__user__name=None, owner__user__phone=None))
    request = rf.get("/api/v1/properties/any")

    for listing in listings:
        # when the detail is built from rows and by the model serializer
        row = selectors.property_detail_row(viewer=admin, pk=listing.id)
        fast = property_detail_item(row, request=request)
        slow = PropertyDetailSerializer(
            selectors.property_detail_loading(Property.objects.all()).get(pk=listing.id),
            context={"request": request},
        ).data

        # then both render to the same JSON
        assert json.loads(CamelCasedJSONRenderer().render(fast)) == json.loads(
            CamelCaseJSONRenderer().render(slow)
        )


def test_the_detail_of_a_listing_the_reader_may_not_see_is_none():
    # given a pending listing
    listing = ListingFactory(status="PENDING")

    # when an anonymous reader's listings are asked for it
    row = selectors.property_detail_row(viewer=AnonymousUser(), pk=listing.id)

    # then there is none
    assert row is None


@pytest.mark.parametrize("status", PropertyStatus.values)
def test_a_read_row_is_visible_to_whom_the_listing_query_shows_it(
    status, customer, owner, other_owner, admin, owner_record
):
    # given a listing of this status, owned by `owner`
    listing = ListingFactory(owner=owner_record, status=status)
    viewers = [AnonymousUser(), customer, owner, other_owner, admin]

    for viewer in viewers:
        # when its row is judged, and the viewer's listings are asked for it
        row = selectors.property_detail_row(viewer=admin, pk=listing.id)
        judged = selectors.row_visible_to(viewer, row)
        queried = Property.objects.filter(selectors.visible_listing(viewer), pk=listing.id)

        # then both agree
        assert judged is queried.exists(), (status, viewer)
