"""The importer as stages over a page's lines, each a module with a typed result."""
