"""Unknown organisations in drafts: review-marked, listed on stderr, and the draft builds without hand edits."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kg.config import Config
from kg.importers.command import import_command
from kg.pipeline import build

from .repo_data import copy_repo_data

PAGE = """\
Ada Example
Postdoctoral Researcher, Department of Physics, University of Nowhere

Experience
Postdoctoral Researcher, Department of Physics, University of Nowhere, 2020 – 2022
Research Scientist, Example Robotics Lab, 2018 – 2020
Research Intern, ByteDance, 2016 – 2017
"""


def test_a_fresh_import_naming_unknown_organisations_builds_unchanged(tmp_path: Path) -> None:
    data = copy_repo_data(tmp_path / "data", edits=True)
    page = tmp_path / "ada.txt"
    page.write_text(PAGE, encoding="utf-8")
    out = data / "profiles" / "ada-example.yaml"
    result = CliRunner().invoke(import_command, [str(page), "-o", str(out), "--data", str(data)])
    assert result.exit_code == 0, result.stderr
    listed = result.stderr.split("organisations not in ", 1)[1].splitlines()[1:]
    assert listed == ["  University of Nowhere", "  Department of Physics, University of Nowhere",
                      "  Example Robotics Lab"]
    assert "kg build accepts it by name" in out.read_text(encoding="utf-8")
    built = build(Config(data=data, store=tmp_path / "store"))
    assert built.report.passes
    texts = [str(w) for w in built.warnings if "organisation '" in str(w)]
    named = {text.split("organisation '", 1)[1].split("'", 1)[0] for text in texts}
    assert named == {"University of Nowhere", "Department of Physics", "Example Robotics Lab"}
