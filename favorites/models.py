"""A user's saved listings."""

from django.conf import settings
from django.db import models

from config.models import IdField
from listings.models import Property


class Favorite(models.Model):
    """One listing saved by one user; a pair is saved at most once."""

    id = IdField()
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="favorites")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="favorites"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["property", "user"], name="favorites_property_user_unique"
            )
        ]
        indexes = [models.Index(fields=["user", "-created_at"], name="favorites_user_created_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} likes {self.property_id}"
