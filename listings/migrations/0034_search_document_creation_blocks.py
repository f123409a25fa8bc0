"""The text index also holds each listing's creation blocks, so that a relevance search can
find its newest matches among a recent slice of listings inside the index itself
(listings.search.windows).

A listing's creation day (days since 1970-01-01, UTC) falls in one block of 2^L days at each
level L from 0 to 9 (a day to 512 days); `listing_creation_blocks(created_at)` gives the ten,
each as L * 1,000,000 + its block's number. `listing_creation_cover(since, newest)` gives the
blocks of one level that hold every day from `since`'s to `newest`'s, four at most (the
level is the finest for which four suffice; from level 9, as many as it takes): a listing
has one of them exactly when it was created from the first block's first day to the last
block's last day.

The GIN index on the search document becomes one on the document and the blocks (the same
name): PostgreSQL intersects a word's entries with the blocks' inside the one index scan.
A GIN index with two columns serves a condition on either as well as one on both, so the
text searches that name no slice read it as they read the old one. It is built in the
migration's transaction: the listings take no writes until it is (12 s at 1,000,000
listings on a 2-core machine).
"""

from django.db import migrations

INDEX = "listings_prop_search_doc_idx"

FUNCTIONS = (
    """
CREATE OR REPLACE FUNCTION listing_creation_day(created timestamptz) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (created AT TIME ZONE 'UTC')::date - DATE '1970-01-01'
""",
    """
CREATE OR REPLACE FUNCTION listing_creation_blocks(created timestamptz) RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY(
  SELECT level * 1000000 + (listing_creation_day(created) >> level)
  FROM generate_series(0, 9) AS level
)
""",
    """
CREATE OR REPLACE FUNCTION listing_creation_cover(since timestamptz, newest timestamptz)
RETURNS integer[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN ARRAY(
  SELECT chosen.level * 1000000 + block
  FROM (
    SELECT least(9, min(level)) AS level
    FROM generate_series(0, 9) AS level
    WHERE (listing_creation_day(newest) >> level) - (listing_creation_day(since) >> level)
      < 4
  ) AS chosen,
  generate_series(
    listing_creation_day(since) >> chosen.level, listing_creation_day(newest) >> chosen.level
  ) AS block
)
""",
)

DROP_FUNCTIONS = (
    "DROP FUNCTION IF EXISTS listing_creation_cover(timestamptz, timestamptz)",
    "DROP FUNCTION IF EXISTS listing_creation_blocks(timestamptz)",
    "DROP FUNCTION IF EXISTS listing_creation_day(timestamptz)",
)


def add_blocks(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for function in FUNCTIONS:
        schema_editor.execute(function)
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")
    schema_editor.execute(
        f"CREATE INDEX {INDEX} ON listings_property"
        " USING gin (search_document, listing_creation_blocks(created_at))"
    )


def remove_blocks(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")
    schema_editor.execute(f"CREATE INDEX {INDEX} ON listings_property USING gin (search_document)")
    for function in DROP_FUNCTIONS:
        schema_editor.execute(function)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0033_map_cells_rolled_up"),
    ]

    operations = [
        migrations.RunPython(add_blocks, remove_blocks, elidable=False),
    ]
