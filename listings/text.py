"""Text as searches compare it: without accents, lowercased."""

import unicodedata


def folded(text: str) -> str:
    """Text without accents, lowercased: as PostgreSQL's unaccent() and lower() leave it
    (the place suggestions' listings_place_folded(), the free-text search's
    configuration), in Python (SQLite, and the suggestions' reference)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(letter for letter in decomposed if not unicodedata.combining(letter)).lower()
