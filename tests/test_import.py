"""kg import: input detection and errors, the forms it recognises, the YAML it writes, the CLI, kg build."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kg.config import PROJECT_ROOT, Config
from kg.errors import SourceError
from kg.importers import import_file
from kg.importers.command import import_command
from kg.importers.dates import find_duration, find_span
from kg.importers.detect import BIBTEX, HTML, TEXT, detect_kind
from kg.importers.names import split_authors
from kg.importers.prose import find_email, find_metrics
from kg.importers.venues import Reference
from kg.importers.writer import scalar
from kg.model import Profile, parse_profile
from kg.sources import parse_yaml

DATA = PROJECT_ROOT / "data"
CORPUS = Path(__file__).parent / "data" / "import_corpus"


def imported(tmp_path: Path, text: str, file: str = "page.txt", **kwargs: str) -> tuple[Profile, str]:
    """Import a text written to a temporary file; the profile and the YAML text."""
    path = tmp_path / file
    path.write_text(text, encoding="utf-8")
    result = import_file(path, data=DATA, **kwargs)
    return parse_profile(parse_yaml(result.yaml_text, Path(f"{result.profile_id}.yaml"))), result.yaml_text


PAGE = """Ada Example
阿达
Research Scientist, Microsoft Research Asia
ada [at] example [dot] org

Publications

2024
1. Fast Things: Doing It Quickly
   Ada Example*, Bo Li*, ..., Carl Dean
   21st USENIX Symposium on Networked Systems Design and Implementation (NSDI), 2024.
   Best Paper Award
2. Slow Things: A Survey
   Ada Example
   Preprint, 2024.

Hobbies
Climbing and tea.
"""


# input detection and bad input

@pytest.mark.parametrize(("name", "text", "kind"), [
    ("a.txt", "Ada Example\nResearcher", TEXT),
    ("a.bib", "@article{k, title={T}}", BIBTEX),
    ("a.txt", "% refs\n@inproceedings{k, title={T}}", BIBTEX),
    ("page", "<!DOCTYPE html><html><body><h1>Ada</h1></body></html>", HTML),
    ("a.html", "<div><p>Ada Example</p></div>", HTML),
])
def test_detects_the_input_kind_by_content_and_extension(name: str, text: str, kind: str) -> None:
    assert detect_kind(Path(name), text) == kind


@pytest.mark.parametrize(("content", "message"), [
    (b"", "empty"),
    (b"   \n\n", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
    ("Ada Example\nCaf\u00e9".encode("latin-1"), "not valid UTF-8"),
    (b"1234\n5678\n--\n", "no recognisable person"),
])
def test_bad_input_is_a_source_error_and_writes_nothing(tmp_path: Path, content: bytes, message: str) -> None:
    source, out = tmp_path / "in.txt", tmp_path / "out.yaml"
    source.write_bytes(content)
    with pytest.raises(SourceError, match=message) as caught:
        import_file(source, data=DATA)
    assert caught.value.location.path is not None
    result = CliRunner().invoke(import_command, [str(source), "-o", str(out), "--data", str(DATA)])
    assert result.exit_code == 2 and message in result.stderr
    assert not out.exists()


def test_non_utf8_error_names_the_line(tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_bytes(b"Ada Example\nline two\nbad \xff byte\n")
    with pytest.raises(SourceError) as caught:
        import_file(source, data=DATA)
    assert caught.value.location.line == 3


# recognised forms

@pytest.mark.parametrize(("text", "email", "obfuscated"), [
    ("ada@example.org", "ada@example.org", False),
    ("ada [at] cs [dot] example [dot] edu", "ada@cs.example.edu", True),
    ("ada (at) example (dot) org", "ada@example.org", True),
    ("ada AT example DOT org", "ada@example.org", True),
    ("Email: ada at example dot org", "ada@example.org", True),
    ("ada {at} example {dot} org", "ada@example.org", True),
])
def test_emails_including_obfuscated_forms(text: str, email: str, obfuscated: bool) -> None:
    assert find_email(text) == (email, obfuscated)


@pytest.mark.parametrize(("text", "start", "end", "is_open"), [
    ("2014 – 2019", 2014, 2019, False), ("2026 – Present", 2026, None, True), ("Jan 2021 - now", 2021, None, True),
    ("2024.06 – 2024.12", 2024, 2024, False), ("Summer 2012", 2012, 2012, False), ("06/2018 – 08/2019", 2018, 2019,
                                                                                     False)])
def test_year_ranges(text: str, start: int, end: int | None, is_open: bool) -> None:
    span = find_span(text)
    assert span is not None and (span.start, span.end, span.open) == (start, end, is_open)


def test_durations_as_written() -> None:
    assert find_duration("2013 – 2019 (5+ years)")[0] == "5+ years"


@pytest.mark.parametrize(("text", "authors"), [
    ("Ziheng Jiang*, Haibin Lin*, Cesar A. Stuardo", ["Ziheng Jiang*", "Haibin Lin*", "Cesar A. Stuardo"]),
    ("B Wan, G Liu, ..., Wencong Xiao, ...", ["B Wan", "G Liu", "...", "Wencong Xiao", "..."]),
    ("Xiao, Wencong; Li, Wei", ["Wencong Xiao", "Wei Li"]),
    ("Xiao, W., Li, W., & Zhou, L.", ["W. Xiao", "W. Li", "L. Zhou"]),
    ("A. Lee, B. Kim, and C. Park", ["A. Lee", "B. Kim", "C. Park"]),
    ("Ada Example (co-first author), Bo Li (co-first author)", ["Ada Example (co-first author)",
                                                                "Bo Li (co-first author)"]),
    ("Ada Example†, Bo Li et al.", ["Ada Example†", "Bo Li", "..."]),
])
def test_author_forms(text: str, authors: list[str]) -> None:
    assert split_authors(text) == authors


@pytest.mark.parametrize("title", ["Deep Learning for Graphs", "TVM: An Automated Compiler",
                                   "Learning to optimize tensor programs"])
def test_titles_are_not_author_lists(title: str) -> None:
    assert split_authors(title) is None


@pytest.mark.parametrize(("text", "venue", "year", "status"), [
    ("21st USENIX Symposium on Networked Systems Design and Implementation (NSDI), 2024.", "nsdi", 2024,
     "published"),
    ("SOSP 2025", "sosp", 2025, "published"), ("arXiv 2024", "arxiv", 2024, "preprint"),
    ("Preprint, 2024.", None, 2024, "preprint"), ("OSDI'24", "osdi", 2024, "published"),
    ("the Conference on Neural Information Processing Systems (NIPS), 2018.", "neurips", 2018, "published"),
    ("in Proc. USENIX OSDI, 2023.", "osdi", 2023, "published"), ("MobiCom 2025", None, 2025, "published"),
])
def test_venue_lines(text: str, venue: str | None, year: int, status: str) -> None:
    match = Reference.load(DATA).venue(text)
    assert (match.id, match.year, match.status) == (venue, year, status)


def test_metrics() -> None:
    found = find_metrics("35+ Publications · cited more than 4000 times · h-index 20")
    assert [(m.kind, m.min_value, m.value, m.as_written) for m in found] == [
        ("citations", 4000, None, "more than 4000"), ("publications", 35, None, "35+"),
        ("h-index", None, 20, "h-index 20")]


def test_a_page_imports_with_provenance_reviews_and_notes(tmp_path: Path) -> None:
    profile, text = imported(tmp_path, PAGE)
    assert profile.name == "Ada Example" and [(o.name, o.lang) for o in profile.other_names] == [("阿达", "zh")]
    assert (profile.title, profile.affiliation, profile.email) == ("Research Scientist", "microsoft-research-asia",
                                                                   "ada@example.org")
    first, second = profile.publications
    assert [a.written for a in first.authors] == ["Ada Example*", "Bo Li*", "...", "Carl Dean"]
    assert (first.venue, first.year, first.awards) == ("nsdi", 2024, ("Best Paper Award",))
    assert (second.venue, second.year, second.status) == (None, 2024, "preprint")
    assert "name: Ada Example  # line 1" in text
    assert "  # lines 9-12" in text
    assert "# review: decoded from the obfuscated form" in text
    assert "# unparsed (lines 17-18): Hobbies / Climbing and tea." in text


def test_prose_advisors_degrees_and_supervisors_lines(tmp_path: Path) -> None:
    page = ("Ada Example\n\nAbout\nShe received her Ph.D. from Beihang University, advised by Prof. Wei Li and "
            "Lidong Zhou (MSR).\n\nEducation\nDoctor of Philosophy in Computer Science\nBeihang University\n"
            "2014 – 2019\nDistributed Systems | Supervisors: Prof. Wei Li, Lidong Zhou (MSR)\n")
    profile, _ = imported(tmp_path, page)
    (degree,) = profile.education
    assert (degree.degree, degree.institution, degree.start, degree.end, degree.completed) == (
        "Ph.D.", "beihang-university", 2014, 2019, True)
    assert (degree.focus, degree.advisor_label) == ("Distributed Systems", "Supervisors")
    assert [(a.name, a.honorific, a.affiliation) for a in degree.advisors] == [
        ("Wei Li", "Prof.", None), ("Lidong Zhou", None, "microsoft-research")]


def test_unknown_organisation_is_kept_as_written_and_marked(tmp_path: Path) -> None:
    page = "Ada Example\n\nExperience\nResearch Scientist, Example Robotics Lab, 2020 – 2022\n"
    profile, text = imported(tmp_path, page)
    assert profile.experience[0].organizations == ("Example Robotics Lab",)
    assert "# review: unknown organisation 'Example Robotics Lab': add it to data/organizations.yaml" in text
    assert "kg build rejects unknown organisation references" in re.sub(r"\n\s*#\s+", " ", text)


def test_entries_without_a_year_are_left_out_as_notes(tmp_path: Path) -> None:
    page = "Ada Example\n\nPublications\n- Ada Example, Bo Li. A Paper Without a Date. Some Workshop.\n"
    profile, text = imported(tmp_path, page)
    assert profile.publications == ()
    assert "# left out (line 4):" in text and "kg build needs one" in text


def test_name_option_and_html_links(tmp_path: Path) -> None:
    html = ('<html><body><h1>Lab Homepage</h1><p>Ada Example, Research Scientist at ByteDance</p>'
            '<h2>Papers</h2><ul>'
            '<li>[SOSP 2025] Thing: A Study. Ada Example, Bo Li. <a href="https://x.org/p.pdf">[PDF]</a></li>'
            '</ul></body></html>')
    profile, _ = imported(tmp_path, html, "page.html", name="Ada Example")
    assert (profile.name, profile.title, profile.affiliation) == ("Ada Example", "Research Scientist", "bytedance")
    (pub,) = profile.publications
    assert (pub.venue, pub.year, pub.links[0].url) == ("sosp", 2025, "https://x.org/p.pdf")


def test_bibtex_person_guess_name_option_and_errors(tmp_path: Path) -> None:
    bib = "@inproceedings{a, title={One}, author={Lee, Ada and Kim, Bo}, booktitle={OSDI}, year={2020}}\n"
    profile, text = imported(tmp_path, bib * 1, "refs.bib", name="Bo Kim")
    assert profile.name == "Bo Kim" and profile.publications[0].authors[0].name == "Ada Lee"
    two = bib + "@article{b, title={Two}, author={Park, Cy and Choi, Di}, journal={J}, year={2021}}\n"
    with pytest.raises(SourceError, match="no recognisable person"):
        imported(tmp_path, two, "refs.bib")


@pytest.mark.parametrize("value", ["TuX²: Graphs", "2024", "yes", "a: b", "# x", "[x]", "Ziheng Jiang*", "…",
                                   "O'Neil, \"q\"", "present", "- item", "{a}", "tab\there"])
def test_scalars_read_back_unchanged(value: str) -> None:
    assert yaml.safe_load(f"k: {scalar(value)}") == {"k": value}
    assert yaml.safe_load(f"k: [{scalar(value, flow=True)}]") == {"k": [value]}


# the command and kg build

def test_command_prints_yaml_without_output_option() -> None:
    result = CliRunner().invoke(import_command, [str(CORPUS / "tomas-novak.txt"), "--data", str(DATA)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("# Imported by `kg import`") and "name: Tomáš Novák" in result.stdout
    assert "suggested file data/profiles/tomas-novak.yaml" in result.stderr


def test_imported_profile_builds(tmp_path: Path) -> None:
    from kg.pipeline import build

    data = tmp_path / "data"
    (data / "profiles").mkdir(parents=True)
    for name in ("organizations.yaml", "venues.yaml"):
        shutil.copy(DATA / name, data / name)
    out = data / "profiles" / "amelia-hartmann.yaml"
    result = CliRunner().invoke(import_command, [str(CORPUS / "amelia-hartmann.txt"), "-o", str(out),
                                                 "--data", str(data)])
    assert result.exit_code == 0, result.stderr
    assert "# review: unknown organisation" not in out.read_text(encoding="utf-8")
    built = build(Config(data=data, store=tmp_path / "store"))
    assert built.report.conforms and sum(built.triples.values()) > 0
