"""Hostile downloaded records and `kg import` inputs (issue 28, item 5): each fails fast with exit 2 naming the place,
the limit and the setting, or (too many authors, repeated keys) builds with a warning; never a traceback."""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kg.records import parse_record

from .conftest import REPO_DATA
from .test_redteam_sources import Built, _snapshot, built

__all__ = ["built"]
TIMEOUT = 60
MEMORY_LIMIT_KB = 1024 * 1024  # 1 GB of peak resident memory
_REPORT_PEAK = ("import atexit, resource, runpy, sys; atexit.register(lambda: sys.stderr.write("
                "f'\\npeak-rss-kb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')); "
                "sys.argv = ['kg', *sys.argv[1:]]; runpy.run_module('kg', run_name='__main__')")


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 * 1024**3, 4 * 1024**3))


def kg(*args: str, **env: str) -> tuple[int, str, float]:
    """The real CLI in a subprocess: exit code, output, seconds; fails past 60 s or 1 GB of peak memory."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("KG_")} | env
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", _REPORT_PEAK, *args], capture_output=True, text=True,
                              timeout=TIMEOUT, preexec_fn=_cap_memory, env=environ, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"kg {' '.join(args)} ran past {TIMEOUT} s")
    seconds = time.perf_counter() - start
    out = done.stdout + done.stderr
    peak = re.search(r"peak-rss-kb=(\d+)", out)
    assert peak and int(peak.group(1)) < MEMORY_LIMIT_KB, out[-2000:]
    return done.returncode, out, seconds


def build(data: Path, store: Path, **env: str) -> tuple[int, str]:
    """kg build in a subprocess, checked for time, memory and tracebacks."""
    code, out, seconds = kg("build", "--data", str(data), "--store", str(store), **env)
    assert "Traceback" not in out, out[-3000:]
    assert seconds < TIMEOUT
    return code, out


def refused(built: Built, name: str, text: str, where: str, words: str, **env: str) -> str:
    """A record written to data/records/name stops kg build with exit 2 naming `where` and matching `words`;
    the previous store is untouched."""
    data, store, before = built
    (data / "records").mkdir(exist_ok=True)
    (data / "records" / name).write_text(text, encoding="utf-8")
    code, out = build(data, store, **env)
    assert code == 2, out[-3000:]
    assert where in out and re.search(words, out), out[-3000:]
    assert _snapshot(store) == before
    return out


def crossref(authors: list[dict[str, str]], year: str = "2020") -> str:
    """A Crossref work message with these authors."""
    work = {"DOI": "10.1234/hostile.1", "title": ["A Hostile Work"], "type": "journal-article",
            "issued": {"date-parts": [["YEAR"]]}, "author": authors}
    return json.dumps({"message-type": "work", "message": work}, indent=1).replace('"YEAR"', year)


def test_json_nested_a_million_deep_is_refused_with_its_path(built: Built) -> None:
    out = refused(built, "deep.json", "[" * 10**6 + "]" * 10**6, "records/deep.json:1: [0][0]",
                  r"JSON nested more than 64 levels deep")
    assert "RecursionError" not in out


def test_a_5001_digit_year_is_refused_with_its_line_and_path(built: Built) -> None:
    text = crossref([{"given": "Ada", "family": "Example"}], year="9" * 5001)
    line = text.splitlines().index(next(x for x in text.splitlines() if "99999" in x)) + 1
    refused(built, "year.json", text, f"records/year.json:{line}: message.issued.date-parts[0][0]",
            r"a number of 5,001 digits")


def test_a_15_megabyte_bibtex_title_is_refused(built: Built) -> None:
    text = "@article{big,\n  author = {Ada Example},\n  title = {" + "x" * 15_000_000 + "},\n  year = {2020}\n}\n"
    refused(built, "big.bib", text, "records/big.bib:3: @article{big}.title",
            r"15,000,000 characters, longer than the limit of 100,000.*KG_MAX_FIELD_CHARS")


def test_a_long_json_text_is_refused_and_the_limit_is_a_setting(built: Built) -> None:
    text = crossref([{"given": "Ada", "family": "E" * 5000}])
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "EEEE" in x)
    refused(built, "long.json", text, f"records/long.json:{line}: message.author[0].family",
            r"5,000 characters, longer than the limit of 4,000.*KG_MAX_FIELD_CHARS", KG_MAX_FIELD_CHARS="4000")


def test_deep_xml_is_refused_at_its_line(built: Built) -> None:
    text = "<dblpperson name='x'>\n" + "<r>\n" * 100_000 + "</r>" * 100_000 + "</dblpperson>\n"
    refused(built, "deep.xml", text, "records/deep.xml:65:", r"XML nested more than 64 levels deep")


def test_the_parse_deadline_is_a_setting(built: Built) -> None:
    people = [{"given": f"Given{i}", "family": "Example"} for i in range(50_000)]
    refused(built, "slow.json", crossref(people), "records/slow.json:",
            r"longer than the limit of 1e-06 seconds.*KG_MAX_PARSE_SECONDS", KG_MAX_PARSE_SECONDS="0.000001",
            KG_MAX_AUTHORS="100000")


def _builds_with_authors_cut(tmp_path: Path, name: str, text: str, where: str) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    (data / "records").mkdir(parents=True)
    (data / "records" / name).write_text(text, encoding="utf-8")
    code, out = build(data, store)
    assert code == 0, out[-3000:]
    assert re.search(rf"{re.escape(where)}.*100,000 authors, more than the limit of 1,000: the first 1,000 are kept"
                     r".*KG_MAX_AUTHORS", out), out[-3000:]


def test_a_crossref_work_with_100k_authors_builds_with_the_list_cut(tmp_path: Path) -> None:
    people = [{"given": f"Given{i}", "family": "Example", "ORCID": "https://orcid.org/0000-0002-1825-0097",
               "affiliation": [{"name": "Example Institute"}]} for i in range(100_000)]
    _builds_with_authors_cut(tmp_path, "many.json", crossref(people), "message.author: ")


def test_an_openalex_work_with_100k_authorships_builds_with_the_list_cut(tmp_path: Path) -> None:
    work = {"id": "https://openalex.org/W1", "title": "A Hostile Work", "publication_year": 2020,
            "authorships": [{"author": {"id": f"https://openalex.org/A{i}", "display_name": f"Person {i}"},
                             "raw_author_name": f"Person {i}", "institutions": [
                                 {"display_name": "Example Institute", "ror": "https://ror.org/02mhbdp94"}]}
                            for i in range(100_000)]}
    _builds_with_authors_cut(tmp_path, "many-openalex.json", json.dumps(work), "authorships: ")


def test_a_bibtex_entry_with_100k_authors_builds_with_the_list_cut(tmp_path: Path) -> None:
    names = " and ".join(f"Person{i} Example" for i in range(100_000))
    text = f"@article{{many,\n  author = {{{names}}},\n  title = {{A Hostile Work}},\n  year = {{2020}}\n}}\n"
    _builds_with_authors_cut(tmp_path, "many.bib", text, "@article{many}.author: ")


def test_repeated_json_keys_are_a_warning_naming_the_path(tmp_path: Path) -> None:
    data, store = tmp_path / "data", tmp_path / "store"
    (data / "records").mkdir(parents=True)
    text = crossref([{"given": "Ada", "family": "Example"}]).replace('"type":', '"title": ["Other"],\n  "type":')
    (data / "records" / "twice.json").write_text(text, encoding="utf-8")
    code, out = build(data, store)
    assert code == 0, out[-3000:]
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "Other" in x)
    assert re.search(rf"records/twice.json:{line}: .*the key message.title appears more than once", out), out


def test_repeated_keys_keep_the_last_value_as_json_does() -> None:
    text = crossref([{"given": "Ada", "family": "Example"}]).replace('"type":', '"title": ["Other"],\n  "type":')
    record = parse_record(text.encode(), "records/twice.json")
    assert record.works[0].title == "Other"
    assert "message.title appears more than once" in record.warnings[0].message


def test_a_record_within_the_bounds_reads_as_before() -> None:
    record = parse_record(crossref([{"given": "Ada", "family": "Example"}] * 3).encode(), "records/ok.json")
    assert len(record.works[0].authors) == 3 and record.works[0].authors_complete and not record.warnings


def _import(file: Path, *args: str, **env: str) -> tuple[int, str, float]:
    code, out, seconds = kg("import", str(file), "--data", str(REPO_DATA), *args, **env)
    assert "Traceback" not in out, out[-3000:]
    return code, out, seconds


def test_import_of_a_page_with_30000_list_items_is_quick(tmp_path: Path) -> None:
    items = "".join(f"<li>item {i} with some words</li>\n" for i in range(30_000))
    page = tmp_path / "list.html"
    page.write_text(f"<html><body><ul>{items}</ul></body></html>")
    code, out, seconds = _import(page, "--name", "Ada Example")
    assert code == 0, out[-2000:]
    assert seconds < 30, f"took {seconds:.1f} s"


def test_import_of_30000_citations_ends_within_the_parse_limit(tmp_path: Path) -> None:
    """A page that would take a minute to read is stopped at KG_MAX_PARSE_SECONDS with exit 2, nothing written."""
    items = "\n".join(f"<li>A. Author{i}, B. Writer{i % 97}. A study of thing number {i} in systems. In "
                      f"Proceedings of Conf {2000 + i % 25}, {2000 + i % 25}.</li>" for i in range(30_000))
    page = tmp_path / "citations.html"
    page.write_text(f"<html><body><h1>Ada Example</h1><h2>Publications</h2><ul>{items}</ul></body></html>")
    draft = tmp_path / "draft.yaml"
    code, out, seconds = _import(page, "-o", str(draft), KG_MAX_PARSE_SECONDS="10")
    assert code == 2, out[-2000:]
    assert f"{page}: reading this file took longer than the limit of 10 seconds" in out
    assert "KG_MAX_PARSE_SECONDS" in out and not draft.exists()
    assert seconds < 20, f"took {seconds:.1f} s"


@pytest.mark.parametrize("unit", ["(", "x", "a, ", " "], ids=["parens", "letters", "commas", "spaces"])
def test_import_of_a_single_4_8_megabyte_line_is_linear(tmp_path: Path, unit: str) -> None:
    page = tmp_path / "line.txt"
    page.write_text("Ada Example\n" + (unit * (4_800_000 // len(unit)))[:4_799_999] + "x\n", encoding="utf-8")
    code, out, seconds = _import(page)
    assert code == 0, out[-2000:]
    assert seconds < 30, f"took {seconds:.1f} s"


def test_import_of_bibtex_with_100k_authors_cuts_the_list(tmp_path: Path) -> None:
    names = " and ".join(f"Person{i} Example" for i in range(100_000))
    file = tmp_path / "many.bib"
    file.write_text(f"@article{{many,\n  author = {{{names}}},\n  title = {{A Work}},\n  year = {{2020}}\n}}\n")
    code, out, _ = _import(file, "--name", "Person0 Example")
    assert code == 0, out[-2000:]
    assert "# review: @article{many}.author: 100,000 authors, more than the limit of 1,000" in out


def test_import_of_bibtex_with_a_long_title_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "long.bib"
    file.write_text("@article{long,\n  author = {Ada Example},\n  title = {" + "x" * 4_000_000 + "},\n"
                    "  year = {2020}\n}\n")
    code, out, _ = _import(file)
    assert code == 2, out[-2000:]
    assert re.search(rf"{re.escape(str(file))}:3: @article{{long}}.title: a text of 4,000,000 characters.*"
                     r"KG_MAX_FIELD_CHARS", out), out[-2000:]
