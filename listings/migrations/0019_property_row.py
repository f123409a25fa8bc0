"""The view listings_property_row (listings/sql/property_row.<vendor>.sql) and its model."""

from pathlib import Path

import sqlparse
from django.db import migrations, models

SQL_DIRECTORY = Path(__file__).resolve().parent.parent / "sql"


def create_view(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    script = (SQL_DIRECTORY / f"property_row.{vendor}.sql").read_text(encoding="utf-8")
    # One statement per execute(), as SQLite's driver runs them.
    for statement in sqlparse.split(script):
        schema_editor.execute(statement, params=None)


def drop_view(apps, schema_editor):
    schema_editor.execute("DROP VIEW IF EXISTS listings_property_row", params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("listings", "0018_public_listing_groups_sql"),
        ("media_app", "0001_initial"),
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(create_view, drop_view),
        migrations.CreateModel(
            name="PropertyRow",
            fields=[
                ("id", models.CharField(max_length=25, primary_key=True, serialize=False)),
                ("title", models.CharField(max_length=200)),
                ("description", models.TextField()),
                ("price", models.DecimalField(decimal_places=2, max_digits=14)),
                ("latitude", models.FloatField()),
                ("longitude", models.FloatField()),
                ("transaction_type", models.CharField(max_length=4)),
                ("municipality", models.CharField(max_length=120)),
                ("address", models.CharField(max_length=300)),
                ("area", models.DecimalField(decimal_places=2, max_digits=12)),
                ("status", models.CharField(max_length=9)),
                ("owner_id", models.CharField(max_length=25)),
                ("category_id", models.CharField(max_length=25)),
                ("created_at", models.DateTimeField()),
                ("updated_at", models.DateTimeField()),
                ("record_id", models.CharField(max_length=25, null=True)),
                ("record_kind", models.CharField(max_length=11, null=True)),
                ("record_rooms", models.PositiveIntegerField(null=True)),
                ("record_bedrooms", models.PositiveIntegerField(null=True)),
                ("record_bathrooms", models.PositiveIntegerField(null=True)),
                ("record_floors", models.PositiveIntegerField(null=True)),
                ("record_number_of_units", models.PositiveIntegerField(null=True)),
                ("record_swimming_pool", models.BooleanField(null=True)),
                ("record_parking_space", models.BooleanField(null=True)),
                ("record_balcony", models.BooleanField(null=True)),
                ("record_elevator", models.BooleanField(null=True)),
                ("record_elevators", models.BooleanField(null=True)),
                ("record_serviced", models.BooleanField(null=True)),
                ("record_land_type", models.CharField(max_length=12, null=True)),
                ("record_type_of_activity", models.CharField(max_length=11, null=True)),
                ("category_name", models.CharField(max_length=100)),
                ("category_description", models.TextField()),
                ("owner_user_id", models.CharField(max_length=25)),
                ("owner_user_name", models.CharField(max_length=200, null=True)),
                ("owner_user_email", models.EmailField(max_length=254)),
                ("owner_user_phone", models.CharField(max_length=40, null=True)),
                ("photo_entries", models.JSONField(null=True)),
                ("video_entries", models.JSONField(null=True)),
            ],
            options={
                "db_table": "listings_property_row",
                "managed": False,
            },
        ),
    ]
