"""The saved searches' criteria as columns, and their indexes (notifications.matching).

The map areas' GiST index is PostgreSQL's (SQLite compares the four columns). Existing saved
searches get their columns from their criteria, by the code that writes them for new ones.
"""

from django.conf import settings
from django.db import migrations, models

AREA_INDEX = (
    "CREATE INDEX notifications_saved_area_idx ON notifications_savedsearch USING gist"
    " (box(point(area_west, area_south), point(area_east, area_north)))"
    " WHERE town IS NULL AND area_west IS NOT NULL AND frequency <> 'PAUSED'"
)


def create_area_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(AREA_INDEX)


def drop_area_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS notifications_saved_area_idx")


def fill_columns(apps, schema_editor):
    from listings.search import search_params
    from notifications.matching import saved_search_columns

    saved_searches = apps.get_model("notifications", "SavedSearch")
    # The columns the model has at this migration: later ones fill those they add.
    fields = {field.name for field in saved_searches._meta.get_fields()}
    for saved_search in saved_searches.objects.all():
        columns = saved_search_columns(search_params(saved_search.criteria))
        known = {name: value for name, value in columns.items() if name in fields}
        saved_searches.objects.filter(pk=saved_search.pk).update(**known)


class Migration(migrations.Migration):

    dependencies = [
        ('notifications', '0004_email_preferences'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='savedsearch',
            name='area_east',
            field=models.FloatField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='area_north',
            field=models.FloatField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='area_south',
            field=models.FloatField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='area_west',
            field=models.FloatField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='checked_on_listing',
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='kind',
            field=models.CharField(editable=False, max_length=11, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='max_price',
            field=models.DecimalField(decimal_places=2, editable=False, max_digits=14, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='min_bedrooms',
            field=models.PositiveIntegerField(editable=False, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='min_price',
            field=models.DecimalField(decimal_places=2, editable=False, max_digits=14, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='town',
            field=models.CharField(editable=False, max_length=120, null=True),
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='transaction_type',
            field=models.CharField(editable=False, max_length=4, null=True),
        ),
        migrations.AddIndex(
            model_name='savedsearch',
            index=models.Index(condition=models.Q(('town__isnull', False), models.Q(('frequency', 'PAUSED'), _negated=True)), fields=['town'], name='notifications_saved_town_idx'),
        ),
        migrations.AddIndex(
            model_name='savedsearch',
            index=models.Index(condition=models.Q(('area_west__isnull', True), ('town__isnull', True), models.Q(('frequency', 'PAUSED'), _negated=True)), fields=['transaction_type', 'kind'], name='notifications_saved_broad_idx'),
        ),
        migrations.RunPython(create_area_index, drop_area_index, elidable=False),
        migrations.RunPython(fill_columns, migrations.RunPython.noop, elidable=False),
    ]
