"""The floor every surface stands on: the store handle, caches by data version, offers, CORS, error pages."""
