"""An index for reading a campaign's characters a page at a time by (name, id)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [('characters', '0007_balances')]

    operations = [
        migrations.AddIndex(
            model_name='character',
            index=models.Index(fields=['campaign', 'status', 'name', 'id'], name='characters_by_campaign_name'),
        ),
    ]
