import datetime

from django.db import migrations, models
from django.db.models import F, Q


def fill_ends_at(apps, schema_editor):
    Appointment = apps.get_model("appointments", "Appointment")
    for appointment in Appointment.objects.filter(ends_at__isnull=True).iterator():
        appointment.ends_at = appointment.date + datetime.timedelta(minutes=appointment.duration)
        appointment.save(update_fields=["ends_at"])


class Migration(migrations.Migration):
    dependencies = [("appointments", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="appointment", name="ends_at", field=models.DateTimeField(null=True)
        ),
        migrations.RunPython(fill_ends_at, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="appointment", name="ends_at", field=models.DateTimeField()
        ),
        migrations.AddConstraint(
            model_name="appointment",
            constraint=models.CheckConstraint(
                condition=Q(ends_at__gt=F("date")), name="appointments_ends_after_start"
            ),
        ),
    ]
