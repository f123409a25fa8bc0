"""`manage.py changepassword` sets the password through the accounts service: the user's
API tokens are revoked, as every other way of changing a password revokes them."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import AccessToken
from accounts.services import access_token_issue
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a-brand-new-passphrase"


@pytest.fixture
def typed(monkeypatch):
    """Answer the command's password prompts with these texts, in order."""

    def answer(*texts: str) -> None:
        answers = iter(texts)
        monkeypatch.setattr("getpass.getpass", lambda prompt="": next(answers))

    return answer


def test_the_command_changes_the_password_and_revokes_the_tokens(typed, capsys):
    user = UserFactory(email="rosa@example.com")
    access_token_issue(user=user)
    access_token_issue(user=user)
    typed(NEW_PASSWORD, NEW_PASSWORD)

    call_command("changepassword", "Rosa@example.com")

    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    assert not AccessToken.objects.filter(user=user).exists()
    assert "Password changed successfully for user 'rosa@example.com'" in capsys.readouterr().out


def test_a_refused_password_changes_nothing(typed):
    user = UserFactory(email="rosa@example.com")
    access_token_issue(user=user)
    stored = user.password
    typed("12345678", "12345678", "short", "short", "x", "y")

    with pytest.raises(CommandError, match="after 3 attempts"):
        call_command("changepassword", "rosa@example.com")

    user.refresh_from_db()
    assert user.password == stored
    assert AccessToken.objects.filter(user=user).count() == 1
