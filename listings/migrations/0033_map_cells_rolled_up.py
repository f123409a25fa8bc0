"""Map cells rolled up by transaction and for any listing (listings.search.cells.ANY). The
cells' file, which this migration once ran again, now reads the `public` column, so 0037,
the first migration after it, runs the file (listings/triggers.py)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0032_map_cells_zoom_13"),
    ]

    operations = []
