"""The sitemap at scale: time the index and the first, middle and last listing parts.

    DATABASE_URL=postgres://root@127.0.0.1:5432/estate_bench_1000000 \\
        .venv/bin/python -m bench.sitemap [--port 8090] [--explain]

Serves the platform with gunicorn and production settings (as bench/run.py does) on a
seeded database (bench/run.py makes it; migrate it first), GETs /sitemap.xml and then the
parts it names, first, middle and last, each once, reading the whole body, and prints the
time, the size and the number of <url> entries of each. The first request of each part is
the measure (nothing caches a part; a part's rows are read once per request). --explain
adds `EXPLAIN (ANALYZE, BUFFERS)` of the count and of the deepest part's read.
"""

import argparse
import os
import re
import secrets
import sys
import time
import urllib.request

import psycopg

from bench.servers import gunicorn, stop, wait_until_up

LOC = re.compile(r"<loc>([^<]+)</loc>")


def fetch(url: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        body = response.read()
    return time.perf_counter() - started, body


def explain(url: str, per_part: int, parts: int) -> None:
    """Print the plans of the index's count and of the deepest part's read."""
    statements = [
        "SELECT count(*) FROM listings_property WHERE public",
        "SELECT id, slug, updated_at FROM listings_property WHERE public"
        f" ORDER BY id LIMIT {per_part} OFFSET {(parts - 1) * per_part}",
    ]
    with psycopg.connect(url, autocommit=True) as connection:
        for statement in statements:
            print(f"\n{statement}")
            for (line,) in connection.execute(f"EXPLAIN (ANALYZE, BUFFERS) {statement}"):
                print(f"  {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8090)
    parser.add_argument("--explain", action="store_true")
    arguments = parser.parse_args()
    database_url = os.environ["DATABASE_URL"]
    base = f"http://127.0.0.1:{arguments.port}"
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SITE_URL": base,
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_HSTS_SECONDS": "0",
        "PUBLIC_READ_CACHE_SECONDS": "0",
    }
    server = gunicorn(
        "config.wsgi", port=arguments.port, workers=1, threads=1, environment=environment
    )
    try:
        wait_until_up(f"{base}/healthz")
        seconds, index = fetch(f"{base}/sitemap.xml")
        parts = [loc for loc in LOC.findall(index.decode()) if "sitemap-listings-" in loc]
        print(f"{'request':<32} {'seconds':>8} {'MB':>6} {'URLs':>7}")
        print(f"{'/sitemap.xml':<32} {seconds:8.2f} {len(index) / 1e6:6.2f} {len(parts) + 1:7}")
        chosen = dict.fromkeys([parts[0], parts[len(parts) // 2], parts[-1]])
        per_part = 0
        for part in chosen:
            seconds, body = fetch(part)
            urls = body.count(b"<url>")
            per_part = max(per_part, urls)
            path = part.removeprefix(base)
            print(f"{path:<32} {seconds:8.2f} {len(body) / 1e6:6.2f} {urls:7}")
    finally:
        stop(server)
    if arguments.explain:
        languages = max(1, per_part and round(50_000 / per_part))
        explain(database_url, 50_000 // languages, len(parts))


if __name__ == "__main__":
    sys.exit(main())
