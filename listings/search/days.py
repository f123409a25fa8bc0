"""Pages of the public listings by creation date started at their day, from the listings
created each day that PostgreSQL keeps.

A page of every public listing, newest first, is read from the index of creation dates,
past every newer listing: page 751 of 10 walked 7,510 index entries (2.5 ms at 1,000,000
listings, on a machine then about 1.6 times slower than that of docs/performance.md's
latest results). Triggers on the listings table keep, in listings_publiclistingday, how
many public listings were created on each day (UTC; listings/sql/public_listing_days.sql).
A page then starts at the day its first listing was created on, found by adding up the
days from the newest, and walks only the part of that day's listings before it (0.3 ms).
The benchmark's deep pages (every public listing, pages 500 to 1,000) cost PostgreSQL 1.9
to 2.4 ms of CPU a request against 4.0 to 4.3, and under wrk the platform answered 276 to
479 requests a second against 192 to 256, in alternating rounds (docs/performance.md).

The triggers add a statement's changes in the same transaction, and the page's one
statement reads the days and the listings in one snapshot, so the page is the one an offset
into every public listing gives. Only a visitor's or customer's search with no criterion at
all, newest or oldest first, is read so; only PostgreSQL keeps the days.
"""

from pathlib import Path

from django.db import connections

from listings.models import Property, PublicListingDay
from listings.search.params import SearchParams
from listings.triggers import install_sql_file, uninstall_triggers

SQL_FILE = Path(__file__).resolve().parent.parent / "sql" / "public_listing_days.sql"

# The searches whose pages start at their day: no criterion, in creation order (`sort`),
# newest first without one. True: newest first.
NEWEST_FIRST = {None: True, "-createdAt": True, "createdAt": False}


def _page_statement(newest_first: bool) -> str:
    """The page's statement: the day its first listing was created on (the first day whose
    listings, added up in the order's direction, pass the offset), then the public listings
    from that day's end (newest first) or start (oldest first) on, past as many as the
    offset leaves after the days before it. Past every listing no day is found: no row."""
    direction = "DESC" if newest_first else "ASC"
    # From the day's midnight to the next, in UTC, as listings_creation_day() counts them.
    if newest_first:
        bound = "created_at < ((SELECT day FROM start) + 1)::timestamp AT TIME ZONE 'UTC'"
    else:
        bound = "created_at >= (SELECT day FROM start)::timestamp AT TIME ZONE 'UTC'"
    # Only names from the models and constant SQL are joined: every value is a parameter.
    return (
        "WITH days AS ("  # noqa: S608
        f" SELECT day, listings, SUM(listings) OVER (ORDER BY day {direction}) AS through"
        f" FROM {PublicListingDay._meta.db_table}"
        "), start AS ("
        " SELECT day, through - listings AS before FROM days"
        f" WHERE through > %(offset)s ORDER BY day {direction} LIMIT 1"
        ")"
        f" SELECT id FROM {Property._meta.db_table} WHERE public AND {bound}"
        f" ORDER BY created_at {direction}, id {direction}"
        " OFFSET (%(offset)s - (SELECT before FROM start)) LIMIT %(limit)s"
    )


PAGE_STATEMENTS = {newest_first: _page_statement(newest_first) for newest_first in (True, False)}


def starts_at_its_day(params: SearchParams, database: str) -> bool:
    """Whether a public search's pages are read from the days: no criterion, creation
    order, PostgreSQL."""
    return (
        params.sort in NEWEST_FIRST
        and SearchParams(sort=params.sort) == params
        and connections[database].vendor == "postgresql"
    )


def dated_page_ids(params: SearchParams, *, offset: int, limit: int, database: str) -> list[str]:
    """The ids of one page of every public listing in the search's creation order (a search
    that starts_at_its_day): one statement."""
    statement = PAGE_STATEMENTS[NEWEST_FIRST[params.sort]]
    with connections[database].cursor() as cursor:
        cursor.execute(statement, {"offset": offset, "limit": limit})
        return [listing_id for (listing_id,) in cursor.fetchall()]


def install(schema_editor) -> None:
    """Install the triggers and rebuild the days (a migration's step; PostgreSQL only)."""
    install_sql_file(schema_editor, SQL_FILE)


def uninstall(schema_editor) -> None:
    """Remove the triggers and their functions (reversing the migration that made them)."""
    uninstall_triggers(
        schema_editor,
        prefix="listings_public_days",
        functions=(
            "listings_public_days_follow()",
            "listings_public_days_clear()",
            "listings_creation_day(timestamptz)",
        ),
    )
