"""Django's MAILERS setting from one EMAIL_URL (docs/email.md)."""

import environ


def smtp_mailers(email_url: str, *, timeout: int) -> dict:
    """MAILERS whose default mailer is the server EMAIL_URL names (django-environ reads
    smtp://, smtp+tls:// and smtp+ssl:// URLs), each attempt bounded by `timeout` seconds."""
    server = environ.Env.email_url_config(email_url)
    return {
        "default": {
            "BACKEND": server["EMAIL_BACKEND"],
            "OPTIONS": {
                "host": server["EMAIL_HOST"],
                "port": server["EMAIL_PORT"],
                "username": server["EMAIL_HOST_USER"] or "",
                "password": server["EMAIL_HOST_PASSWORD"] or "",
                "use_tls": server.get("EMAIL_USE_TLS", False),
                "use_ssl": server.get("EMAIL_USE_SSL", False),
                "timeout": timeout,
            },
        }
    }
