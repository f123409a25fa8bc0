"""Making and recognising API bearer tokens."""

import hashlib
import secrets

TOKEN_PREFIX = "est_"  # noqa: S105 (a public marker, not a secret)


def token_generate() -> str:
    """A new opaque token: a prefix that makes leaks easy to scan for, then 256 random bits."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """The stored form of a token. Tokens are random, so a fast hash without salt is enough."""
    return hashlib.sha256(token.encode()).hexdigest()
