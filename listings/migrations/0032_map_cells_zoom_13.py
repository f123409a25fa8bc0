"""A fourth grid of map cells, at zoom 13 (listings.search.cells.MAP_CELL_LEVELS): the
triggers' file runs again and rebuilds every cell."""

from django.db import migrations

from listings.search import cells


def install_map_cells(apps, schema_editor):
    cells.install(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0031_record_verbose_names"),
    ]

    operations = [
        migrations.RunPython(install_map_cells, migrations.RunPython.noop),
    ]
