"""The alerts' matching benchmark: which of N saved searches one new listing matches.

    python -m bench.matching --size 1000000 --searches 100000
    make bench-matching SIZE=1000000 SEARCHES=100000

It runs where the matching runs, in the worker's process: Django with the production
settings' database code, no HTTP. On the benchmark database of `--size` listings (made by
bench/run.py's first step when missing), `--searches` saved searches are drawn from a fixed
seed, over the same towns as the listings, and stored as the services store them
(notifications.matching.saved_search_columns): mostly a town with a kind, a transaction and
a price limit, then map boxes, drawn areas, circles, words and searches of neither town nor
area. Then `--listings` public listings, drawn from the same seed, are matched one at a time
(notifications.matching.saved_searches_matching), and the time each took, its statements
and its matches are reported (var/bench/matching-<searches>.md).
"""

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

from bench.run import add_database_arguments, seeded_database

ROOT = Path(__file__).resolve().parent.parent
SEED = 20_261_127
BATCH = 5_000


def criteria(rng: random.Random, towns: list, words: list[str], types: list[str]) -> dict:
    """One saved search's criteria, as users save them."""
    town = rng.choice(towns)
    draw = rng.random()
    chosen: dict[str, str] = {}
    if draw < 0.55:
        chosen["municipality"] = town.name
    elif draw < 0.75:
        half = rng.uniform(0.01, 0.2)
        west, east = town.longitude - half, town.longitude + half
        south, north = town.latitude - half * 0.75, town.latitude + half * 0.75
        chosen["bbox"] = f"{west:.5f},{south:.5f},{east:.5f},{north:.5f}"
    elif draw < 0.83:
        size = rng.uniform(0.01, 0.1)
        x, y = town.longitude, town.latitude
        points = [(x - size, y - size), (x + size, y - size), (x, y + size), (x - size, y - size)]
        chosen["polygon"] = ",".join(f"{px:.5f},{py:.5f}" for px, py in points)
    elif draw < 0.88:
        chosen["lat"] = f"{town.latitude:.5f}"
        chosen["lng"] = f"{town.longitude:.5f}"
        chosen["radiusKm"] = str(rng.randint(1, 20))
    elif draw < 0.95:
        chosen["q"] = rng.choice(words)
    if rng.random() < 0.6 or not chosen:
        chosen["type"] = rng.choice(types)
    if rng.random() < 0.7:
        chosen["transactionType"] = rng.choice(["SALE", "RENT"])
    if rng.random() < 0.5:
        chosen["maxPrice"] = str(rng.choice([800, 1500, 3000, 150_000, 300_000, 600_000]))
    if rng.random() < 0.15:
        chosen["minBedrooms"] = str(rng.randint(1, 4))
    return chosen


def seed_saved_searches(count: int) -> None:
    """Exactly `count` bench saved searches, drawn from SEED (kept between runs)."""
    from accounts.models import User
    from bench.run import TYPES, WORDS
    from demo.catalog import MUNICIPALITIES
    from listings.search import search_params
    from notifications.matching import saved_search_columns
    from notifications.models import AlertFrequency, SavedSearch

    user, _created = User.objects.get_or_create(
        email="alerts-bench@example.com", defaults={"name": "Alerts bench"}
    )
    if SavedSearch.objects.filter(user=user).count() == count:
        return
    SavedSearch.objects.filter(user=user).delete()
    rng = random.Random(SEED)
    frequencies = [AlertFrequency.INSTANT, AlertFrequency.DAILY, AlertFrequency.WEEKLY]
    started = time.monotonic()
    for first in range(0, count, BATCH):
        rows = []
        for number in range(first, min(count, first + BATCH)):
            chosen = criteria(rng, list(MUNICIPALITIES), WORDS, TYPES)
            params = search_params(chosen)
            frequency = AlertFrequency.PAUSED if rng.random() < 0.05 else rng.choice(frequencies)
            rows.append(
                SavedSearch(
                    user=user,
                    name=f"Bench search {number}",
                    criteria=chosen,
                    frequency=frequency,
                    **saved_search_columns(params),
                )
            )
        SavedSearch.objects.bulk_create(rows)
    print(f"[matching] saved {count:,} searches in {time.monotonic() - started:.0f} s")


def measure(listings: int) -> dict:
    """Match `listings` public listings drawn from SEED; times in ms, statements, matches."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from listings.models import Property, PropertyStatus
    from notifications.matching import saved_searches_matching

    rng = random.Random(SEED + 1)
    public = Property.objects.filter(status=PropertyStatus.AVAILABLE)
    ids = list(public.order_by("pk").values_list("pk", flat=True)[:100_000])
    chosen = list(public.filter(pk__in=rng.sample(ids, listings)).order_by("pk"))
    times, statements, matches = [], [], []
    for warm in chosen[:20]:
        saved_searches_matching(listing=warm)
    for listing in chosen:
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            found = saved_searches_matching(listing=listing)
            times.append((time.perf_counter() - started) * 1000)
        statements.append(len(captured))
        matches.append(len(found))
    quantiles = statistics.quantiles(times, n=100)
    return {
        "p50": statistics.median(times),
        "p95": quantiles[94],
        "p99": quantiles[98],
        "statements": max(statements),
        "matches": statistics.mean(matches),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_database_arguments(parser)
    parser.add_argument("--searches", type=int, default=100_000)
    parser.add_argument("--listings", type=int, default=500, help="listings matched")
    arguments = parser.parse_args()

    url = seeded_database(arguments)
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.dev"
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection

    seed_saved_searches(arguments.searches)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE notifications_savedsearch")
    result = measure(arguments.listings)
    table = (
        f"### Matching one listing against {arguments.searches:,} saved searches\n\n"
        f"{arguments.size:,} listings, {arguments.listings} listings matched one at a time,"
        f" in-process; {os.cpu_count()} CPUs\n\n"
        "| p50 ms | p95 ms | p99 ms | statements | matches (mean) |\n"
        "|---:|---:|---:|---:|---:|\n"
        f"| {result['p50']:.2f} | {result['p95']:.2f} | {result['p99']:.2f} |"
        f" {result['statements']} | {result['matches']:.1f} |\n"
    )
    print(table)
    (ROOT / "var" / "bench").mkdir(parents=True, exist_ok=True)
    (ROOT / "var" / "bench" / f"matching-{arguments.searches}.md").write_text(table)


if __name__ == "__main__":
    main()
