"""The SPARQL surface: the /sparql endpoint (queries, updates), the Graph Store Protocol, the query page."""
