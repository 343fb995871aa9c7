"""A hello-world Flask app for the HTTP benchmark (benchmarks/http_bench.py): the ceiling for any Flask front end.

One route: every GET /sparql (any query, any Accept) answers the same tiny SPARQL JSON results body, with no
store, no parsing, no cache. http_bench.py serves it with granian and exactly kg serve's granian options
(kg.serving.server_arguments), so the gap between it and kg is what kg does per request, not the server.

    python -m granian --interface wsgi ... hello_app:app     (run from benchmarks/, or with it on PYTHONPATH)
"""

from __future__ import annotations

from flask import Flask, Response

app = Flask(__name__)

BODY = (b'{"head":{"vars":["p","email","job"]},"results":{"bindings":[{"p":{"type":"uri",'
        b'"value":"https://kg.example.org/id/person/ada-lovelace"}}]}}')


@app.get("/sparql")
def sparql() -> Response:
    """The same small answer to every query."""
    return Response(BODY, content_type="application/sparql-results+json")
