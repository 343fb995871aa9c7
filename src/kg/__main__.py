"""`python -m kg` runs the command line."""

from .cli import main

main()
