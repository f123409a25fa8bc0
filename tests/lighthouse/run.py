"""Lighthouse scores of the website as production serves it: each at least 98, or it fails.

    python -m tests.lighthouse.run [--runs 3] [--minimum 98]   (make lighthouse)

The demo data set is seeded into a fresh SQLite database, its photos into a bucket of an
S3-compatible server (moto's server mode), as production keeps media on S3; static files
are collected (hashed names, gzip and Brotli copies) and the platform is served by gunicorn
with the production settings, WhiteNoise serving the static files and Redis holding the
cache. Lighthouse (the npm
package, package.json) then audits the home page, a search page and a listing page in
each language with Debian's chromium, in its default (mobile) configuration.

Each page is audited --runs times and each category's median score is the page's score:
Lighthouse's own guidance on variance, as timing on a shared machine moves from run to
run. The reports are kept under artifacts/lighthouse/ and the scores printed as a table
(also written to artifacts/lighthouse/scores.txt).
"""

import argparse
import json
import logging
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import boto3
import redis
from moto.server import ThreadedMotoServer

from bench.servers import gunicorn, stop, wait_until_up

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "lighthouse"
LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
# One renderer process: Lighthouse opens about:blank, then the page. With a process of its
# own, the page's renderer sometimes joined the trace a few hundred milliseconds late and its
# navigationStart was lost, Lighthouse's NO_NAVSTART (chromium 156: 1 run in 5 of the home
# page; none in 26 with the flag, the page loading in about:blank's process).
CHROMIUM_FLAGS = (
    "--headless=new --no-sandbox --disable-gpu --disable-background-networking "
    "--disable-component-update --disable-sync --no-first-run --disable-quic "
    "--renderer-process-limit=1"
)
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
LANGUAGES = ("en", "es")
BUCKET = "estate-lighthouse-media"
# Lighthouse's attempts at one run that it cannot finish (audit).
ATTEMPTS = 3


def log(message: str) -> None:
    print(f"[lighthouse] {message}", flush=True)


def final_url(url: str) -> str:
    """Where `url` leads once its redirects (a language, a listing's slug) are followed."""
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 (a local server)
        return response.url


def listing_path(base: str) -> str:
    """The page of the first public listing the API lists with photos, by its plain id URL."""
    with urllib.request.urlopen(f"{base}/api/v1/properties?limit=50", timeout=30) as response:  # noqa: S310
        listings = json.load(response)["properties"]
    for listing in listings:
        if listing["images"]:
            return f"listings/{listing['id']}/"
    return f"listings/{listings[0]['id']}/"


def pages(base: str) -> dict[str, str]:
    """The audited pages by name: home, search and listing, in every language."""
    listing = listing_path(base)
    found = {}
    for language in LANGUAGES:
        found[f"home-{language}"] = final_url(f"{base}/{language}/")
        found[f"search-{language}"] = final_url(
            f"{base}/{language}/?transactionType=SALE&type=apartment"
        )
        found[f"listing-{language}"] = final_url(f"{base}/{language}/{listing}")
    return found


def audit(name: str, url: str, run: int) -> dict[str, int]:
    """One Lighthouse run of `url`: its report saved, its category scores (0 to 100).

    A run Lighthouse itself could not finish (it exits non-zero, as with its "NO_NAVSTART:
    run Lighthouse again" when the trace of the load was not recorded) is run again, up to
    ATTEMPTS times; it gives no score, so a retry changes no score's bar."""
    report = ARTIFACTS / f"{name}-{run}.json"
    for attempt in range(1, ATTEMPTS + 1):
        finished = subprocess.run(  # noqa: S603 (the installed package, arguments of this script)
            [
                str(LIGHTHOUSE),
                url,
                "--quiet",
                "--output=json",
                f"--output-path={report}",
                f"--only-categories={','.join(CATEGORIES)}",
                f"--chrome-flags={CHROMIUM_FLAGS}",
            ],
            check=False,
            env={**os.environ, "CHROME_PATH": CHROMIUM},
            cwd=ROOT,
        )
        if finished.returncode == 0:
            break
        log(f"{name} run {run}: Lighthouse did not finish (attempt {attempt} of {ATTEMPTS})")
    else:
        raise SystemExit(f"Lighthouse could not audit {url} in {ATTEMPTS} attempts")
    categories = json.loads(report.read_text())["categories"]
    return {category: round(categories[category]["score"] * 100) for category in CATEGORIES}


def failed_audits(name: str, run: int) -> list[str]:
    """The audits below full marks in a report, for the log of a failing page."""
    report = json.loads((ARTIFACTS / f"{name}-{run}.json").read_text())
    return sorted(
        f"{identifier} ({audit['score']})"
        for identifier, audit in report["audits"].items()
        if audit.get("score") is not None
        and audit["score"] < 1
        and audit.get("scoreDisplayMode") in {"binary", "numeric", "metricSavings"}
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--minimum", type=int, default=98)
    parser.add_argument("--port", type=int, default=8730)
    arguments = parser.parse_args()
    if not LIGHTHOUSE.exists():
        raise SystemExit("Lighthouse is not installed: run `npm ci` (make lighthouse does)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    # moto's server logs every request it answers (thousands while the demo is seeded).
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    storage = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    storage.start()
    host, port = storage.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    keys = {"aws_access_key_id": "lighthouse", "aws_secret_access_key": "lighthouse"}
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", **keys).create_bucket(
        Bucket=BUCKET
    )
    work = Path(tempfile.mkdtemp(prefix="estate-lighthouse-"))
    # The cache is shared by the web processes, as in production (Redis): Lighthouse's page
    # may come from another process than the one the run's first requests warmed.
    redis_url = os.environ.get("LIGHTHOUSE_REDIS_URL", "redis://127.0.0.1:6379/7")
    redis.Redis.from_url(redis_url).flushdb()
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "false",
        "SITE_URL": f"http://127.0.0.1:{arguments.port}",
        "STATIC_ROOT": str(work / "static"),
        "REDIS_URL": redis_url,
        "AWS_STORAGE_BUCKET_NAME": BUCKET,
        "AWS_S3_ENDPOINT_URL": endpoint,
        "AWS_S3_REGION_NAME": "us-east-1",
        "AWS_ACCESS_KEY_ID": keys["aws_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": keys["aws_secret_access_key"],
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    for command in (["migrate", "-v", "0"], ["seed_demo"], ["collectstatic", "--noinput"]):
        subprocess.run(  # noqa: S603 (this interpreter, fixed commands)
            [*manage, *command], check=True, env=environment, cwd=ROOT, stdout=subprocess.DEVNULL
        )

    server = gunicorn(
        "config.wsgi", port=arguments.port, workers=2, threads=4, environment=environment
    )
    base = f"http://127.0.0.1:{arguments.port}"
    rows = []
    failures = []
    try:
        wait_until_up(f"{base}/healthz")
        for name, url in pages(base).items():
            log(f"{name}: {url}")
            runs = [audit(name, url, run) for run in range(1, arguments.runs + 1)]
            scores = {
                category: statistics.median_low(run[category] for run in runs)
                for category in CATEGORIES
            }
            rows.append((name, url, scores, runs))
            low = [category for category, score in scores.items() if score < arguments.minimum]
            if low:
                failures.append(name)
                below = ", ".join(failed_audits(name, 1))
                log(f"{name} below {arguments.minimum} in {', '.join(low)}; audits: {below}")
    finally:
        stop(server)
        storage.stop()

    path_of = re.compile(r"^https?://[^/]+")
    lines = [
        f"Lighthouse {lighthouse_version()} (mobile, median of {arguments.runs}), production "
        f"settings under gunicorn; minimum {arguments.minimum}",
        "| page | " + " | ".join(CATEGORIES) + " | runs |",
        "|---|" + "---:|" * len(CATEGORIES) + "---|",
    ]
    for name, url, scores, runs in rows:
        every = "; ".join("/".join(str(run[category]) for category in CATEGORIES) for run in runs)
        lines.append(
            f"| {name} `{path_of.sub('', url)}` | "
            + " | ".join(str(scores[category]) for category in CATEGORIES)
            + f" | {every} |"
        )
    table = "\n".join(lines)
    (ARTIFACTS / "scores.txt").write_text(table + "\n")
    print(table)
    if failures:
        log(f"FAILED: {', '.join(failures)} below {arguments.minimum}")
        return 1
    log("every page scores at least the minimum in every category")
    return 0


def lighthouse_version() -> str:
    """The version of the Lighthouse package that audited."""
    package = ROOT / "node_modules" / "lighthouse" / "package.json"
    return json.loads(package.read_text())["version"]


if __name__ == "__main__":
    sys.exit(main())
