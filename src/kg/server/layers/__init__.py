"""The WSGI layers a request meets before Flask, outermost first: repeat-GET cache, Host check, gzip, query GETs."""
