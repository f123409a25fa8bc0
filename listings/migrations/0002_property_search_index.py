"""Full-text search index of listings, on PostgreSQL only.

The expression is the one listings.filters.search_vector() produces, so that the planner
can use the index for `q`. SQLite has no tsvector; its fallback search needs no index.
"""

from django.db import migrations

INDEX_NAME = "listings_prop_search_idx"
SEARCH_EXPRESSION = (
    "to_tsvector('simple'::regconfig, "
    "COALESCE(title, '') || ' ' || COALESCE(description, '') || ' ' || "
    "COALESCE(address, '') || ' ' || COALESCE(municipality, ''))"
)


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE INDEX IF NOT EXISTS {INDEX_NAME} ON listings_property USING gin ({SEARCH_EXPRESSION})"
    )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX_NAME}")


class Migration(migrations.Migration):
    dependencies = [("listings", "0001_initial")]

    operations = [migrations.RunPython(create_index, drop_index, elidable=False)]
