"""kg import over the test corpus: each input gives its expected YAML; the evaluation reaches the F1 floor."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from kg.config import PROJECT_ROOT
from kg.importers import import_file
from kg.model import Profile, parse_profile
from kg.sources import parse_yaml

CORPUS = Path(__file__).parent / "data" / "import_corpus"
DATA = PROJECT_ROOT / "data"
INPUTS = sorted(p for p in CORPUS.iterdir() if p.suffix in (".txt", ".html", ".bib"))


def _eval_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_eval", PROJECT_ROOT / "benchmarks" / "import_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _profile(text: str, stem: str) -> Profile:
    return parse_profile(parse_yaml(text, Path(f"{stem}.yaml")))


def facts(p: Profile) -> dict[str, object]:
    """What the corpus pins down exactly for each input."""
    return {
        "name": p.name, "email": p.email, "title": p.title, "affiliation": p.affiliation,
        "other_names": [(o.name, o.lang) for o in p.other_names],
        "metrics": [(m.kind, m.min_value, m.value) for m in p.metrics],
        "publications": [(x.title, [(a.name, a.equal_contribution, a.is_elision) for a in x.authors], x.venue,
                          x.year, x.status, x.awards, x.notes) for x in p.publications],
        "experience": [(e.role, e.organizations, e.start, e.end, e.current, e.duration_as_written)
                       for e in p.experience],
        "education": [(e.degree, e.institution, e.start, e.end, e.completed,
                       [(a.name, a.honorific, a.affiliation) for a in e.advisors]) for e in p.education],
        "links": [(link.label, link.url) for link in p.links],
    }


def test_corpus_has_the_required_inputs() -> None:
    suffixes = [p.suffix for p in INPUTS]
    assert len(INPUTS) >= 8 and ".bib" in suffixes and ".html" in suffixes
    assert all((CORPUS / f"{p.stem}.expected.yaml").exists() for p in INPUTS)


@pytest.mark.parametrize("source", INPUTS, ids=lambda p: p.name)
def test_import_gives_the_expected_profile(source: Path) -> None:
    result = import_file(source, data=DATA)
    imported = facts(_profile(result.yaml_text, source.stem))
    expected = facts(_profile((CORPUS / f"{source.stem}.expected.yaml").read_text(encoding="utf-8"), source.stem))
    for key, value in expected.items():
        if key == "links" and not value:
            continue
        assert imported[key] == value, key


def _row(markdown: str, field: str) -> list[float]:
    line = next(x for x in markdown.splitlines() if x.startswith(f"| {field} |"))
    return [float(cell) for cell in line.strip("|").split("|")[1:4]]


def test_evaluation_reaches_the_f1_floor(tmp_path: Path) -> None:
    out = tmp_path / "import_eval.md"
    assert _eval_module().main(["--corpus", str(CORPUS), "--data", str(DATA), "--out", str(out)]) == 0
    table = out.read_text(encoding="utf-8")
    assert _row(table, "publication title")[2] >= 0.9
    assert min(_row(table, f)[2] for f in ("authors in order", "venue", "year")) >= 0.9
