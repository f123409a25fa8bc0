"""The public listing groups' triggers from listings/sql/public_listing_groups.sql, and the
groups rebuilt with them (PostgreSQL only; docs/architecture.md)."""

from django.db import migrations

from listings.search import groups


def install_groups(apps, schema_editor):
    groups.install(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0017_public_listing_groups"),
    ]

    operations = [
        migrations.RunPython(install_groups, migrations.RunPython.noop),
    ]
