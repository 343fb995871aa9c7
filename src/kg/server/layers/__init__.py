"""The WSGI layers a request meets before Flask: Host check, repeat-GET cache, gzip, plain query GETs; log escaping."""
