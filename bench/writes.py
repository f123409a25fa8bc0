"""The listings' writes benchmark: one listing's write with the kept tables' triggers.

What a write costs with the triggers of the tables PostgreSQL keeps from the listings
(listings/sql/: the public listing groups, the places, the map cells).

    python -m bench.writes --size 1000000 --writes 40
    make bench-writes SIZE=1000000

On the benchmark database of `--size` listings (made by bench/run.py's first step when
missing), `--writes` public listings drawn from a fixed seed are written one statement at
a time, as the services' statements write them: a price change, a status change to
SUSPENDED (the listing leaves the public ones), a delete. Each write is undone at once (a
savepoint), and the whole run is one transaction rolled back at its end, so the database is
left as it was. Each kind's median and slowest statement are reported
(var/bench/writes-<size>.md). A write removing a listing from the bounds or the lowest price
of its map cells reads those cells' listings again (docs/architecture.md): the slowest
writes are those.
"""

import argparse
import os
import random
import statistics
import time
from pathlib import Path

import psycopg

from bench.run import add_database_arguments, seeded_database

ROOT = Path(__file__).resolve().parent.parent
SEED = 20_261_207

# Each kind of write, as one statement on one listing (%s: its id).
WRITES = {
    "price change": "UPDATE listings_property SET price = price + 1 WHERE id = %s",
    "status change": "UPDATE listings_property SET status = 'SUSPENDED' WHERE id = %s",
    "delete": "DELETE FROM listings_property WHERE id = %s",
}


def measure(url: str, writes: int) -> dict[str, list[float]]:
    """The milliseconds each kind's writes took, each on a public listing drawn in turn."""
    rng = random.Random(SEED)
    times: dict[str, list[float]] = {kind: [] for kind in WRITES}
    with psycopg.connect(url) as connection:
        # Public listings drawn from about a thousandth of the table's pages.
        ids = [
            row[0]
            for row in connection.execute(
                "SELECT id FROM listings_property TABLESAMPLE SYSTEM (0.1) REPEATABLE (1)"
                " WHERE public ORDER BY id"
            )
        ]
        for kind, statement in WRITES.items():
            for _ in range(writes):
                listing = rng.choice(ids)
                connection.execute("SAVEPOINT write")
                started = time.perf_counter()
                connection.execute(statement, [listing])
                times[kind].append((time.perf_counter() - started) * 1000)
                connection.execute("ROLLBACK TO SAVEPOINT write")
        connection.rollback()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_database_arguments(parser)
    parser.add_argument("--writes", type=int, default=40, help="writes of each kind")
    arguments = parser.parse_args()

    url = seeded_database(arguments)
    times = measure(url, arguments.writes)
    rows = "".join(
        f"| {kind} | {statistics.median(taken):.1f} | {max(taken):.1f} |\n"
        for kind, taken in times.items()
    )
    table = (
        f"### One listing's write\n\n"
        f"{arguments.size:,} listings, {arguments.writes} writes of each kind, one statement"
        f" each; {os.cpu_count()} CPUs\n\n"
        "| write | median ms | slowest ms |\n|---|---:|---:|\n" + rows
    )
    print(table)
    (ROOT / "var" / "bench").mkdir(parents=True, exist_ok=True)
    (ROOT / "var" / "bench" / f"writes-{arguments.size}.md").write_text(table)


if __name__ == "__main__":
    main()
