"""The map cells' trigger computes a stale cell of a coarser grid from the cells of the
grid just finer, rather than from its listings.

A cell is stale when a listing written away from it was on its bounds or its lowest price.
Reading a zoom 9 cell's listings again read a band of the box index across the whole map:
at 1,000,000 listings, a price change of a dense cell's cheapest listing took 37 to 40 ms
(median); from the 64 cells of zoom 12 that tile it, 3.5 to 3.9 ms (`make bench-writes`;
docs/performance.md, "Map clusters and box counts from stored cells"). Running the file
again rebuilds the cells from the listings.
"""

from django.db import migrations

from listings.search import cells


def install_map_cells(apps, schema_editor):
    cells.install(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0037_kept_tables_read_public"),
    ]

    # Going back keeps the newer function: it keeps the same cells.
    operations = [
        migrations.RunPython(install_map_cells, migrations.RunPython.noop),
    ]
