"""What kg build and kg serve print (issue 17, items 6 and 15): each warning beside its count; a busy port refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kg.config import PROJECT_ROOT

from .server_process import kg_serve_process

pytestmark = pytest.mark.real  # its tests start real processes (see tests/conftest.py)

PROFILE = """\
name: Ada Example
affiliation: Nordic Robotics Lab
publications:
  - title: Graph Sampling at Scale
    authors: [Ada Example, Bo Sample]
    year: 2020
"""
WARNINGS = ("profiles/ada-example.yaml:2: warning: affiliation: organisation 'Nordic Robotics Lab' is not in",
            "profiles/ada-example.yaml:4: warning: publications[0].venue (https://kg.example.org/id/work/"
            "graph-sampling-at-scale): bibo:presentedAt: This work has no venue")


def _data(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True)
    (data / "organizations.yaml").write_text("- id: acme\n  name: Acme Corporation\n", encoding="utf-8")
    (data / "profiles" / "ada-example.yaml").write_text(PROFILE, encoding="utf-8")
    return data


def _kg(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "kg", *args], capture_output=True, text=True, env=env,
                          timeout=timeout, check=False)


def test_kg_build_prints_each_warning_right_before_the_count(tmp_path: Path) -> None:
    data = _data(tmp_path)
    result = _kg("build", "--data", str(data), "--store", str(tmp_path / "store"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()  # the output alone, as when stderr goes elsewhere, says what the warnings are
    count = lines.index("violations: 0, warnings: 2")  # what changed since the last build follows it
    assert [line.startswith(f"{data}/{w}") for line, w in zip(lines[count - 2:count], WARNINGS, strict=True)] == [
        True, True]


def test_kg_validate_lists_the_source_data_warnings_kg_build_reports(tmp_path: Path) -> None:
    data = _data(tmp_path)
    result = _kg("validate", "--data", str(data))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{data}/{WARNINGS[0]}") and lines[1].startswith(f"{data}/{WARNINGS[1]}"), lines
    assert lines[-1] == "Source data: 1 warning (listed first), as kg build reports them."


def test_a_second_kg_serve_on_a_busy_port_says_so_before_serving(tmp_path: Path) -> None:
    data = _data(tmp_path)
    with kg_serve_process(data, tmp_path / "store") as (url, first):
        log = (tmp_path / f"serve-{url.rsplit(':', 1)[1]}.log").read_text(encoding="utf-8")
        assert all(f"{data}/{w}" in log for w in WARNINGS), log  # kg serve built the store and said what it warns
        port = url.rsplit(":", 1)[1]
        second = _kg("serve", "--data", str(data), "--store", str(tmp_path / "other-store"), "--host", "127.0.0.1",
                     "--port", port, timeout=60)
        assert first.poll() is None  # the first server is untouched
    assert second.returncode == 4, second.stderr
    assert second.stderr == (f"error: port {port} is in use on 127.0.0.1 (another kg serve, or another server); "
                             "stop it, or use --port to choose another port\n")
    assert "serving" not in second.stdout + second.stderr
    assert not (tmp_path / "other-store").exists()  # refused before building anything
