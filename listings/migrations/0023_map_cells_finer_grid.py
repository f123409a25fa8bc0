"""Map searches on the public indexes, and a third, finer grid of map cells (zoom 15).

The index on every listing's latitude and longitude goes (listings.models says why). Map
boxes of a few streets are counted from the new grid (listings.search.cells.celled_count).
The cells' file, which this migration once ran again, now reads the `public` column, so
0037, the first migration after it, runs the file (listings/triggers.py).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0022_search_document_unaccent"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="property", name="listings_prop_lat_lng_idx"),
    ]
