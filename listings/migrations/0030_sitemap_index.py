"""The sitemap's partial index: public listings' id, slug and updated_at (listings.sitemap)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('listings', '0029_deleted_listing'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='property',
            index=models.Index(models.F('id'), models.F('slug'), models.F('updated_at'), condition=models.Q(('status__in', ('PENDING', 'SUSPENDED')), _negated=True), name='listings_prop_pub_sitemap_idx'),
        ),
    ]
