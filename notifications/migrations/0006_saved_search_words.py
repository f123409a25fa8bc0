"""The words of a saved search's plain `q` as a column, with a GIN index of them
(PostgreSQL; notifications.matching). Existing saved searches get theirs from their
criteria, by the code that writes them for new ones.
"""

import importlib

from django.conf import settings
from django.db import migrations, models

WORDS_INDEX = (
    "CREATE INDEX notifications_saved_words_idx ON notifications_savedsearch USING gin"
    " (string_to_array(words, ' '))"
    " WHERE words IS NOT NULL AND town IS NULL AND area_west IS NULL AND frequency <> 'PAUSED'"
)


def create_words_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(WORDS_INDEX)


def drop_words_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS notifications_saved_words_idx")


# Every column again, the words among them, as 0005 writes them.
fill_columns = importlib.import_module(
    "notifications.migrations.0005_saved_search_matching"
).fill_columns


class Migration(migrations.Migration):

    dependencies = [
        ('notifications', '0005_saved_search_matching'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='savedsearch',
            name='notifications_saved_broad_idx',
        ),
        migrations.AddField(
            model_name='savedsearch',
            name='words',
            field=models.TextField(editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name='savedsearch',
            index=models.Index(condition=models.Q(('area_west__isnull', True), ('town__isnull', True), ('words__isnull', True), models.Q(('frequency', 'PAUSED'), _negated=True)), fields=['transaction_type', 'kind'], name='notifications_saved_rest_idx'),
        ),
        migrations.RunPython(create_words_index, drop_words_index, elidable=False),
        migrations.RunPython(fill_columns, migrations.RunPython.noop, elidable=False),
    ]
