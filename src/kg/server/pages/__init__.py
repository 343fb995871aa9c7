"""The pages surface: linked-data pages and their RDF twins, search, citations, changes, explanations, downloads."""
