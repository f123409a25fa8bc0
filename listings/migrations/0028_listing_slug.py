"""Every listing gets its slug (listings.models.listing_slug), written by the services from
now on and filled here for the listings there are."""

import importlib

from django.db import migrations, models

from listings.models import listing_slug

# SQLite adds the column by copying the table, which the view listings_property_row reading
# it does not survive: the view is dropped first and made again after.
property_row = importlib.import_module("listings.migrations.0019_property_row")

# Listings whose slugs are written by one statement.
BATCH_SIZE = 2_000


def fill_slugs(apps, schema_editor):
    """Give every listing its slug as the services write it (listing_slug), walking the
    table by id in batches. Each batch is one UPDATE joined to a VALUES list: the
    table's statement-level triggers would run once per batch, not once per listing (one
    UPDATE a listing took hours at 1,000,000 listings); on PostgreSQL they are off."""
    Property = apps.get_model("listings", "Property")
    postgresql = schema_editor.connection.vendor == "postgresql"
    if postgresql:
        # The table's triggers keep the map cells, places and listing groups, none of which
        # reads the slug: they are off for the fill (three quarters of its time at
        # 1,000,000 listings), in this migration's transaction, which locks the table.
        schema_editor.execute("ALTER TABLE listings_property DISABLE TRIGGER USER")
    last = ""
    while True:
        rows = list(
            Property.objects.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "title", "kind")[:BATCH_SIZE]
        )
        if not rows:
            break
        values = ", ".join(["(%s, %s)"] * len(rows))
        parameters = [
            value
            for pk, title, kind in rows
            for value in (pk, listing_slug(title=title, kind=kind))
        ]
        with schema_editor.connection.cursor() as cursor:
            # VALUES names its columns column1, column2 on both PostgreSQL and SQLite.
            cursor.execute(
                "UPDATE listings_property SET slug = batch.column2"  # noqa: S608
                f" FROM (VALUES {values}) AS batch"
                " WHERE listings_property.id = batch.column1",
                parameters,
            )
        last = rows[-1][0]
    if postgresql:
        schema_editor.execute("ALTER TABLE listings_property ENABLE TRIGGER USER")


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0027_property_daily_views"),
    ]

    operations = [
        migrations.RunPython(property_row.drop_view, property_row.create_view, elidable=False),
        migrations.AddField(
            model_name="property",
            name="slug",
            field=models.SlugField(
                db_index=False, default="listing", editable=False, max_length=100
            ),
            preserve_default=False,
        ),
        migrations.RunPython(property_row.create_view, property_row.drop_view, elidable=False),
        migrations.RunPython(fill_slugs, migrations.RunPython.noop, elidable=True),
    ]
