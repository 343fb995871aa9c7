"""The importer as stages: page → lines or DOM blocks (page), lines → entries (segment), entries → fields."""
