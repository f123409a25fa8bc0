"""The property status state machine (decisions D10), in one place.

Each allowed move names who may make it: the listing's owner and/or an admin.
"""

from dataclasses import dataclass

from listings.models import PropertyStatus, TransactionType

OWNER = "owner"
ADMIN = "admin"


@dataclass(frozen=True)
class Move:
    """One allowed status move and the roles that may make it."""

    roles: frozenset[str]
    # SOLD only for a SALE listing, RENTED only for a RENT listing.
    transaction_type: str | None = None


PROPERTY_MOVES: dict[str, dict[str, Move]] = {
    PropertyStatus.PENDING: {
        PropertyStatus.AVAILABLE: Move(frozenset({ADMIN})),
        PropertyStatus.SUSPENDED: Move(frozenset({ADMIN})),
    },
    PropertyStatus.AVAILABLE: {
        PropertyStatus.SOLD: Move(frozenset({OWNER, ADMIN}), TransactionType.SALE),
        PropertyStatus.RENTED: Move(frozenset({OWNER, ADMIN}), TransactionType.RENT),
        PropertyStatus.SUSPENDED: Move(frozenset({ADMIN})),
    },
    PropertyStatus.RENTED: {PropertyStatus.AVAILABLE: Move(frozenset({OWNER, ADMIN}))},
    PropertyStatus.SOLD: {PropertyStatus.AVAILABLE: Move(frozenset({ADMIN}))},
    PropertyStatus.SUSPENDED: {
        PropertyStatus.AVAILABLE: Move(frozenset({ADMIN})),
        PropertyStatus.PENDING: Move(frozenset({ADMIN})),
    },
}


def allowed_next_statuses(*, current: str, transaction_type: str) -> list[str]:
    """The statuses the table allows from `current` for a listing of this transaction type."""
    return [
        status
        for status, move in PROPERTY_MOVES.get(current, {}).items()
        if move.transaction_type in (None, transaction_type)
    ]
