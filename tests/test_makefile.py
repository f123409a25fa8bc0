"""The Makefile's `chromium` step, which `make test` runs first: Debian's chromium for the
browser tests, installed when missing by a user who may install packages.

The step is run for real by make, with a stand-in for apt-get that writes down how it was
called, and a chromium path chosen by the test.
"""

import gettext
import os
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

MAKEFILE_DIRECTORY = Path(settings.BASE_DIR)
# Any user without sudo rights: the one make runs as when the test asks for a non-root user.
NOBODY = 65534


def fake_apt_get(directory: Path) -> tuple[Path, Path]:
    """An apt-get that writes its environment's DEBIAN_FRONTEND and arguments to a file."""
    calls = directory / "calls"
    script = directory / "apt-get"
    script.write_text(f'#!/bin/sh\necho "$DEBIAN_FRONTEND $*" >> {calls}\n')
    script.chmod(0o755)
    return script, calls


def make_chromium(*, chromium: Path, apt_get: Path, as_nobody: bool = False):
    """Run `make chromium` as a user would from a shell, even when the suite itself runs under
    `make test`: the outer make's level and flags would otherwise change what make prints."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in {"MAKELEVEL", "MAKEFLAGS", "MFLAGS"}
    }
    command = ["make", "-s", "chromium", f"CHROMIUM={chromium}", f"APT_GET={apt_get}"]
    if as_nobody:
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]
    return subprocess.run(  # noqa: S603 (fixed arguments)
        command,
        cwd=MAKEFILE_DIRECTORY,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_present_chromium_installs_nothing(tmp_path):
    apt_get, calls = fake_apt_get(tmp_path)

    result = make_chromium(chromium=apt_get, apt_get=apt_get)

    assert result.returncode == 0
    assert result.stdout == ""
    assert not calls.exists()


def test_missing_chromium_is_installed_from_debian(tmp_path):
    apt_get, calls = fake_apt_get(tmp_path)
    if os.geteuid() != 0:
        pytest.skip("installs as root, as CI runs; other users are told what to run (next test)")

    result = make_chromium(chromium=tmp_path / "no-chromium", apt_get=apt_get)

    assert result.returncode == 0, result.stderr
    assert result.stdout == "Chromium is missing; installing Debian's package\n"
    assert calls.read_text().splitlines() == [
        "noninteractive update -q",
        "noninteractive install -y -q chromium",
    ]


def test_user_who_cannot_install_is_told_what_to_run(tmp_path):
    apt_get, calls = fake_apt_get(tmp_path)

    result = make_chromium(
        chromium=tmp_path / "no-chromium", apt_get=apt_get, as_nobody=os.geteuid() == 0
    )

    assert result.returncode != 0
    assert result.stdout == ""
    message = [line for line in result.stderr.splitlines() if not line.startswith("make:")]
    assert message == [
        f"{tmp_path / 'no-chromium'} is missing and this user cannot install it:"
        " run 'sudo apt-get install chromium', then make test again"
    ]
    assert not calls.exists()


def make_in_copy(project: Path, venv: Path, *targets: str, dry_run: bool = False):
    """Run make on a copy of the project's Makefile, with `venv` as its virtual environment."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in {"MAKELEVEL", "MAKEFLAGS", "MFLAGS"}
    }
    command = ["make", "-s", *(["-n"] if dry_run else []), *targets, f"VENV={venv}"]
    return subprocess.run(  # noqa: S603 (fixed arguments)
        command,
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def project_copy(tmp_path) -> tuple[Path, Path]:
    """The Makefile, the lock and the Spanish catalogs (the pages' and the scripts') in a
    folder of their own, beside a virtual environment that is already installed and whose
    pybabel is the real one."""
    project = tmp_path / "project"
    catalogs = [Path(f"locale/es/LC_MESSAGES/{domain}.po") for domain in ("django", "djangojs")]
    (project / catalogs[0].parent).mkdir(parents=True)
    for name in ("Makefile", "requirements.lock", *map(str, catalogs)):
        (project / name).write_bytes((MAKEFILE_DIRECTORY / name).read_bytes())
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "pybabel").symlink_to(Path(settings.BASE_DIR) / ".venv" / "bin" / "pybabel")
    # Newer than the lock: make takes the environment as installed.
    (venv / ".installed").touch()
    return project, venv


def test_messages_compiles_each_catalog_with_babel(project_copy):
    project, venv = project_copy
    compiled = project / "locale/es/LC_MESSAGES/django.mo"

    first = make_in_copy(project, venv, "messages")
    again = make_in_copy(project, venv, "messages")

    assert first.returncode == 0, first.stderr
    with compiled.open("rb") as catalog:
        spanish = gettext.GNUTranslations(catalog)
    assert spanish.gettext("Log in") == "Iniciar sesión"
    assert spanish.ngettext("%(total)s listing", "%(total)s listings", 2) == "%(total)s anuncios"
    with (project / "locale/es/LC_MESSAGES/djangojs.mo").open("rb") as catalog:
        scripts = gettext.GNUTranslations(catalog)
    assert scripts.gettext("Showing each listing.") == "Se muestra cada anuncio."
    # Compiled once: an unchanged catalog is not compiled again.
    assert (again.returncode, again.stdout) == (0, "")


def test_installing_compiles_the_catalogs(project_copy):
    project, venv = project_copy

    planned = make_in_copy(project, venv, "install", dry_run=True)

    assert planned.returncode == 0, planned.stderr
    assert sorted(planned.stdout.splitlines()) == [
        f"{venv}/bin/pybabel compile --statistics -i locale/es/LC_MESSAGES/{domain}.po"
        f" -o locale/es/LC_MESSAGES/{domain}.mo"
        for domain in ("django", "djangojs")
    ]
