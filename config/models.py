"""Building blocks shared by the models of every app."""

from django.db import models

from config.ids import ID_LENGTH, new_id


class IdField(models.CharField):
    """Primary key holding a server-generated cuid2 string (decisions D2)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("primary_key", True)
        kwargs.setdefault("max_length", ID_LENGTH)
        kwargs.setdefault("default", new_id)
        kwargs.setdefault("editable", False)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()
        return name, "config.models.IdField", args, kwargs


class TimestampedModel(models.Model):
    """A model with a cuid2 id and creation / last-change timestamps."""

    id = IdField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True
