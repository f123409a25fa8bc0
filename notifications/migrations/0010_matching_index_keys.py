"""The kind and transaction of saved searches as keys of the matching's indexes ("" for
any; notifications.models.KIND_KEY, TRANSACTION_KEY): a listing's town, words and the rest
are read for its own kind and transaction and for any, not for every one."""

import importlib

import django.db.models.functions.comparison
from django.conf import settings
from django.db import migrations, models


first_word = importlib.import_module("notifications.migrations.0009_saved_search_first_word_index")

KEYED_WORD_INDEX = (
    "CREATE INDEX notifications_saved_word_idx ON notifications_savedsearch"
    " (split_part(words, ' ', 1), COALESCE(transaction_type, ''), COALESCE(kind, ''))"
    " WHERE words IS NOT NULL AND town IS NULL AND area_west IS NULL AND frequency <> 'PAUSED'"
)


def key_the_word_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS notifications_saved_word_idx")
        schema_editor.execute(KEYED_WORD_INDEX)


def unkey_the_word_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS notifications_saved_word_idx")
        schema_editor.execute(first_word.FIRST_WORD_INDEX)


class Migration(migrations.Migration):

    dependencies = [
        ('notifications', '0009_saved_search_first_word_index'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='savedsearch',
            name='notifications_saved_town_idx',
        ),
        migrations.RemoveIndex(
            model_name='savedsearch',
            name='notifications_saved_rest_idx',
        ),
        migrations.AddIndex(
            model_name='savedsearch',
            index=models.Index(models.F('town'), django.db.models.functions.comparison.Coalesce(models.F('transaction_type'), models.Value('')), django.db.models.functions.comparison.Coalesce(models.F('kind'), models.Value('')), condition=models.Q(('town__isnull', False), models.Q(('frequency', 'PAUSED'), _negated=True)), name='notifications_saved_town_idx'),
        ),
        migrations.AddIndex(
            model_name='savedsearch',
            index=models.Index(django.db.models.functions.comparison.Coalesce(models.F('transaction_type'), models.Value('')), django.db.models.functions.comparison.Coalesce(models.F('kind'), models.Value('')), condition=models.Q(('area_west__isnull', True), ('town__isnull', True), ('words__isnull', True), models.Q(('frequency', 'PAUSED'), _negated=True)), name='notifications_saved_rest_idx'),
        ),
        migrations.RunPython(key_the_word_index, unkey_the_word_index, elidable=False),
    ]
