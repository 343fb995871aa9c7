"""The prefixes the project binds in every serialisation and allows in every query (no RDF library needed)."""

from __future__ import annotations

ONTOLOGY_IRI = "https://kg.example.org/ontology"

PREFIXES: dict[str, str] = {
    "schema": "http://schema.org/",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "bibo": "http://purl.org/ontology/bibo/",
    "dcterms": "http://purl.org/dc/terms/",
    "prov": "http://www.w3.org/ns/prov#",
    "kg": ONTOLOGY_IRI + "#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "sh": "http://www.w3.org/ns/shacl#",
    "void": "http://rdfs.org/ns/void#",
}
