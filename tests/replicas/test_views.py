"""Public pages and API reads through the router, on two real servers: the standby serves
them, and a client that has just written reads from the primary for a while.

With the standby's replay paused, what a client reads shows which server answered: a
change committed on the primary is there only.
"""

import time

import pytest
from django.urls import reverse

from config.routers import user_wrote_lately
from listings.cache import GENERATION_KEY
from tests.factories import ListingFactory
from tests.replicas.conftest import (
    DATABASES,
    replay_caught_up,
    replay_paused,
    standby_serves_again,
    wait_for,
)
from tests.support import signed_in_client

pytestmark = [
    pytest.mark.postgres_only,
    pytest.mark.django_db(transaction=True, databases=DATABASES),
]


def detail_url(listing) -> str:
    return reverse("properties-detail", args=[listing.pk])


def kept_seconds(redis_cache) -> int:
    """The seconds left to the one entry of the cache of public reads (django-redis)."""
    [entry] = set(redis_cache.keys("listings:public-reads:*")) - {GENERATION_KEY}
    return redis_cache.ttl(entry)


def test_the_api_search_detail_and_places_read_from_the_standby(within_bound, anonymous_client):
    # given a listing on both servers
    listing = ListingFactory(municipality="Madrid")
    replay_caught_up()

    with replay_paused():
        # when another, in a new town, is committed on the primary only
        unreplicated = ListingFactory(municipality="Zaragoza")

        # then the API's public reads are the standby's, without it
        search = anonymous_client.get(reverse("properties-list"))
        assert search.status_code == 200
        assert [item["id"] for item in search.json()["properties"]] == [listing.pk]
        assert anonymous_client.get(detail_url(unreplicated)).status_code == 404
        places = anonymous_client.get(reverse("places-list"), {"q": "Zar"})
        assert places.status_code == 200
        assert places.json() == {"places": []}

    # and once the standby has applied it, they show it
    replay_caught_up()
    assert anonymous_client.get(detail_url(unreplicated)).status_code == 200


def test_the_website_search_and_listing_page_read_from_the_standby(within_bound, client):
    # given a listing on both servers
    listing = ListingFactory(title="Replicated cottage")
    replay_caught_up()

    with replay_paused():
        # when another is committed on the primary only
        unreplicated = ListingFactory(title="Unreplicated loft")

        # then the website's search and listing page are the standby's, without it
        search = client.get(reverse("home"))
        assert search.status_code == 200
        assert listing.title in search.text
        assert unreplicated.title not in search.text
        page = client.get(unreplicated.get_absolute_url())
        assert page.status_code == 404


def test_the_writer_reads_its_write_from_the_primary_for_the_sticky_window(
    within_bound, settings, redis_cache, owner, listing, customer_client, anonymous_client
):
    # given the mark of writers in Redis, as every web node shares it, for 2 s
    settings.DATABASE_REPLICA_STICKY_SECONDS = 2
    owner_client = signed_in_client(owner)
    replay_caught_up()

    with replay_paused():
        # when the owner changes the listing's title (on the primary only)
        changed = owner_client.patch(detail_url(listing), {"title": "Renamed"}, format="json")
        assert changed.status_code == 200
        written_at = time.monotonic()

        # then the owner's next read is the primary's, and has the change
        assert user_wrote_lately(owner)
        assert owner_client.get(detail_url(listing)).json()["title"] == "Renamed"

        # while other clients read the standby's, without it
        assert customer_client.get(detail_url(listing)).json()["title"] == listing.title
        assert anonymous_client.get(detail_url(listing)).json()["title"] == listing.title

        # and once the window has passed, the owner reads the standby's again
        time.sleep(max(0.0, written_at + 2.1 - time.monotonic()))
        assert not user_wrote_lately(owner)
        assert owner_client.get(detail_url(listing)).json()["title"] == listing.title


def test_a_refused_write_does_not_send_the_writer_to_the_primary(
    within_bound, owner, owner_client, listing
):
    replay_caught_up()

    with replay_paused():
        # given a change committed on the primary only, by another path than the API
        listing.title = "Changed elsewhere"
        listing.save(update_fields=["title"])

        # when the owner's write is refused
        refused = owner_client.patch(detail_url(listing), {"price": -1}, format="json")
        assert refused.status_code == 400

        # then the owner is not marked, and still reads the standby's (older) title
        assert not user_wrote_lately(owner)
        assert owner_client.get(detail_url(listing)).json()["title"] == "Sunny flat near the park"


def test_public_reads_fall_back_to_the_primary_when_the_standby_lags(routing, anonymous_client):
    with replay_paused():
        # given a listing committed on the primary only, and the standby past the bound
        listing = ListingFactory()
        wait_for(
            lambda: anonymous_client.get(detail_url(listing)).status_code == 200,
            "the API to read the listing from the primary",
        )

        # then the search answers from the primary too
        search = anonymous_client.get(reverse("properties-list"))
        assert [item["id"] for item in search.json()["properties"]] == [listing.pk]


def test_the_cache_of_public_reads_keeps_a_standby_answer_no_longer_than_the_lag_bound(
    routing, settings, redis_cache, listing, anonymous_client
):
    # given the cache of public reads on for 60 s, as in production, and a 5 s lag bound
    settings.PUBLIC_READ_CACHE_SECONDS = 60
    settings.DATABASE_REPLICA_MAX_LAG_SECONDS = 5
    standby_serves_again()

    # when the standby answers a listing's detail, and later the primary does
    assert anonymous_client.get(detail_url(listing)).status_code == 200
    from_standby = kept_seconds(redis_cache)
    redis_cache.clear()
    settings.DATABASE_REPLICAS = []
    assert anonymous_client.get(detail_url(listing)).status_code == 200
    from_primary = kept_seconds(redis_cache)

    # then the standby's answer is kept up to the bound, the primary's for the whole 60 s
    assert 0 < from_standby <= 5
    assert 5 < from_primary <= 60
