"""The query package."""
