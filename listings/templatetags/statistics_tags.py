"""Template filters of the owner statistics: the bars of a listing's views per day."""

from dataclasses import dataclass

from django import template

from listings.statistics import ListingStatistics

register = template.Library()

# The chart's drawing box, in SVG user units: one bar and a gap a day, a baseline below.
CHART_WIDTH = 150
CHART_HEIGHT = 40
BAR_WIDTH = 4
BAR_STEP = 5
BASELINE = 38


@dataclass(frozen=True)
class Bar:
    """One day's bar of the chart."""

    x: int
    y: int
    height: int


@register.filter
def views_bars(statistics: ListingStatistics) -> list[Bar]:
    """A bar per day with views, as high as its views against the busiest day's."""
    most = max(day.views for day in statistics.days)
    bars = []
    for index, day in enumerate(statistics.days):
        if not day.views:
            continue
        height = max(1, round(day.views / most * (BASELINE - 2)))
        bars.append(Bar(x=index * BAR_STEP, y=BASELINE - height, height=height))
    return bars
