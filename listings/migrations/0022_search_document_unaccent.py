"""`q` without accents: the search document in a text search configuration that unaccents.

`simple_unaccent` is PostgreSQL's "simple" configuration with the unaccent dictionary (the
extension made by 0020) before it, so "Malaga", "malaga" and "MÁLAGA" all find "Málaga".
The stored document is computed again (a generated column cannot change its expression:
it is removed and added), and its GIN index made again on it. SQLite makes the table anew
for that, which the view listings_property_row reading it does not survive: the view is
dropped first and made again last.
"""

import importlib

import django.contrib.postgres.search
from django.db import migrations, models

import listings.models

property_row = importlib.import_module("listings.migrations.0019_property_row")

CONFIG = "simple_unaccent"
INDEX = "listings_prop_search_doc_idx"


def create_configuration(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    # A constant statement (the configuration's name is written out).
    schema_editor.execute(
        """
        DO $$
        BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'simple_unaccent') THEN
            CREATE TEXT SEARCH CONFIGURATION simple_unaccent (COPY = simple);
            ALTER TEXT SEARCH CONFIGURATION simple_unaccent
              ALTER MAPPING FOR asciihword, asciiword, hword, hword_asciipart, hword_part, word
              WITH unaccent, simple;
          END IF;
        END
        $$
        """
    )


def drop_configuration(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP TEXT SEARCH CONFIGURATION IF EXISTS {CONFIG}")


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON listings_property USING gin (search_document)"
        )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


def search_document(config: str) -> models.GeneratedField:
    return models.GeneratedField(
        db_persist=True,
        expression=listings.models.SearchDocument(
            "title", "description", "address", "municipality", config=config
        ),
        output_field=django.contrib.postgres.search.SearchVectorField(),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0021_map_cell"),
    ]

    operations = [
        migrations.RunPython(create_configuration, drop_configuration, elidable=False),
        migrations.RunPython(property_row.drop_view, property_row.create_view, elidable=False),
        # Undone, the document of 0008 gets its GIN index back.
        migrations.RunPython(migrations.RunPython.noop, create_index, elidable=False),
        migrations.RemoveField(model_name="property", name="search_document"),
        migrations.AddField(
            model_name="property", name="search_document", field=search_document(CONFIG)
        ),
        migrations.RunPython(create_index, drop_index, elidable=False),
        migrations.RunPython(property_row.create_view, property_row.drop_view, elidable=False),
    ]
