"""The importer as stages: page → lines or DOM blocks (page), lines → entries (segment), entries → fields
(fields), experience and education sections → careers (careers); each a module with a typed result."""
