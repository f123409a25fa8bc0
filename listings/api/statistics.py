"""The shape of GET /properties/:id/stats: a listing's owner statistics (listings.statistics)."""

from rest_framework import serializers

from config.api.fields import IdField
from listings.statistics import ListingStatistics


class DayFiguresSerializer(serializers.Serializer):
    """One day of the window."""

    date = serializers.DateField()
    views = serializers.IntegerField(help_text="Views of the listing's page that day.")
    favorites = serializers.IntegerField(
        help_text="Times saved as a favorite that day (and still saved)."
    )
    visit_requests = serializers.IntegerField(help_text="Visits requested that day.")


class VisitOutcomesSerializer(serializers.Serializer):
    """The visits requested in the window, by their status now."""

    PENDING = serializers.IntegerField()
    CONFIRMED = serializers.IntegerField()
    CANCELLED = serializers.IntegerField()
    COMPLETED = serializers.IntegerField()


class PropertyStatisticsSerializer(serializers.Serializer):
    """A listing's figures over the last 30 days (today included, in the server's time
    zone), in all and day by day, oldest first."""

    property_id = IdField()
    first_day = serializers.DateField()
    last_day = serializers.DateField()
    views = serializers.IntegerField(
        help_text=(
            "Views of the listing's public page by people other than its owner and admins"
            " (robots left out); counted views reach the figures within a minute or so."
        )
    )
    favorites = serializers.IntegerField(help_text="Times saved as a favorite (and still saved).")
    visit_requests = serializers.IntegerField(help_text="Visits requested.")
    visit_outcomes = VisitOutcomesSerializer()
    days = DayFiguresSerializer(many=True)


def statistics_item(statistics: ListingStatistics) -> dict:
    """PropertyStatisticsSerializer's shape, camelCased, built directly."""
    return {
        "propertyId": statistics.property_id,
        "firstDay": statistics.first_day.isoformat(),
        "lastDay": statistics.last_day.isoformat(),
        "views": statistics.views,
        "favorites": statistics.favorites,
        "visitRequests": statistics.visit_requests,
        "visitOutcomes": dict(statistics.visit_outcomes),
        "days": [
            {
                "date": day.day.isoformat(),
                "views": day.views,
                "favorites": day.favorites,
                "visitRequests": day.visit_requests,
            }
            for day in statistics.days
        ],
    }
