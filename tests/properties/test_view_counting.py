"""Views of listing pages: who counts, batches without a write per view, and flushes from
Redis that lose no view and add none twice (listings.statistics)."""

import datetime
import threading
import urllib.request
import uuid

import pytest
from django.db import DatabaseError, connection
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from listings import statistics
from listings.models import PropertyDailyViews, PropertyStatus, PropertyViewsBatch
from listings.statistics import MEMORY_VIEWS, property_views_flush, redis_client, redis_keys
from tests.conftest import REDIS_URL
from tests.factories import ListingFactory

BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def page_of(listing) -> str:
    return listing.get_absolute_url()


def views_by_listing() -> dict[str, int]:
    """The views in the daily table, by listing (every day together)."""
    totals: dict[str, int] = {}
    for property_id, views in PropertyDailyViews.objects.values_list("property_id", "views"):
        totals[property_id] = totals.get(property_id, 0) + views
    return totals


@pytest.fixture
def memory_counting(settings):
    """Views counted in this process's memory (no REDIS_URL), written every 1,000 views."""
    settings.REDIS_URL = ""
    settings.STATISTICS_FLUSH_VIEWS = 1000
    settings.STATISTICS_FLUSH_SECONDS = 3600


@pytest.fixture
def redis_counting(settings):
    """Views counted in the machine's Redis, under a key prefix of this test's own, removed
    after it."""
    settings.REDIS_URL = REDIS_URL
    settings.STATISTICS_KEY_PREFIX = f"test-{uuid.uuid4().hex}:statistics:"
    settings.STATISTICS_FLUSH_SECONDS = 60
    yield redis_client()
    client = redis_client()
    for key in client.scan_iter(match=f"{settings.STATISTICS_KEY_PREFIX}*"):
        client.delete(key)


# --- Who counts --------------------------------------------------------------------------


@pytest.mark.django_db
def test_views_of_visitors_and_customers_count_and_are_written_in_one_batch(
    memory_counting, client, customer, listing, django_assert_num_queries
):
    customer_session = Client()
    customer_session.force_login(customer)

    # when an anonymous visitor and a customer view the page
    for _ in range(2):
        assert client.get(page_of(listing), HTTP_USER_AGENT=BROWSER).status_code == 200
    assert customer_session.get(page_of(listing), HTTP_USER_AGENT=BROWSER).status_code == 200

    # then nothing is written yet: the views wait in memory
    assert PropertyDailyViews.objects.count() == 0
    assert MEMORY_VIEWS.pending() == 3

    # and one flush writes them: the listings looked up, then one INSERT (in a savepoint)
    with django_assert_num_queries(4):
        assert property_views_flush() == 3
    assert list(PropertyDailyViews.objects.values_list("property_id", "day", "views")) == [
        (listing.pk, timezone.localdate(), 3)
    ]
    assert MEMORY_VIEWS.pending() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("viewer", "user_agent"),
    [
        ("owner", BROWSER),
        ("admin", BROWSER),
        ("anonymous", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"),
        ("anonymous", "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/131.0 Safari/537.36"),
        ("anonymous", "curl/8.5.0"),
        ("anonymous", ""),
    ],
)
def test_views_of_the_owner_admins_and_robots_do_not_count(
    memory_counting, request, listing, viewer, user_agent
):
    session = Client()
    if viewer != "anonymous":
        session.force_login(request.getfixturevalue(viewer))

    response = session.get(page_of(listing), HTTP_USER_AGENT=user_agent)

    assert response.status_code == 200
    assert MEMORY_VIEWS.pending() == 0
    assert property_views_flush() == 0
    assert PropertyDailyViews.objects.count() == 0


@pytest.mark.django_db
def test_a_listing_the_viewer_may_not_see_is_not_counted(memory_counting, client, owner_record):
    hidden = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)

    response = client.get(page_of(hidden), HTTP_USER_AGENT=BROWSER)

    assert response.status_code == 404
    assert MEMORY_VIEWS.pending() == 0


@pytest.mark.django_db
def test_a_head_request_is_not_counted(memory_counting, client, listing):
    response = client.head(page_of(listing), HTTP_USER_AGENT=BROWSER)

    # the page answers GET only
    assert response.status_code == 405
    assert MEMORY_VIEWS.pending() == 0


# --- Without Redis: batches in memory ----------------------------------------------------


@pytest.mark.django_db
def test_without_redis_every_nth_view_writes_the_batch(settings, memory_counting, client, listing):
    settings.STATISTICS_FLUSH_VIEWS = 5

    for _ in range(12):
        client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)

    # two batches of five written, two views waiting
    assert views_by_listing() == {listing.pk: 10}
    assert MEMORY_VIEWS.pending() == 2


@pytest.mark.django_db
def test_without_redis_a_view_after_the_interval_writes_the_batch(
    settings, memory_counting, client, listing
):
    client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)
    assert views_by_listing() == {}

    # when the oldest waiting view is older than the interval
    settings.STATISTICS_FLUSH_SECONDS = 0
    client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)

    assert views_by_listing() == {listing.pk: 2}
    assert MEMORY_VIEWS.pending() == 0


@pytest.mark.django_db
def test_without_redis_a_failed_write_keeps_the_views_for_the_next(
    settings, memory_counting, monkeypatch, client, listing
):
    settings.STATISTICS_FLUSH_VIEWS = 2

    def failing(counts):
        raise DatabaseError("the database went away")

    with monkeypatch.context() as patched:
        patched.setattr(statistics, "_views_add", failing)
        for _ in range(3):
            assert client.get(page_of(listing), HTTP_USER_AGENT=BROWSER).status_code == 200
    assert views_by_listing() == {}
    assert MEMORY_VIEWS.pending() == 3

    client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)

    assert views_by_listing() == {listing.pk: 4}


@pytest.mark.django_db
def test_views_of_a_listing_deleted_since_are_dropped(memory_counting, client, listing):
    kept = ListingFactory()
    client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)
    client.get(page_of(kept), HTTP_USER_AGENT=BROWSER)
    listing.delete()

    assert property_views_flush() == 1
    assert views_by_listing() == {kept.pk: 1}


# --- With Redis ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_with_redis_views_wait_in_redis_and_the_first_queues_one_deferred_flush(
    redis_counting, client, listing
):
    before = timezone.now()
    for _ in range(3):
        assert client.get(page_of(listing), HTTP_USER_AGENT=BROWSER).status_code == 200

    keys = redis_keys()
    field = f"{listing.pk}:{timezone.localdate().isoformat()}"
    assert redis_counting.hgetall(keys.pending) == {field.encode(): b"3"}
    assert PropertyDailyViews.objects.count() == 0
    [flush] = DBTaskResult.objects.filter(task_path="listings.statistics.views_flush")
    assert before + datetime.timedelta(seconds=61) <= flush.run_after
    assert flush.run_after <= timezone.now() + datetime.timedelta(seconds=61)

    assert property_views_flush() == 3
    assert views_by_listing() == {listing.pk: 3}
    assert redis_counting.exists(keys.pending) == 0
    assert redis_counting.smembers(keys.batches) == set()


@pytest.mark.django_db
def test_with_redis_a_failed_database_write_keeps_the_batch_and_adds_it_once(
    redis_counting, monkeypatch, client, listing
):
    for _ in range(4):
        client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)

    # when the database refuses the first flush
    def failing(counts):
        raise DatabaseError("the database went away")

    with monkeypatch.context() as patched:
        patched.setattr(statistics, "_views_add", failing)
        with pytest.raises(DatabaseError):
            property_views_flush()

    # then its batch waits in Redis, and nothing was written
    keys = redis_keys()
    [batch_id] = redis_counting.smembers(keys.batches)
    assert redis_counting.hgetall(keys.batch(batch_id.decode()))
    assert PropertyViewsBatch.objects.count() == 0
    assert views_by_listing() == {}

    # and the next flush adds it with the views counted since, once
    client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)
    assert property_views_flush() == 5
    assert property_views_flush() == 0
    assert views_by_listing() == {listing.pk: 5}
    assert redis_counting.smembers(keys.batches) == set()


@pytest.mark.django_db
def test_with_redis_a_batch_added_before_redis_forgot_it_is_not_added_again(
    redis_counting, listing
):
    # given a batch that a flush added to the database but could not delete from Redis
    keys = redis_keys()
    field = f"{listing.pk}:{timezone.localdate().isoformat()}"
    redis_counting.hset(keys.batch("added"), field, 7)
    redis_counting.sadd(keys.batches, "added")
    PropertyViewsBatch.objects.create(id="added")
    PropertyDailyViews.objects.create(property=listing, day=timezone.localdate(), views=7)

    # when a flush runs again
    assert property_views_flush() == 0

    # then the views are there once and Redis forgot the batch
    assert views_by_listing() == {listing.pk: 7}
    assert redis_counting.exists(keys.batch("added")) == 0
    assert redis_counting.smembers(keys.batches) == set()


@pytest.mark.django_db
def test_with_redis_views_are_added_to_the_days_already_written(redis_counting, client, listing):
    day = timezone.localdate()
    PropertyDailyViews.objects.create(property=listing, day=day, views=10)
    client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)

    property_views_flush()

    assert list(PropertyDailyViews.objects.values_list("property_id", "day", "views")) == [
        (listing.pk, day, 11)
    ]


@pytest.mark.django_db
def test_with_redis_down_the_page_is_shown_and_the_view_not_counted(settings, client, listing):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"

    response = client.get(page_of(listing), HTTP_USER_AGENT=BROWSER)

    assert response.status_code == 200
    assert DBTaskResult.objects.count() == 0


# --- Under concurrent requests -----------------------------------------------------------

THREADS = 8
VIEWS_PER_THREAD = 25


def view_concurrently(base_url: str, pages: list[str], flushes: int = 0) -> int:
    """THREADS threads each viewing the pages VIEWS_PER_THREAD times in turn (real HTTP
    requests), while another thread flushes whenever it can; returns how many flushes ran."""
    barrier = threading.Barrier(THREADS + (1 if flushes else 0))
    failures: list[BaseException] = []
    done = threading.Event()
    flushed = [0]

    def viewer(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            for number in range(VIEWS_PER_THREAD):
                page = pages[(index + number) % len(pages)]
                url = base_url + page
                request = urllib.request.Request(url, headers={"User-Agent": BROWSER})  # noqa: S310 (local test server)
                with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                    assert response.status == 200
        except BaseException as error:  # raised in the test's thread below
            failures.append(error)

    def flusher() -> None:
        try:
            barrier.wait(timeout=30)
            while not done.is_set() or flushed[0] < flushes:
                property_views_flush()
                flushed[0] += 1
        except BaseException as error:
            failures.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=viewer, args=(index,)) for index in range(THREADS)]
    if flushes:
        threads.append(threading.Thread(target=flusher))
    for thread in threads:
        thread.start()
    for thread in threads[:THREADS]:
        thread.join(timeout=120)
    done.set()
    for thread in threads[THREADS:]:
        thread.join(timeout=120)
    if failures:
        raise failures[0]
    return flushed[0]


@pytest.mark.django_db(transaction=True)
def test_with_redis_concurrent_views_and_flushes_lose_no_view_and_add_none_twice(
    redis_counting, live_server
):
    listings = [ListingFactory(), ListingFactory()]

    # when 8 threads view two listings 200 times while flushes run
    flushes = view_concurrently(
        live_server.url, [page_of(listing) for listing in listings], flushes=3
    )
    property_views_flush()

    # then every view is in the table exactly once
    assert flushes >= 3
    assert views_by_listing() == {
        listing.pk: THREADS * VIEWS_PER_THREAD // 2 for listing in listings
    }
    assert redis_counting.exists(redis_keys().pending) == 0
    assert redis_counting.smembers(redis_keys().batches) == set()


@pytest.mark.django_db(transaction=True)
def test_without_redis_concurrent_views_lose_none(settings, memory_counting, live_server):
    settings.STATISTICS_FLUSH_VIEWS = 7
    listing = ListingFactory()

    view_concurrently(live_server.url, [page_of(listing)])
    property_views_flush()

    assert views_by_listing() == {listing.pk: THREADS * VIEWS_PER_THREAD}
