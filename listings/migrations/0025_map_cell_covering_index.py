"""The map cells read from an index alone (PostgreSQL).

A view's cells are sought row by row (listings.search.cells.rows_and_columns); reading each
found cell from the table cost a town's box 13 ms for 1,691 cells, and 0.4 ms from an index
that holds the cells' figures too. Django declares such an index (`include`) for
PostgreSQL only with a warning elsewhere, so it is made here, as the search document's GIN
index is.
"""

from django.db import migrations

INDEX = "listings_map_cell_figures_idx"


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'CREATE INDEX IF NOT EXISTS {INDEX} ON listings_mapcell (level, "row", "column",'
            " transaction_type, kind) INCLUDE (listings, latitude_sum, longitude_sum, west,"
            " south, east, north, lowest_price)"
        )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0024_public_indexes_hold_coordinates"),
    ]

    operations = [migrations.RunPython(create_index, drop_index, elidable=False)]
