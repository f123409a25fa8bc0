"""A fourth grid of map cells, at zoom 13 (listings.search.cells.MAP_CELL_LEVELS). The cells'
file, which this migration once ran again, now reads the `public` column, so 0037, the
first migration after it, runs the file (listings/triggers.py)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0031_record_verbose_names"),
    ]

    operations = []
