"""The field model (kg.importers.pipeline.fields) on entries it was not trained on: the held-out labelled references
(split by the hash of the string), held-out harvested publications in CSL styles kept out of training, and in the
homepage layouts; floors at the figures measured on these sets with the shipped model, rounded down (about 30 s).
And the stage's typed result on entries written for this test."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from kg.config import PROJECT_ROOT
from kg.importers.pipeline.fields import MODEL, read_fields
from kg.importers.venues import Reference

from .shared import require_shared

FIGURES = ("token_f1", "title_f1", "authors_f1", "venue_f1", "year_f1", "exact_fields")
FLOORS = {  # measured with the shipped model on the sets below, rounded down
    "references": dict(zip(FIGURES, (0.92, 0.82, 0.87, 0.83, 0.99, 0.69), strict=True)),
    "csl_unseen_styles": dict(zip(FIGURES, (0.96, 0.70, 0.78, 0.78, 0.98, 0.55), strict=True)),
    "layouts": dict(zip(FIGURES, (0.97, 0.89, 0.88, 0.83, 0.99, 0.71), strict=True)),
}


@pytest.fixture(scope="module")
def scripts() -> Iterator[dict[str, ModuleType]]:
    """The training scripts as modules (they import each other by name from scripts/)."""
    sys.path.insert(0, str(PROJECT_ROOT / "scripts"))
    try:
        import field_data
        import field_eval
        import field_layouts
        import field_render

        yield {"data": field_data, "eval": field_eval, "render": field_render, "layouts": field_layouts}
    finally:
        sys.path.remove(str(PROJECT_ROOT / "scripts"))


@pytest.fixture(scope="module")
def ref() -> Reference:
    return Reference.load(PROJECT_ROOT / "data")


def test_model_ships_small() -> None:
    assert MODEL.exists() and MODEL.stat().st_size <= 8 * 1024 * 1024


def test_heldout_references(scripts: dict[str, ModuleType], ref: Reference) -> None:
    entries = [entry for split, entry in scripts["data"].references() if split == "heldout"]
    assert len(entries) > 2000
    figures = scripts["eval"].score(entries, ref).summary()
    for name, floor in FLOORS["references"].items():
        assert figures[name] >= floor, (name, figures)


def test_heldout_renderings(scripts: dict[str, ModuleType], ref: Reference) -> None:
    require_shared("import-exclusions.txt")
    render, layouts = scripts["render"], scripts["layouts"]
    pubs = render.harvested("heldout")
    rng = random.Random(7)
    styles = rng.sample([s for s in render.csl_styles() if render.style_split(s) == "heldout"], 10)
    sets = {"csl_unseen_styles": layouts.renderings(pubs, styles, 15, 0, 7),
            "layouts": [layouts.render_layout(rng.choice(pubs), rng) for _ in range(300)]}
    for name, entries in sets.items():
        assert len(entries) >= 100, name
        figures = scripts["eval"].score(entries, ref).summary()
        for field_name, floor in FLOORS[name].items():
            assert figures[field_name] >= floor, (name, field_name, figures)


def test_typed_result(ref: Reference) -> None:
    fields = read_fields(["Quiet Rivers: Sediment Transport in Braided Channels",
                          "Mira Okonkwo*, Tobias Lindgren*, and Hal Ferreira",
                          "Journal of Fluvial Studies, 2023", "[PDF] [Code]"], ref, {"mira okonkwo"})
    assert fields is not None
    assert fields.title == "Quiet Rivers: Sediment Transport in Braided Channels"
    assert [(a.name, a.marks) for a in fields.authors] == [("Mira Okonkwo", "*"), ("Tobias Lindgren", "*"),
                                                           ("Hal Ferreira", "")]
    assert fields.venue == "Journal of Fluvial Studies" and fields.year == 2023
    assert fields.links == ("PDF", "Code")
    pending = read_fields(["Okonkwo, M., & Lindgren, T. Sediment pulses after dam removal. (In prep.)"], ref, set())
    assert pending is not None and pending.status == "In prep." and pending.year is None
    assert [a.name for a in pending.authors] == ["M. Okonkwo", "T. Lindgren"]
