"""How many public listings were created each day, kept by PostgreSQL's triggers from
listings/sql/public_listing_days.sql and built from the listings by running the file: a
deep page of every public listing by creation date starts at its day
(listings.search.days). Other databases get the table, empty.
"""

from django.db import migrations, models

from listings.search import days


def install_days(apps, schema_editor):
    days.install(schema_editor)


def uninstall_days(apps, schema_editor):
    days.uninstall(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0038_map_cells_from_finer_grids"),
    ]

    operations = [
        migrations.CreateModel(
            name="PublicListingDay",
            fields=[
                ("day", models.DateField(primary_key=True, serialize=False)),
                ("listings", models.IntegerField()),
            ],
        ),
        migrations.RunPython(install_days, uninstall_days),
    ]
