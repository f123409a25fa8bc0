"""Webhook secrets and signatures, as Standard Webhooks defines them (decisions D12).

A delivery carries `webhook-id`, `webhook-timestamp` (unix seconds) and
`webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`. The HMAC key is
the base64-decoded part of a `whsec_` secret, else the secret's UTF-8 bytes.
"""

import base64
import binascii
import hashlib
import hmac
import secrets

# The prefix of Standard Webhooks secrets (a marker, not a secret).
SECRET_PREFIX = "whsec_"  # noqa: S105
# Bytes of randomness in a secret the server makes.
GENERATED_SECRET_BYTES = 32


def secret_generate() -> str:
    """A new secret: `whsec_` and the base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(GENERATED_SECRET_BYTES)).decode()


def _prefixed_key(secret: str) -> bytes | None:
    """The key of a `whsec_` secret, or None when what follows the prefix is not base64."""
    try:
        key = base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)
    except (binascii.Error, ValueError):
        return None
    return key or None


def secret_is_valid(secret: str) -> bool:
    """False for a `whsec_` secret whose remainder is not (non-empty) base64."""
    return not secret.startswith(SECRET_PREFIX) or _prefixed_key(secret) is not None


def signing_key(secret: str) -> bytes:
    """The HMAC key of a secret: decoded `whsec_` base64, else the secret's UTF-8 bytes."""
    if secret.startswith(SECRET_PREFIX):
        key = _prefixed_key(secret)
        if key is not None:
            return key
    return secret.encode()


def signature(*, secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64 HMAC-SHA256>` over `{message_id}.{timestamp}.{body}`."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(signing_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signed_headers(*, secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three Standard Webhooks headers of one attempt."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(
            secret=secret, message_id=message_id, timestamp=timestamp, body=body
        ),
    }
