"""Map searches on the public indexes, and a third, finer grid of map cells (zoom 15).

The index on every listing's latitude and longitude goes (listings.models says why). Map
boxes of a few streets are counted from the new grid (listings.search.cells.celled_count):
the triggers' file runs again and rebuilds every cell.
"""

from django.db import migrations

from listings.search import cells


def install_map_cells(apps, schema_editor):
    cells.install(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0022_search_document_unaccent"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="property", name="listings_prop_lat_lng_idx"),
        migrations.RunPython(install_map_cells, migrations.RunPython.noop),
    ]
