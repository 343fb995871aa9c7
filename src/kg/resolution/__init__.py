"""Entity resolution: the profiles' references, downloaded records linked to them, and things described twice."""

from .duplicates import duplicate_errors, repeated_authors
from .linking import link
from .links import Conflict, KeptApart, Linking, record_works
from .names import initials_form, normalize_name, same_person_name
from .people import summary as kept_apart_summary
from .references import BuildWarning, Lookup, Resolution, resolve

__all__ = ["BuildWarning", "Conflict", "KeptApart", "Linking", "Lookup", "Resolution", "duplicate_errors",
           "initials_form", "kept_apart_summary", "link", "normalize_name", "record_works", "repeated_authors",
           "resolve", "same_person_name"]
