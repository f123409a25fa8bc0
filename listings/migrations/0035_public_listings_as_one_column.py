"""Public listings as one column: `public`, computed by the database from the status, and
the public indexes and the filter statistics on it instead of the statuses
(docs/performance.md, "Public listings as one column").

SQLite makes the table anew to add a stored column, which the view listings_property_row
reading it does not survive: the view is dropped first and made again last.
PostgreSQL writes the table anew too; 0036 vacuums it.
"""

import importlib

import django.db.models.functions.text
from django.db import migrations, models

property_row = importlib.import_module("listings.migrations.0019_property_row")

STATISTICS = "listings_prop_filter_stats"


def statistics_on(visibility_column):
    """PostgreSQL: the statistics of how the filter columns go together (migration 0007),
    with the listing's visibility read from `visibility_column` (gathered by 0036)."""

    def create(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(f"DROP STATISTICS IF EXISTS {STATISTICS}")
        schema_editor.execute(
            f"CREATE STATISTICS {STATISTICS} (dependencies, mcv) ON "
            f"(lower(municipality)), kind, transaction_type, category_id, {visibility_column} "
            "FROM listings_property"
        )

    return create


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0003_user_language'),
        ('listings', '0034_search_document_creation_blocks'),
    ]

    operations = [
        migrations.RunPython(property_row.drop_view, property_row.create_view, elidable=False),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_box_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_lng_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_town_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_town_tx_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_price_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_tx_price_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_kind_price_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_k_price_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_area_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_kind_area_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_created_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_kind_bed_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_cat_kind_idx',
        ),
        migrations.RemoveIndex(
            model_name='property',
            name='listings_prop_pub_sitemap_idx',
        ),
        migrations.AddField(
            model_name='property',
            name='public',
            field=models.GeneratedField(db_persist=True, expression=models.ExpressionWrapper(models.Q(('status__in', ('PENDING', 'SUSPENDED')), _negated=True), output_field=models.BooleanField()), output_field=models.BooleanField()),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(django.db.models.functions.text.Lower('municipality'), models.F('kind'), models.F('transaction_type'), models.F('price'), models.F('id'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_town_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(django.db.models.functions.text.Lower('municipality'), models.F('transaction_type'), models.F('price'), models.F('id'), models.F('kind'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_town_tx_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('price'), models.F('id'), models.F('kind'), models.F('transaction_type'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_price_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('transaction_type'), models.F('price'), models.F('id'), models.F('kind'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_tx_price_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('kind'), models.F('price'), models.F('id'), models.F('transaction_type'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_kind_price_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('kind'), models.F('transaction_type'), models.F('price'), models.F('id'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_k_price_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('area'), models.F('id'), models.F('kind'), models.F('transaction_type'), models.F('price'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_area_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('kind'), models.F('area'), models.F('id'), models.F('transaction_type'), models.F('price'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_kind_area_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.OrderBy(models.F('created_at'), descending=True), models.OrderBy(models.F('id'), descending=True), models.F('kind'), models.F('transaction_type'), models.F('price'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_created_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('latitude'), models.F('longitude'), models.F('created_at'), models.F('id'), models.F('kind'), models.F('transaction_type'), models.F('price'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), condition=models.Q(('public', True)), name='listings_prop_pub_box_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('longitude'), models.F('latitude'), models.F('kind'), models.F('transaction_type'), models.F('price'), models.F('area'), models.F('bedrooms'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('id'), condition=models.Q(('public', True)), name='listings_prop_pub_lng_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('kind'), models.F('transaction_type'), models.F('bedrooms'), models.F('price'), models.F('area'), models.F('category'), models.F('municipality'), models.F('created_at'), models.F('id'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_kind_bed_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('category'), models.F('kind'), models.F('transaction_type'), models.F('price'), models.F('area'), models.F('bedrooms'), models.F('municipality'), models.F('created_at'), models.F('id'), models.F('latitude'), models.F('longitude'), condition=models.Q(('public', True)), name='listings_prop_pub_cat_kind_idx'),
        ),
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('id'), models.F('slug'), models.F('updated_at'), condition=models.Q(('public', True)), name='listings_prop_pub_sitemap_idx'),
        ),
        migrations.RunPython(statistics_on("public"), statistics_on("status")),
        migrations.RunPython(property_row.create_view, property_row.drop_view, elidable=False),
    ]
