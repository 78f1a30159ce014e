import json

import pytest
import responses

from flask_app.app import app


@pytest.fixture
def client(tmp_path, monkeypatch):
    monkeypatch.setenv("NOTES_DIR", str(tmp_path))
    app.config["TESTING"] = True
    with app.test_client() as c:
        yield c


def test_health(client):
    assert client.get("/health").json["status"] == "ok"


@responses.activate
def test_invoices(client):
    responses.get("http://localhost:8081/v1/customers/42/invoices", json=[{"id": 1}])
    r = client.get("/invoices/42")
    assert json.loads(r.data) == [{"id": 1}]
