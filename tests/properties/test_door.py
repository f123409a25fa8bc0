"""Anonymous visitors' cached reads served at the door (listings.middleware), before the
rest of the stack: whole as the stack made them, rate-limited, and only for them."""

import pytest
from django.core.cache import cache

from listings import services
from listings.api.views import PropertyViewSet
from tests.api.support import assert_problem
from tests.factories import ListingFactory
from tests.properties.support import PROPERTIES_URL, property_url

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cache_on")]


@pytest.fixture
def views_run(monkeypatch):
    """How many requests reached the listings' view (DRF's initial(): authentication,
    rate limits, negotiation), by path."""
    reached = []
    initial = PropertyViewSet.initial

    def counting_initial(view, request, *args, **kwargs):
        reached.append(request.path)
        return initial(view, request, *args, **kwargs)

    monkeypatch.setattr(PropertyViewSet, "initial", counting_initial)
    return reached


@pytest.mark.parametrize("path", ["list", "detail"])
def test_a_cached_read_is_served_at_the_door_as_the_stack_sent_it(
    anonymous_client, listing, views_run, django_assert_num_queries, path
):
    # given a read the whole stack answered
    url = PROPERTIES_URL if path == "list" else property_url(listing.id)
    first = anonymous_client.get(url, HTTP_ACCEPT="application/json")
    assert first.status_code == 200
    assert views_run == [url]

    # when it is read again
    with django_assert_num_queries(0):
        again = anonymous_client.get(url, HTTP_ACCEPT="application/json")

    # then the door answered it without the view, with the same body and every header
    assert views_run == [url]
    assert again.status_code == 200
    assert again.content == first.content
    assert dict(again.items()) == dict(first.items())
    assert again["Content-Security-Policy"].startswith("default-src 'self'")
    assert again["X-Frame-Options"] == "DENY"
    assert again["Vary"] == "Accept, Cookie"


@pytest.mark.parametrize("accept", [None, "*/*", "application/json"])
def test_the_door_serves_every_way_of_asking_for_json_plainly(
    anonymous_client, listing, views_run, accept
):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    first = anonymous_client.get(PROPERTIES_URL, **headers)

    again = anonymous_client.get(PROPERTIES_URL, **headers)

    assert views_run == [PROPERTIES_URL]
    assert again.content == first.content


def test_the_rate_limit_counts_a_read_once_whether_the_door_or_the_view_answers(
    anonymous_client, listing, throttle_rates, views_run
):
    # given three reads a minute for an anonymous address
    throttle_rates(anonymous="3/min")

    # when one address reads a page four times: a miss, then hits
    statuses = [
        anonymous_client.get(PROPERTIES_URL, REMOTE_ADDR="203.0.113.7").status_code
        for _ in range(3)
    ]
    refused = anonymous_client.get(PROPERTIES_URL, REMOTE_ADDR="203.0.113.7")

    # then the miss was counted once (by the door, taken by the view's throttle), the hits
    # once each, and the fourth read is refused by the stack as any throttled request is
    assert statuses == [200, 200, 200]
    assert_problem(refused, 429, "throttled")
    assert int(refused["Retry-After"]) > 0
    assert views_run == [PROPERTIES_URL, PROPERTIES_URL]
    # and another address reads on
    assert anonymous_client.get(PROPERTIES_URL, REMOTE_ADDR="198.51.100.9").status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ACCEPT": "text/html"},
        {"HTTP_ACCEPT": "application/json; indent=4"},
        {"HTTP_ACCEPT": "application/json, text/plain, */*"},
    ],
    ids=["html", "json with parameters", "several types"],
)
def test_other_accept_headers_are_negotiated_by_the_view(
    anonymous_client, listing, views_run, headers
):
    anonymous_client.get(PROPERTIES_URL)
    reads = [anonymous_client.get(PROPERTIES_URL, **headers) for _ in range(2)]

    assert [read.status_code for read in reads] == [200, 200]
    assert views_run == [PROPERTIES_URL] * 3


def test_a_format_in_the_query_is_negotiated_by_the_view(anonymous_client, listing, views_run):
    anonymous_client.get(PROPERTIES_URL, {"format": "json"})
    again = anonymous_client.get(PROPERTIES_URL, {"format": "json"})

    assert again.status_code == 200
    assert views_run == [PROPERTIES_URL] * 2


def test_credentials_are_never_passed_by_at_the_door(anonymous_client, listing, views_run):
    # given a cached page
    anonymous_client.get(PROPERTIES_URL)

    # when it is read with a token that is no longer valid
    refused = anonymous_client.get(PROPERTIES_URL, HTTP_AUTHORIZATION="Bearer not-a-token")

    # then authentication refuses it: the cached page is not what the door answers
    assert refused.status_code == 401
    assert views_run == [PROPERTIES_URL] * 2


def test_a_session_is_never_served_at_the_door(
    anonymous_client, listing, admin_user, views_run, client
):
    # given a cached page, and an administrator signed in on the website (a session)
    pending = ListingFactory(owner=listing.owner, status="PENDING", title="Not yet public")
    anonymous_client.get(PROPERTIES_URL)
    client.force_login(admin_user)

    # when the administrator reads the page through the API with the session's cookie
    seen = client.get(PROPERTIES_URL, HTTP_ACCEPT="application/json").json()

    # then the view answered, with what an administrator sees
    assert {item["id"] for item in seen["properties"]} == {listing.id, pending.id}
    assert views_run == [PROPERTIES_URL] * 2


def test_a_customers_read_is_kept_for_the_view_and_then_whole_for_the_door(
    anonymous_client, customer_client, listing, views_run, django_assert_num_queries
):
    # given a page a customer read first (kept without an anonymous visitor's headers)
    first = customer_client.get(PROPERTIES_URL)
    assert first.status_code == 200

    # when an anonymous visitor reads it twice
    with django_assert_num_queries(0):
        second = anonymous_client.get(PROPERTIES_URL)
    with django_assert_num_queries(0):
        third = anonymous_client.get(PROPERTIES_URL)

    # then the view served the kept content once, keeping it whole, and the door after
    assert second.content == third.content == first.content
    assert views_run == [PROPERTIES_URL] * 2
    assert dict(third.items()) == dict(second.items())


def test_a_host_not_allowed_is_refused_by_the_stack(anonymous_client, listing):
    anonymous_client.get(PROPERTIES_URL)

    refused = anonymous_client.get(PROPERTIES_URL, HTTP_HOST="evil.example.com")

    assert refused.status_code == 400


def test_other_paths_and_methods_pass_the_door(anonymous_client, listing, views_run):
    anonymous_client.get(PROPERTIES_URL)

    categories = anonymous_client.get("/api/v1/categories")
    head = anonymous_client.head(PROPERTIES_URL)

    assert (categories.status_code, head.status_code) == (200, 200)
    assert views_run == [PROPERTIES_URL] * 2


def test_a_write_makes_the_doors_entry_stale(
    anonymous_client, listing, owner_user, django_capture_on_commit_callbacks
):
    anonymous_client.get(property_url(listing.id))
    with django_capture_on_commit_callbacks(execute=True):
        services.property_update(property=listing, by=owner_user, changes={"title": "Renamed"})

    again = anonymous_client.get(property_url(listing.id))

    assert again.json()["title"] == "Renamed"


def test_with_redis_a_hit_at_the_door_is_one_round_trip(
    redis_cache, anonymous_client, listing, views_run, monkeypatch
):
    # given the production cache on Redis (redis_cache), its commands counted
    first = anonymous_client.get(PROPERTIES_URL)
    client = cache._cache.get_client(write=True)
    commands = []
    execute = type(client).execute_command

    def counting(redis_client, *args, **options):
        commands.append(args[0])
        return execute(redis_client, *args, **options)

    monkeypatch.setattr(type(client), "execute_command", counting)

    # when the page is read again
    again = anonymous_client.get(PROPERTIES_URL)

    # then one script counted the hit and read the generation and the page
    assert again.content == first.content
    assert commands == ["EVALSHA"]
    assert views_run == [PROPERTIES_URL]
