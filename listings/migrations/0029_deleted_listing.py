"""Deleted listings' ids, so that their pages answer 410 Gone."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('listings', '0028_listing_slug'),
    ]

    operations = [
        migrations.CreateModel(
            name='DeletedListing',
            fields=[
                ('id', models.CharField(max_length=25, primary_key=True, serialize=False)),
                ('deleted_at', models.DateTimeField(auto_now_add=True)),
            ],
        ),
    ]
