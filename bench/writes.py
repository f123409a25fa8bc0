"""The listings' writes benchmark: one listing's write with the kept tables' triggers.

What a write costs with the triggers of the tables PostgreSQL keeps from the listings
(listings/sql/: the public listing groups and days, the places, the map cells).

    python -m bench.writes --size 1000000 --writes 40
    make bench-writes SIZE=1000000

On the benchmark database of `--size` listings (made by bench/run.py's first step when
missing), `--writes` public listings drawn from a fixed seed are written one statement at
a time, as the services' statements write them: a price change, a status change to
SUSPENDED (the listing leaves the public ones), a delete; and a price change of the
cheapest listing of one of the densest cells of zoom 9. Each write is undone at once (a
savepoint), and the whole run is one transaction rolled back at its end, so the database is
left as it was. Each kind's median and slowest statement are reported
(var/bench/writes-<size>.md). A write removing a listing from the bounds or the lowest price
of its map cells computes those cells again (listings/sql/map_cells.sql): the slowest
writes are those, and a dense cell's cheapest listing is on the lowest price of its cells
of every grid.
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

PRICE_CHANGE = "UPDATE listings_property SET price = price + 1 WHERE id = %s"

# Each kind of write, as one statement on one listing (%s: its id), and the listings it is
# drawn from: public ones at random, or the cheapest of the densest cells of zoom 9, whose
# every grid's cells a price change makes stale.
WRITES = {
    "price change": (PRICE_CHANGE, "public"),
    "status change": ("UPDATE listings_property SET status = 'SUSPENDED' WHERE id = %s", "public"),
    "delete": ("DELETE FROM listings_property WHERE id = %s", "public"),
    "a dense cell's cheapest, price change": (PRICE_CHANGE, "cheapest"),
}

LISTINGS = {
    # About a thousandth of the table's pages.
    "public": (
        "SELECT id FROM listings_property TABLESAMPLE SYSTEM (0.1) REPEATABLE (1)"
        " WHERE public ORDER BY id"
    ),
    # Of the 40 zoom 9 cells' rows (a transaction and a kind) with the most listings.
    "cheapest": """
        SELECT (
            SELECT listing.id FROM listings_property AS listing
            WHERE listing.public AND listing.transaction_type = cell.transaction_type
              AND coalesce(listing.kind, '') = cell.kind
              AND listing.price = cell.lowest_price
              AND listing.latitude >= cell.south AND listing.latitude <= cell.north
              AND floor(listing.latitude / listings_map_cell_size(9)) = cell."row"
              AND floor(listing.longitude / listings_map_cell_size(9)) = cell."column"
            ORDER BY listing.id LIMIT 1
        )
        FROM listings_mapcell AS cell
        WHERE cell.level = 9 AND cell.transaction_type <> '*' AND cell.kind <> '*'
        ORDER BY cell.listings DESC, cell."row", cell."column", cell.transaction_type, cell.kind
        LIMIT 40
    """,
}


def measure(url: str, writes: int) -> dict[str, list[float]]:
    """The milliseconds each kind's writes took, each on a listing drawn in turn."""
    rng = random.Random(SEED)
    times: dict[str, list[float]] = {kind: [] for kind in WRITES}
    with psycopg.connect(url) as connection:
        drawn_from = {
            name: [row[0] for row in connection.execute(query)] for name, query in LISTINGS.items()
        }
        for kind, (statement, listings) in WRITES.items():
            for _ in range(writes):
                listing = rng.choice(drawn_from[listings])
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
