"""WSGI entry point for gunicorn: the app configured from KG_* environment variables."""

from __future__ import annotations

from kg.config import Config
from kg.server import create_app
from kg.server.state import warm_up

app = create_app(Config.from_env())
warm_up(app)
