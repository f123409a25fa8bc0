"""A relevance search's recent slice: the creation blocks the text index holds beside the
search document (listings migration 0034) and the cover of a slice's days by them
(listings.search.windows)."""

import datetime
import random

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from listings.models import Property
from listings.search.params import search_params
from listings.search.query import scored_windows, search_filtered
from tests.factories import ListingFactory
from tests.properties.support import PROPERTIES_URL, ids

pytestmark = [pytest.mark.django_db, pytest.mark.postgres_only]

DAY = datetime.timedelta(days=1)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def covered(dates: list[datetime.datetime], since, newest) -> tuple[list[bool], int]:
    """Whether each date's blocks meet the cover of `since` to `newest`, and how many
    blocks the cover has, as PostgreSQL computes them."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT listing_creation_blocks(created) && listing_creation_cover(%s, %s)"
            " FROM unnest(%s::timestamptz[]) WITH ORDINALITY AS dates (created, position)"
            " ORDER BY position",
            [since, newest, dates],
        )
        flags = [row[0] for row in cursor.fetchall()]
        cursor.execute("SELECT cardinality(listing_creation_cover(%s, %s))", [since, newest])
        return flags, cursor.fetchone()[0]


@pytest.mark.parametrize("seed", range(40))
def test_a_cover_holds_every_listing_created_since_its_first_day_and_no_older(seed):
    # given a slice's date and the newest listing's, from a few minutes to four years
    # apart, and listing dates around them: UTC midnights and a microsecond either side
    rng = random.Random(seed)
    since = EPOCH + datetime.timedelta(days=rng.uniform(19_000, 21_000))
    newest = since + datetime.timedelta(
        days=rng.choice([0.01, 0.9, 3, 40, 300, 1500]) * rng.random()
    )
    span = newest - since
    midnight = since.replace(hour=0, minute=0, second=0, microsecond=0)
    dates = sorted(
        {
            since,
            newest,
            since - datetime.timedelta(microseconds=1),
            *(
                midnight - step * DAY + shift
                for step in range(-3, 40)
                for shift in (-datetime.timedelta(microseconds=1), datetime.timedelta(0))
            ),
            *(since - (span + DAY) * rng.random() * 2 for _ in range(200)),
            *(since + span * rng.random() for _ in range(200)),
        }
    )
    dates = [date for date in dates if date <= newest]

    # when
    flags, blocks = covered(dates, since, newest)

    # then every listing created from `since` to `newest` is covered; the covered ones are
    # all those created since some instant (so the newest of a slice are the newest of
    # all); that instant is at most the span, and a day, before `since`; four blocks do
    # (the finest level with four blocks of 2^L days reaches back less than 2^L days)
    assert all(flag for date, flag in zip(dates, flags, strict=True) if date >= since)
    first = flags.index(True)
    assert all(flags[first:])
    assert dates[first] > since - span - DAY
    assert 1 <= blocks <= 4


def test_a_cover_of_no_day_is_empty():
    # given a slice's date past the newest listing's (statistics older than a deletion)
    since = datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC)

    # when
    flags, blocks = covered([since - DAY, since], since, since - 3 * DAY)

    # then no listing is in it: the slice falls short, and the window comes from every match
    assert (flags, blocks) == ([False, False], 0)


def test_a_listing_dated_after_the_slices_date_is_in_it_however_far(
    anonymous_client, settings, garden_listings
):
    # given a window of two, fourteen matches among a hundred listings, every seventh, and
    # the oldest match dated a year ahead after the statistics were taken
    settings.SEARCH_RANK_WINDOW = 2
    gardens = garden_listings(gathered=False)
    ahead = datetime.datetime.now(tz=datetime.UTC) + 365 * DAY
    Property.objects.filter(pk=gardens[0].pk).update(created_at=ahead)

    # when searched by relevance
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {"q": "garden"})

    # then the window came from the recent slice alone, which reached the newest listing's
    # blocks: it holds the one dated ahead, the newest match
    assert response.status_code == 200
    windows = [query["sql"] for query in queries if "OVER ()" in query["sql"]]
    assert len(windows) == 1 and "listing_creation_cover" in windows[0], windows
    assert ids(response) == [gardens[0].id, gardens[13].id]


def test_a_slice_is_found_in_the_text_index_with_its_words(settings, garden_listings):
    # given a window of two, and fourteen matches among a hundred listings
    settings.SEARCH_RANK_WINDOW = 2
    garden_listings(gathered=False)
    matches = search_filtered(viewer=AnonymousUser(), params=search_params({"q": "garden"}))
    # On a hundred rows any index of public listings is as cheap to read through: they go,
    # inside the test's transaction, as the unique ones and the text index stay.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'listings_property'"
            " AND indexname <> 'listings_prop_search_doc_idx'"
            " AND indexdef NOT LIKE 'CREATE UNIQUE INDEX%%'"
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f'DROP INDEX "{name}"')
        cursor.execute("SET LOCAL enable_seqscan = off")

    # when the recent slice's window is planned
    windows = scored_windows(matches, "garden")
    plan = windows[0].explain()

    # then it is tried first, and one scan of the text index finds the words and the
    # blocks together
    assert len(windows) == 2
    conditions = [line for line in plan.splitlines() if "Index Cond" in line]
    assert "listings_prop_search_doc_idx" in plan, plan
    assert any(
        "search_document @@" in line and "listing_creation_blocks(created_at) &&" in line
        for line in conditions
    ), plan


def test_a_relevance_window_is_the_newest_matches_whichever_path_finds_it(
    anonymous_client, settings
):
    # given a window of ten, and 400 listings created at random over two years, some of
    # whose titles hold "pool" (one in ten), "garden" (four in ten) or "studio" (one in
    # forty), with the planner's statistics of them
    settings.SEARCH_RANK_WINDOW = 10
    rng = random.Random(27)
    owner = ListingFactory().owner
    now = datetime.datetime.now(tz=datetime.UTC)
    listings = []
    for number in range(400):
        words = [
            word
            for word, share in (("pool", 0.1), ("garden", 0.4), ("studio", 0.025))
            if rng.random() < share
        ]
        listing = ListingFactory(owner=owner, title=" ".join(["Flat", *words, str(number)]))
        created = now - datetime.timedelta(days=rng.uniform(1, 730))
        Property.objects.filter(pk=listing.pk).update(created_at=created)
        listings.append((created, listing.id, set(words)))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE listings_property")

    sliced = set()
    for text in ("pool", "garden", "studio", "pool garden"):
        # when searched by relevance
        with CaptureQueriesContext(connection) as queries:
            response = anonymous_client.get(PROPERTIES_URL, {"q": text, "limit": 10})

        # then the window is the newest ten matches, as Python finds them among the rows
        matches = sorted(
            ((created, pk) for created, pk, words in listings if set(text.split()) <= words),
            reverse=True,
        )
        assert response.status_code == 200
        assert set(ids(response)) == {pk for _, pk in matches[:10]}, text
        assert response.json()["totalItems"] == min(10, len(matches))
        if any("listing_creation_cover" in query["sql"] for query in queries):
            sliced.add(text)

    # and both paths were taken: "pool" (about 40 matches) was found in a recent slice
    # (0.003 x (40 + 200) + 4/3 x 20 listings read, against 40 sorted and 100 walked),
    # "studio" (about 10) sorted whole
    assert "pool" in sliced and "studio" not in sliced, sliced


def test_a_searchs_path_is_read_from_the_statistics_once_then_kept(
    anonymous_client, settings, garden_listings
):
    # given a window of two, and fourteen matches among a hundred listings, every seventh
    settings.SEARCH_RANK_WINDOW = 2
    gardens = garden_listings(gathered=False)

    # when a relevance search is asked, then again, then its second page
    def searched(**extra) -> tuple:
        with CaptureQueriesContext(connection) as queries:
            response = anonymous_client.get(PROPERTIES_URL, {"q": "garden", "limit": 1, **extra})
        statistics = [
            query["sql"]
            for query in queries
            if query["sql"].startswith("EXPLAIN")
            or "pg_stats" in query["sql"]
            or query["sql"].startswith("SELECT (SELECT reltuples")
        ]
        return response, statistics

    first, first_statistics = searched()
    again, again_statistics = searched()
    second, second_statistics = searched(page=2)

    # then the planner's statistics (the matches' estimate, the table's size and its
    # histogram of creation dates, for a recent slice) are read for the first request
    # alone, and each answer is the window's: the two newest matches
    assert len(first_statistics) == 3, first_statistics
    assert (again_statistics, second_statistics) == ([], [])
    assert [first.status_code, again.status_code, second.status_code] == [200, 200, 200]
    assert first.json() == again.json()
    assert ids(first) == [gardens[13].id]
    assert ids(second) == [gardens[12].id]
    assert second.json()["totalItems"] == 2


def test_a_kept_path_older_than_new_listings_still_finds_the_newest_matches(
    anonymous_client, settings, garden_listings
):
    # given a window of two, fourteen matches among a hundred listings, and the path of a
    # relevance search kept from asking it once
    settings.SEARCH_RANK_WINDOW = 2
    garden_listings(gathered=False)
    assert anonymous_client.get(PROPERTIES_URL, {"q": "garden"}).status_code == 200

    # when two more matches are made, newer than every listing, and the search is asked
    # again, on the kept path
    newer = ListingFactory.create_batch(2, title="Garden house")
    with CaptureQueriesContext(connection) as queries:
        response = anonymous_client.get(PROPERTIES_URL, {"q": "garden"})

    # then the statistics were not read again, and the window is the two new matches
    assert not [query for query in queries if query["sql"].startswith("EXPLAIN")]
    assert response.status_code == 200
    assert set(ids(response)) == {listing.id for listing in newer}
    assert response.json()["totalItems"] == 2
