"""Place suggestions for the search box: towns whose name starts with what was typed.

    place_suggestions(text="mal")  ->  [Suggestion("Málaga", 6200), Suggestion("Mallorca", ...)]

A town is the municipality of public listings, as the municipality filter compares it
(LOWER(municipality)): a suggestion's count is the count of a search for its name. The typed
text and the names are compared without accents or case ("malaga" finds "Málaga"), and one
wrong, missing or extra letter after the first is forgiven once four letters are typed
("barcelna" finds "Barcelona"; the first letter must be right, as with Elasticsearch's
fuzzy `prefix_length` 1, so that only the towns of that letter are compared). Towns that
start with the text come first, then those one letter away; each by their listings, most
first.

On PostgreSQL the towns are read from listings_place, which triggers on the listings table
keep in the statement that writes a listing (listings/sql/places.sql), so a suggestion never
counts listings: at 1,000,000 listings, counting those of the towns that start with "ma"
takes 0.5 s. The table has a few thousand rows at most (Spain has about 8,100
municipalities); an index of the folded names (a pattern index, for LIKE 'mad%') reads
the towns of the typed text, or for a mistyped one those of its first letter, whose
prefixes levenshtein() from fuzzystrmatch then compares (docs/performance.md). Elsewhere
(SQLite, for development) the same answer is made in Python from the public listings.
"""

from dataclasses import dataclass
from pathlib import Path

from django.db import connections

from listings.models import PUBLIC_LISTING, Place, Property
from listings.text import folded
from listings.triggers import install_sql_file, uninstall_triggers

# The triggers, their functions and the rebuild of the places.
SQL_FILE = Path(__file__).resolve().parent / "sql" / "places.sql"
# Letters typed before a typo is forgiven: with fewer, one letter away matches most towns.
TYPO_FROM = 4
# ... and after which none is: no town's name (120 letters at most) is one letter away from
# a longer text (and levenshtein() takes no more than 255 letters).
TYPO_UP_TO = 121
DEFAULT_SUGGESTIONS = 10
MAX_PLACE_SUGGESTIONS = 20


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A town to search in: its name as the municipality filter takes it, and how many
    public listings it has."""

    name: str
    listings: int


def levenshtein(first: str, second: str) -> int:
    """How many letters must be changed, added or removed to make one text the other."""
    previous = list(range(len(second) + 1))
    for row, letter in enumerate(first, start=1):
        current = [row]
        for column, other in enumerate(second, start=1):
            current.append(
                min(previous[column] + 1, current[-1] + 1, previous[column - 1] + (letter != other))
            )
        previous = current
    return previous[-1]


def one_letter_away(typed: str, name: str) -> bool:
    """Whether the name starts with the typed text but for one letter after the first (both
    folded)."""
    length = len(typed)
    return name[:1] == typed[:1] and any(
        levenshtein(typed, name[:prefix]) <= 1 for prefix in (length - 1, length, length + 1)
    )


def like_prefix(text: str) -> str:
    """A LIKE pattern for the values that start with `text` (its wildcards escaped)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"{escaped}%"


# The towns that start with the typed text, or (when typo_from <= length <= typo_up_to) those
# of its first letter whose start is one letter away from it; starting ones first, then most
# listings, then names in code point order ("C"), as Python orders them. One fixed statement:
# built with the ORM, its expressions (three levenshtein() of left(), a CASE, a collation)
# cost 5 ms of Python a request, for 0.3 ms in PostgreSQL. The LIKE of the first letter is
# what the pattern index serves.
SUGGESTIONS_STATEMENT = """
SELECT name, listings FROM (
  SELECT name, listings, key, folded, folded LIKE %(prefix)s AS starts
  FROM listings_place
  WHERE listings > 0 AND folded LIKE %(first)s
) AS town
WHERE starts OR (
  %(typo)s AND least(
    levenshtein(%(typed)s, left(folded, %(length)s - 1)),
    levenshtein(%(typed)s, left(folded, %(length)s)),
    levenshtein(%(typed)s, left(folded, %(length)s + 1))
  ) <= 1
)
ORDER BY starts DESC, listings DESC, name COLLATE "C", key
LIMIT %(limit)s
"""


def _suggestions_from_places(typed: str, limit: int) -> list[Suggestion]:
    """The suggestions from listings_place (PostgreSQL)."""
    typo = TYPO_FROM <= len(typed) <= TYPO_UP_TO
    params = {
        "prefix": like_prefix(typed),
        "first": like_prefix(typed[:1]),
        "typo": typo,
        "typed": typed,
        "length": len(typed),
        "limit": limit,
    }
    with connections[Place.objects.db].cursor() as cursor:
        cursor.execute(SUGGESTIONS_STATEMENT, params)
        return [Suggestion(name, listings) for name, listings in cursor.fetchall()]


def _suggestions_from_listings(typed: str, limit: int) -> list[Suggestion]:
    """The same suggestions, from the public listings themselves (databases without
    listings_place's triggers)."""
    towns: dict[str, list] = {}
    listings = Property.objects.filter(PUBLIC_LISTING).order_by("created_at", "id")
    for municipality in listings.values_list("municipality", flat=True).iterator():
        town = towns.setdefault(municipality.lower(), [municipality, 0])
        town[1] += 1
    ranked = []
    for key, (name, count) in towns.items():
        name_folded = folded(name)
        if name_folded.startswith(typed):
            ranked.append((0, -count, name, key))
        elif TYPO_FROM <= len(typed) <= TYPO_UP_TO and one_letter_away(typed, name_folded):
            ranked.append((1, -count, name, key))
    ranked.sort()
    return [Suggestion(name, -count) for _typo, count, name, _key in ranked[:limit]]


def place_suggestions(*, text: str, limit: int = DEFAULT_SUGGESTIONS) -> list[Suggestion]:
    """Up to `limit` towns with public listings whose name starts with `text` (accents and
    case aside, one letter forgiven from TYPO_FROM letters on)."""
    typed = folded(" ".join(text.split()))
    if connections[Place.objects.db].vendor == "postgresql":
        return _suggestions_from_places(typed, limit)
    return _suggestions_from_listings(typed, limit)


def install(schema_editor) -> None:
    """Install the triggers and rebuild the places (a migration's step; PostgreSQL only)."""
    install_sql_file(schema_editor, SQL_FILE)


def uninstall(schema_editor) -> None:
    """Remove the triggers and their functions (reversing the migration that made them)."""
    uninstall_triggers(
        schema_editor,
        prefix="listings_places",
        functions=(
            "listings_places_follow()",
            "listings_places_clear()",
            "listings_place_folded(text)",
        ),
    )
