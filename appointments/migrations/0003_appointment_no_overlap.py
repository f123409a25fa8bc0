"""No two non-cancelled appointments of one property overlap in time, on PostgreSQL.

An exclusion constraint over [date, ends_at) per property holds it under concurrent
requests. SQLite has no such constraint; there the booking service checks inside its
write transaction (SQLite serialises writers; transactions start IMMEDIATE).
"""

from django.db import migrations

CONSTRAINT_NAME = "appointments_no_overlap"


def add_constraint(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
    schema_editor.execute(
        f"ALTER TABLE appointments_appointment ADD CONSTRAINT {CONSTRAINT_NAME} "
        "EXCLUDE USING gist (property_id WITH =, tstzrange(date, ends_at, '[)') WITH &&) "
        "WHERE (status <> 'CANCELLED')"
    )


def drop_constraint(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"ALTER TABLE appointments_appointment DROP CONSTRAINT IF EXISTS {CONSTRAINT_NAME}"
    )


class Migration(migrations.Migration):
    dependencies = [("appointments", "0002_appointment_ends_at")]

    operations = [migrations.RunPython(add_constraint, drop_constraint, elidable=False)]
