"""The importer as stages: an entry's lines to typed fields (`fields`), each stage a module with a typed result."""
