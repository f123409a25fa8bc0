"""The cache of public reads (listings.cache): served again without the database, never stale.

Writes make cached reads stale when they commit; Django's test transaction never commits,
so the writes here run inside django_capture_on_commit_callbacks(execute=True), which runs
the commit callbacks as a commit would.
"""

import pytest
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext

from accounts.services import user_delete, user_update
from listings import search, services
from listings.cache import GENERATION_KEY
from listings.models import PropertyStatus, PropertyType
from media_app.models import Image
from media_app.services import image_delete, image_update, image_upload
from tests.factories import ImageFactory, ListingFactory, TypeSpecificRecordFactory
from tests.media.support import jpeg_bytes
from tests.properties.support import PROPERTIES_URL, property_url

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cache_on")]


@pytest.fixture
def flat(owner_record, category):
    """One public flat with a photo, the one the cache's tests read."""
    flat = ListingFactory(owner=owner_record, category=category, title="Sunny flat")
    TypeSpecificRecordFactory(property=flat, kind="apartment")
    ImageFactory(property=flat)
    return flat


def read_twice(client, url, django_assert_num_queries, *, queries_on_hit=0, **parameters):
    """The first answer, after checking that the same request again is the same bytes from
    the cache (`queries_on_hit` queries: a signed-in reader's token is still checked)."""
    first = client.get(url, parameters)
    assert first.status_code == 200, first.content
    with django_assert_num_queries(queries_on_hit):
        again = client.get(url, parameters)
    assert again.status_code == 200
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"] == "application/json"
    return first.json()


def test_an_anonymous_list_page_is_served_again_without_a_query(
    anonymous_client, flat, django_assert_num_queries
):
    # when the same page is read twice
    body = read_twice(anonymous_client, PROPERTIES_URL, django_assert_num_queries, limit=5)

    # then the second came from the cache, whole
    assert [item["title"] for item in body["properties"]] == ["Sunny flat"]
    assert body["totalItems"] == 1


def test_a_customer_detail_is_served_again_with_only_the_token_checked(
    customer_client, flat, django_assert_num_queries
):
    body = read_twice(
        customer_client, property_url(flat.id), django_assert_num_queries, queries_on_hit=1
    )

    assert body["id"] == flat.id
    assert body["title"] == "Sunny flat"


@pytest.mark.parametrize("viewer", ["owner", "admin"])
def test_owners_and_admins_are_never_served_from_the_cache(clients, flat, viewer):
    # given a pending listing of the owner, hidden from the public
    pending = ListingFactory(
        owner=flat.owner, status=PropertyStatus.PENDING, title="Not yet public"
    )
    anonymous = clients["anonymous"].get(PROPERTIES_URL).json()
    assert [item["id"] for item in anonymous["properties"]] == [flat.id]

    # when the owner and an admin read the same page
    seen = clients[viewer].get(PROPERTIES_URL).json()

    # then they see what they may see, not the public's cached page
    assert {item["id"] for item in seen["properties"]} == {flat.id, pending.id}


def test_another_host_is_not_served_the_photo_urls_of_the_first(anonymous_client, flat, settings):
    settings.ALLOWED_HOSTS = ["testserver", "mirror.example.com"]
    first = anonymous_client.get(PROPERTIES_URL).json()
    mirrored = anonymous_client.get(PROPERTIES_URL, HTTP_HOST="mirror.example.com").json()

    assert first["properties"][0]["images"][0]["url"].startswith("http://testserver/")
    assert mirrored["properties"][0]["images"][0]["url"].startswith("http://mirror.example.com/")


def test_what_is_kept_is_the_result_never_a_page_or_an_error(
    anonymous_client, flat, django_assert_num_queries
):
    # given an HTML page and a refused request, each made once
    html = anonymous_client.get(PROPERTIES_URL, HTTP_ACCEPT="text/html")
    refused = anonymous_client.get(PROPERTIES_URL, {"page": "0"})
    assert html.status_code == 200
    assert html["Content-Type"].startswith("text/html")
    assert refused.status_code == 400

    # when the JSON page is read, then it is the search's kept result, rendered as JSON
    with django_assert_num_queries(0):
        json_page = anonymous_client.get(PROPERTIES_URL)
    assert json_page.status_code == 200
    assert json_page["Content-Type"] == "application/json"
    assert [item["id"] for item in json_page.json()["properties"]] == [flat.id]


def test_nothing_is_cached_when_the_cache_time_is_zero(
    anonymous_client, flat, settings, django_assert_max_num_queries
):
    settings.PUBLIC_READ_CACHE_SECONDS = 0
    anonymous_client.get(PROPERTIES_URL)

    with django_assert_max_num_queries(8) as captured:
        response = anonymous_client.get(PROPERTIES_URL)

    assert response.status_code == 200
    assert len(captured) > 0


# --- Writes make the cached reads stale -------------------------------------------------


def reads(client, flat) -> tuple[dict, dict]:
    """The list page and the detail of `listing`, as the public reads them now."""
    return client.get(PROPERTIES_URL).json(), client.get(property_url(flat.id)).json()


def test_a_changed_listing_is_read_changed(
    anonymous_client, flat, owner, django_capture_on_commit_callbacks
):
    # given both reads cached
    reads(anonymous_client, flat)

    # when the owner renames the listing
    with django_capture_on_commit_callbacks(execute=True):
        services.property_update(property=flat, by=owner, changes={"title": "Bright flat"})

    # then both reads show the new title
    page, detail = reads(anonymous_client, flat)
    assert page["properties"][0]["title"] == "Bright flat"
    assert detail["title"] == "Bright flat"


def test_a_page_read_before_a_write_committed_is_not_served_after_it(
    anonymous_client, flat, owner, monkeypatch, django_capture_on_commit_callbacks
):
    # given a reader whose rows are read just before a rename commits (a race between
    # the reader's query and the storing of its page)
    read_page = search.property_list_rows

    def read_then_rename(*args, **kwargs):
        rows = read_page(*args, **kwargs)
        with django_capture_on_commit_callbacks(execute=True):
            services.property_update(property=flat, by=owner, changes={"title": "Bright flat"})
        return rows

    monkeypatch.setattr(search, "property_list_rows", read_then_rename)
    before = anonymous_client.get(PROPERTIES_URL).json()
    monkeypatch.setattr(search, "property_list_rows", read_page)

    # when the page is read again
    after = anonymous_client.get(PROPERTIES_URL).json()

    # then the first reader saw the old title, and what it stored is not served again
    assert before["properties"][0]["title"] == "Sunny flat"
    assert after["properties"][0]["title"] == "Bright flat"


def test_a_suspended_listing_leaves_the_cached_reads(
    anonymous_client, flat, admin, django_capture_on_commit_callbacks
):
    reads(anonymous_client, flat)

    with django_capture_on_commit_callbacks(execute=True):
        services.property_change_status(property=flat, by=admin, status=PropertyStatus.SUSPENDED)

    assert anonymous_client.get(PROPERTIES_URL).json()["properties"] == []
    assert anonymous_client.get(property_url(flat.id)).status_code == 404


def test_a_changed_record_is_read_changed(
    anonymous_client, flat, owner, django_capture_on_commit_callbacks
):
    reads(anonymous_client, flat)

    with django_capture_on_commit_callbacks(execute=True):
        services.type_record_update(record=flat.type_record, by=owner, values={"rooms": 9})

    page, detail = reads(anonymous_client, flat)
    assert page["properties"][0]["apartment"]["rooms"] == 9
    assert detail["apartment"]["rooms"] == 9


def test_photo_changes_are_read_changed(
    anonymous_client, flat, owner, media_root, django_capture_on_commit_callbacks
):
    # given both reads cached with the one photo
    first = flat.images.get()
    reads(anonymous_client, flat)

    # when a photo is uploaded, then it is in both reads
    with django_capture_on_commit_callbacks(execute=True):
        added = image_upload(
            property=flat, by=owner, file=ContentFile(jpeg_bytes(), name="new.jpg")
        )
    page, detail = reads(anonymous_client, flat)
    assert [image["id"] for image in page["properties"][0]["images"]] == [first.id, added.id]
    assert [image["id"] for image in detail["images"]] == [first.id, added.id]

    # when it is made the cover, then it comes first
    with django_capture_on_commit_callbacks(execute=True):
        image_update(image=added, by=owner, fields={"position"}, position=0)
    page, _detail = reads(anonymous_client, flat)
    assert [image["id"] for image in page["properties"][0]["images"]] == [added.id, first.id]

    # when the old one is deleted, then it is gone from both
    with django_capture_on_commit_callbacks(execute=True):
        image_delete(image=Image.objects.get(pk=first.pk), by=owner)
    page, detail = reads(anonymous_client, flat)
    assert [image["id"] for image in page["properties"][0]["images"]] == [added.id]
    assert [image["id"] for image in detail["images"]] == [added.id]


def test_the_owners_new_phone_and_the_categorys_new_name_are_read_changed(
    anonymous_client, flat, owner, category, django_capture_on_commit_callbacks
):
    reads(anonymous_client, flat)

    with django_capture_on_commit_callbacks(execute=True):
        user_update(user=owner, by=owner, phone="+34699999999", fields={"phone"})
    detail = anonymous_client.get(property_url(flat.id)).json()
    assert detail["owner"]["user"]["phone"] == "+34699999999"

    with django_capture_on_commit_callbacks(execute=True):
        services.category_update(category=category, name="Lofts")
    detail = anonymous_client.get(property_url(flat.id)).json()
    assert detail["propertyCategory"]["name"] == "Lofts"


def test_a_deleted_owners_listings_leave_the_cached_reads(
    anonymous_client, flat, owner, django_capture_on_commit_callbacks
):
    reads(anonymous_client, flat)

    with django_capture_on_commit_callbacks(execute=True):
        user_delete(user=owner, by=owner)

    assert anonymous_client.get(PROPERTIES_URL).json()["properties"] == []
    assert anonymous_client.get(property_url(flat.id)).status_code == 404


def test_a_write_that_rolls_back_keeps_the_cached_reads(
    anonymous_client,
    flat,
    owner,
    django_assert_num_queries,
    django_capture_on_commit_callbacks,
):
    # given a cached page and its generation
    reads(anonymous_client, flat)
    generation = cache.get(GENERATION_KEY)

    # when a write fails in the database (a listing's title is required)
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(IntegrityError),
    ):
        services.property_update(property=flat, by=owner, changes={"title": None})

    # then nothing waits for a commit: the generation, and the cached page, stay
    assert callbacks == []
    assert cache.get(GENERATION_KEY) == generation
    with django_assert_num_queries(0):
        assert anonymous_client.get(PROPERTIES_URL).status_code == 200


def test_public_reads_are_served_from_redis(
    redis_cache, anonymous_client, flat, django_assert_num_queries
):
    # given the platform's cache on Redis, as in production (redis_cache)
    # when the list and the listing are read twice
    # then the second answers are the first ones, from Redis, without a query
    read_twice(anonymous_client, PROPERTIES_URL, django_assert_num_queries)
    read_twice(anonymous_client, property_url(flat.id), django_assert_num_queries)


# --- Counts kept between the pages of a search ------------------------------------------


@pytest.mark.parametrize("next_read", [{"page": 2}, {"sort": "price"}])
def test_the_next_page_or_order_of_a_search_reads_its_kept_count(
    anonymous_client, owner_record, category, next_read
):
    # given a counted search for houses, three of them
    for _ in range(3):
        ListingFactory(owner=owner_record, category=category, kind=PropertyType.HOUSE)
    ListingFactory(owner=owner_record, category=category, kind=PropertyType.APARTMENT)
    first = anonymous_client.get(PROPERTIES_URL, {"type": "house", "limit": 2}).json()

    # when its next page, or the search in another order, is read
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {"type": "house", "limit": 2, **next_read})

    # then the listings are read, and the count is the kept one: nothing counted again
    assert response.status_code == 200
    assert first["totalItems"] == response.json()["totalItems"] == 3
    assert len(response.json()["properties"]) == (1 if "page" in next_read else 2)
    statements = [query["sql"].upper() for query in queries.captured_queries]
    assert statements, "the page's listings are read from the database"
    assert not [sql for sql in statements if "COUNT(" in sql], statements


def test_another_search_is_counted_on_its_own(anonymous_client, owner_record, category):
    # given a counted search for houses
    ListingFactory(owner=owner_record, category=category, kind=PropertyType.HOUSE)
    ListingFactory(owner=owner_record, category=category, kind=PropertyType.APARTMENT)
    houses = anonymous_client.get(PROPERTIES_URL, {"type": "house"}).json()

    # when flats are searched
    flats = anonymous_client.get(PROPERTIES_URL, {"type": "apartment", "limit": 5}).json()

    # then each has its own count
    assert (houses["totalItems"], flats["totalItems"]) == (1, 1)
    assert anonymous_client.get(PROPERTIES_URL, {"limit": 5}).json()["totalItems"] == 2


def test_a_kept_count_is_counted_again_after_a_write(
    anonymous_client, owner_record, admin, category, django_capture_on_commit_callbacks
):
    # given a counted search, and a listing waiting for approval
    ListingFactory(owner=owner_record, category=category)
    pending = ListingFactory(owner=owner_record, category=category, status=PropertyStatus.PENDING)
    assert anonymous_client.get(PROPERTIES_URL, {"limit": 5}).json()["totalItems"] == 1

    # when the listing is approved and the search's next page is read
    with django_capture_on_commit_callbacks(execute=True):
        services.property_change_status(property=pending, by=admin, status=PropertyStatus.AVAILABLE)
    second_page = anonymous_client.get(PROPERTIES_URL, {"limit": 5, "page": 2}).json()

    # then it was counted again
    assert second_page["totalItems"] == 2
    assert second_page["properties"] == []


@pytest.mark.parametrize("viewer", ["owner", "admin"])
def test_owners_and_admins_never_read_a_kept_count(clients, owner_record, category, viewer):
    # given the public's count of a search, kept
    ListingFactory(owner=owner_record, category=category)
    ListingFactory(owner=owner_record, category=category, status=PropertyStatus.PENDING)
    assert clients["anonymous"].get(PROPERTIES_URL, {"limit": 5}).json()["totalItems"] == 1

    # when an owner or an admin reads another page of it
    seen = clients[viewer].get(PROPERTIES_URL, {"limit": 5, "page": 2}).json()

    # then they are counted what they see, the pending listing too
    assert seen["totalItems"] == 2


# --- Only anonymous JSON is shared --------------------------------------------------------


@pytest.mark.parametrize("shared_cache", ["local memory", "redis"])
def test_a_customers_browsable_page_never_reaches_another_reader(
    request, customer, customer_client, anonymous_client, flat, shared_cache
):
    # given the cache on Redis as in production, or the local one of the test settings
    if shared_cache == "redis":
        request.getfixturevalue("redis_cache")
    # and a signed-in customer who reads the browsable API's page of a search
    url = f"{PROPERTIES_URL}?x=n1"
    signed_in = customer_client.get(url, HTTP_ACCEPT="text/html")
    assert signed_in.status_code == 200
    assert customer.email in signed_in.text

    # when an anonymous visitor reads the same page as HTML within the cache's time
    anonymous = anonymous_client.get(url, HTTP_ACCEPT="text/html")

    # then it shows nothing of the customer: no email, no CSRF token
    assert anonymous.status_code == 200
    assert customer.email not in anonymous.text
    assert "csrfmiddlewaretoken" not in anonymous.text
    assert "csrftoken" not in anonymous.text
