"""Small Flask service: health check, a notes API and a proxy to the billing API."""
import json
import logging
import os
from pathlib import Path

import requests
from flask import Flask, jsonify, request

from config import Settings

log = logging.getLogger(__name__)
app = Flask(__name__)
settings = Settings.from_env()

DATA_DIR = Path(os.environ.get("NOTES_DIR", Path(os.environ["HOME"]) / ".local/share/notes"))
DATA_DIR.mkdir(parents=True, exist_ok=True)


@app.get("/health")
def health():
    return jsonify(status="ok", version=settings.version)


@app.post("/notes")
def create_note():
    note = request.get_json(force=True)
    path = DATA_DIR / f"{note['id']}.json"
    path.write_text(json.dumps(note))
    return jsonify(saved=str(path)), 201


@app.get("/invoices/<customer_id>")
def invoices(customer_id):
    resp = requests.get(
        f"{settings.billing_url}/v1/customers/{customer_id}/invoices",
        headers={"Authorization": f"Bearer {settings.billing_token}"},
        timeout=10,
    )
    resp.raise_for_status()
    return jsonify(resp.json())


@app.post("/invoices/<customer_id>/pdf")
def upload_invoice(customer_id):
    pdf = request.files["file"]
    resp = requests.post(
        f"{settings.billing_url}/v1/customers/{customer_id}/documents",
        files={"file": (pdf.filename, pdf.stream, "application/pdf")},
        timeout=30,
    )
    return jsonify(resp.json()), resp.status_code


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "5000")), debug=settings.debug)
