"""Map cells rolled up by transaction and for any listing (listings.search.cells.ANY): the
triggers' file runs again and rebuilds every cell."""

from django.db import migrations

from listings.search import cells


def install_map_cells(apps, schema_editor):
    cells.install(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0032_map_cells_zoom_13"),
    ]

    operations = [
        migrations.RunPython(install_map_cells, migrations.RunPython.noop),
    ]
