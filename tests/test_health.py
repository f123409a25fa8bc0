import pytest
from django.db import DatabaseError


@pytest.mark.django_db
def test_healthz_answers_200_when_the_database_answers(client):
    # when
    response = client.get("/healthz")

    # then
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "up"}
    assert "no-cache" in response["Cache-Control"]


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_fails(client, monkeypatch):
    # given a database that refuses every query
    from django.db.backends.utils import CursorWrapper

    def refuse(*args, **kwargs):
        raise DatabaseError("connection refused")

    monkeypatch.setattr(CursorWrapper, "execute", refuse)

    # when
    response = client.get("/healthz")

    # then
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "database": "down"}
    assert "connection refused" not in response.content.decode()
