"""WSGI entry point for gunicorn: the app configured from KG_* environment variables."""

from __future__ import annotations

from kg.config import Config
from kg.server import create_app

app = create_app(Config.from_env())
