"""The general rate limits (D13): anonymous clients per address, signed-in users per user."""

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser
from limits import RateLimitItemPerMinute
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter

from config.api.throttling import AnonymousThrottle
from tests.api.support import assert_problem

# The Redis server of the machine (CI has one, as production does); a database of its own.

pytestmark = pytest.mark.django_db

CATEGORIES = "/api/v1/categories"
# Requests of one client at once, more than its limit.
RACERS = 8


def statuses(client, count: int, **headers) -> list[int]:
    """The statuses of `count` reads of the categories."""
    return [client.get(CATEGORIES, **headers).status_code for _request in range(count)]


def test_anonymous_reads_are_limited_per_address_by_the_anonymous_rate_alone(
    api_client, throttle_rates
):
    # given an anonymous limit above the signed-in one
    throttle_rates(anonymous="3/min", signed_in="1/min")

    # when one address reads four times
    first = statuses(api_client, 3, REMOTE_ADDR="203.0.113.7")
    fourth = api_client.get(CATEGORIES, REMOTE_ADDR="203.0.113.7")

    # then the anonymous rate, not the signed-in one, decides
    assert first == [200, 200, 200]
    assert_problem(fourth, 429, "throttled")
    # and another address has its own count
    assert statuses(api_client, 1, REMOTE_ADDR="198.51.100.9") == [200]


def test_a_signed_in_user_is_limited_per_user_whatever_the_address(
    customer_api, api_client, throttle_rates
):
    # given a signed-in limit of two reads a minute
    throttle_rates(anonymous="100/min", signed_in="2/min")

    # when the user reads from two addresses, then a third time
    first = statuses(customer_api, 1, REMOTE_ADDR="203.0.113.7")
    second = statuses(customer_api, 1, REMOTE_ADDR="198.51.100.9")
    third = customer_api.get(CATEGORIES, REMOTE_ADDR="192.0.2.1")

    # then the third read is throttled: the count is the user's
    assert first + second == [200, 200]
    assert_problem(third, 429, "throttled")
    # and anonymous reads from those addresses are not counted with the user's
    assert statuses(api_client, 2, REMOTE_ADDR="203.0.113.7") == [200, 200]


def test_with_redis_the_limits_are_counted_in_redis(api_client, throttle_rates, redis_rate_limits):
    # given the rate limits counted in Redis and an anonymous limit of three reads a minute
    throttle_rates(anonymous="3/min")

    # when one address reads four times
    first = statuses(api_client, 3, REMOTE_ADDR="203.0.113.7")
    fourth = api_client.get(CATEGORIES, REMOTE_ADDR="203.0.113.7")

    # then the fourth is throttled until the first read leaves the minute, and another
    # address has its own window
    assert first == [200, 200, 200]
    assert_problem(fourth, 429, "throttled")
    assert 1 <= int(fourth["Retry-After"]) <= 60
    assert statuses(api_client, 1, REMOTE_ADDR="198.51.100.9") == [200]
    # and the counts are in Redis: a limiter of its own on the same server sees the first
    # address's window full and the second's with two reads left
    server = MovingWindowRateLimiter(storage_from_string(redis_rate_limits))
    limit = RateLimitItemPerMinute(3)
    assert server.get_window_stats(limit, "anonymous", "203.0.113.7").remaining == 0
    assert server.get_window_stats(limit, "anonymous", "198.51.100.9").remaining == 2


def test_concurrent_requests_of_one_client_never_pass_its_limit_together(
    throttle_rates, redis_rate_limits
):
    # given an anonymous limit of three reads a minute, counted in Redis
    throttle_rates(anonymous="3/min")
    request = SimpleNamespace(user=AnonymousUser(), headers={}, META={"REMOTE_ADDR": "203.0.113.7"})
    start = threading.Barrier(RACERS)

    def attempt(_racer: int) -> bool:
        start.wait()
        return AnonymousThrottle().allow_request(request, None)

    # when more requests than that arrive at once, each in a thread (and a connection) of
    # its own
    with ThreadPoolExecutor(RACERS) as pool:
        allowed = list(pool.map(attempt, range(RACERS)))

    # then exactly three passed
    assert allowed.count(True) == 3


# Run in an interpreter of its own, where no request has imported anything yet, as in a
# worker whose threads take their first requests together.
FIRST_REQUESTS_AT_ONCE = """
import threading
import django

django.setup()
from config.api.throttling import rate_limiter, parse_rate

start = threading.Barrier(16)
failures = []


def first_request():
    start.wait()
    try:
        rate_limiter().hit(parse_rate("100/min"), "first-requests", "203.0.113.7")
    except Exception as error:
        failures.append(type(error).__name__)


threads = [threading.Thread(target=first_request) for _ in range(16)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(len(failures), sorted(set(failures)))
rate_limiter().storage.reset()
"""


def test_a_workers_threads_counting_their_first_requests_at_once_all_count(redis_rate_limits):
    # given a fresh process whose limits count in Redis
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "RATE_LIMIT_STORAGE_URL": redis_rate_limits,
    }

    # when sixteen of its threads count their first request at the same moment
    run = subprocess.run(  # noqa: S603 (this interpreter, a fixed script)
        [sys.executable, "-c", FIRST_REQUESTS_AT_ONCE],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    # then every one was counted (none refused by a half-made limiter)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip().splitlines()[-1] == "0 []"
