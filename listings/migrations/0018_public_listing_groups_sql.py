"""Once the public listing groups' triggers from listings/sql/public_listing_groups.sql and
the groups rebuilt with them; the file now reads the `public` column, so 0037, the first
migration after it, runs the file (listings/triggers.py)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0017_public_listing_groups"),
    ]

    operations = []
