"""WSGI entry point for granian (`kg serve` runs kg.server.wsgi:app): the app configured from KG_* variables."""

from __future__ import annotations

from ..config import Config
from . import create_app
from .floor.handle import warm_up

app = create_app(Config.from_env())
warm_up(app)
