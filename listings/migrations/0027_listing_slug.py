"""Every listing gets its slug (listings.models.listing_slug), written by the services from
now on and filled here for the listings there are."""

import importlib

from django.db import migrations, models

from listings.models import listing_slug

# SQLite adds the column by copying the table, which the view listings_property_row reading
# it does not survive: the view is dropped first and made again after.
property_row = importlib.import_module("listings.migrations.0019_property_row")

# Listings whose slugs are written per statement batch.
BATCH_SIZE = 5_000


def fill_slugs(apps, schema_editor):
    """Give every listing its slug as the services write it (listing_slug), walking the
    table by id in batches; the update statements of a batch go as one executemany."""
    Property = apps.get_model("listings", "Property")
    last = ""
    while True:
        rows = list(
            Property.objects.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "title", "kind")[:BATCH_SIZE]
        )
        if not rows:
            return
        with schema_editor.connection.cursor() as cursor:
            cursor.executemany(
                "UPDATE listings_property SET slug = %s WHERE id = %s",
                [(listing_slug(title=title, kind=kind), pk) for pk, title, kind in rows],
            )
        last = rows[-1][0]


class Migration(migrations.Migration):

    dependencies = [
        ('listings', '0026_price_change'),
    ]

    operations = [
        migrations.RunPython(property_row.drop_view, property_row.create_view, elidable=False),
        migrations.AddField(
            model_name='property',
            name='slug',
            field=models.SlugField(db_index=False, default='listing', editable=False, max_length=100),
            preserve_default=False,
        ),
        migrations.RunPython(property_row.create_view, property_row.drop_view, elidable=False),
        migrations.RunPython(fill_slugs, migrations.RunPython.noop, elidable=True),
    ]
