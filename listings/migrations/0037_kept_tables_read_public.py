"""The triggers of the tables PostgreSQL keeps from the listings (the public listing
groups, the places, the map cells) read a listing's `public` column (0035) instead of
writing its hidden statuses out again, and each table is rebuilt with them.

The column's public indexes are partial on it: a map cell's listings, read again when a
listing leaves the cell's edge or its lowest price, are read through them only when the
trigger asks for `public` too (at 1,000,000 listings, a listing's price change took half
a second, up to 1.5 s, each stale cell a scan of the whole table: docs/performance.md, "Map
clusters and box counts from stored cells"). The first migration to run the files: earlier ones ran before the
column existed (listings/triggers.py).
"""

from django.db import migrations

from listings import places
from listings.search import cells, groups


def install_kept_tables(apps, schema_editor):
    groups.install(schema_editor)
    places.install(schema_editor)
    cells.install(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0036_vacuum_the_rewritten_listings"),
    ]

    # Going back, the triggers stay: they need the column until 0035 is reversed, and past
    # it a listing's write fails on them, loudly, until 0021, 0020 and 0017 drop them.
    operations = [
        migrations.RunPython(install_kept_tables, migrations.RunPython.noop),
    ]
