"""Hostile source files (issue 12, item 10): YAML bombs, devices, FIFOs and oversized files fail fast with exit 2."""

from __future__ import annotations

import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kg.errors import SourceError
from kg.sources import parse_yaml

from .conftest import REPO_DATA
from .repo_data import copy_repo_data

MEMORY_CAP = 4 * 1024**3
TIMEOUT = 60
QUICK = 20.0  # seconds; a refused file is caught before any parsing, so this is mostly interpreter start-up
HOMEPAGE = Path(__file__).parent / "data" / "import_corpus" / "camille-dubois.html"
Built = tuple[Path, Path, tuple[str, dict[str, str]]]  # the `built` fixture: (data dir, store, snapshot of the store)


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def kg(*args: str, **env: str) -> tuple[int, str, float]:
    """Run the real CLI in a subprocess under a 4 GB address-space cap; exit code, stdout+stderr, seconds."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("KG_")} | env
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-m", "kg", *args], capture_output=True, text=True,
                              timeout=TIMEOUT, preexec_fn=_cap_memory, env=environ, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"kg {' '.join(args)} ran past {TIMEOUT} s")
    return done.returncode, done.stdout + done.stderr, time.perf_counter() - start


def _snapshot(store: Path) -> tuple[str, dict[str, str]]:
    """Where the store link points and a digest of every file of the version it points to."""
    target = store.resolve()
    return str(target), {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(target.iterdir())
                         if p.is_file() and p.name != "LOCK"}


@pytest.fixture()
def built(tmp_path: Path) -> Built:
    """A copy of the repository's data, built once with good data: (data dir, store, snapshot of the store)."""
    data, store = tmp_path / "data", tmp_path / "store"
    copy_repo_data(data)
    code, out, _ = kg("build", "--data", str(data), "--store", str(store))
    assert code == 0, out
    return data, store, _snapshot(store)


def assert_refused(built: Built, where: str, words: str, **env: str) -> str:
    """kg build exits 2 quickly naming `where`, without a traceback, and leaves the previous store as it was."""
    data, store, before = built
    code, out, seconds = kg("build", "--data", str(data), "--store", str(store), **env)
    assert code == 2, out[-3000:]
    assert where in out and re.search(words, out), out[-3000:]
    assert "Traceback" not in out
    assert seconds < QUICK, f"took {seconds:.1f} s"
    assert _snapshot(store) == before
    return out


def billion_laughs(levels: int = 9, width: int = 10) -> str:
    """A profile whose aliases expand to width**levels strings."""
    lines = ["name: Laughing Person", 'lol0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels + 1):
        lines.append(f"lol{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_profile_is_refused_at_its_first_anchor(built: Built) -> None:
    (built[0] / "profiles" / "laughs.yaml").write_text(billion_laughs(), encoding="utf-8")
    assert_refused(built, "profiles/laughs.yaml:2:", r"anchor &l0.*not allowed.*write the value out")


def test_recursive_alias_is_refused(built: Built) -> None:
    (built[0] / "profiles" / "loop.yaml").write_text("name: Loop Person\nsummary: hi\nsame_as: &a [*a]\n")
    assert_refused(built, "profiles/loop.yaml:3:", r"anchor &a.*not allowed")


def test_merge_key_alias_in_a_reference_file_is_refused(built: Built) -> None:
    orgs = built[0] / "organizations.yaml"
    orgs.write_text(orgs.read_text(encoding="utf-8") + "- id: extra-lab\n  <<: *base\n", encoding="utf-8")
    line = orgs.read_text(encoding="utf-8").count("\n")
    assert_refused(built, f"organizations.yaml:{line}:", r"alias \*base.*not allowed")


def test_deeply_nested_profile_is_refused(built: Built) -> None:
    depth = 200_000
    (built[0] / "profiles" / "deep.yaml").write_text("name: Deep\nsame_as: " + "[" * depth + "]" * depth + "\n")
    assert_refused(built, "profiles/deep.yaml:2:", r"nested more than \d+ levels")


def test_profile_symlinked_to_dev_zero_is_never_read(built: Built) -> None:
    (built[0] / "profiles" / "zero.yaml").symlink_to("/dev/zero")
    assert_refused(built, "profiles/zero.yaml", r"is not a regular file \(a device\)")


def test_fifo_profile_does_not_block(built: Built) -> None:
    os.mkfifo(built[0] / "profiles" / "pipe.yaml")
    assert_refused(built, "profiles/pipe.yaml", r"is not a regular file \(a FIFO\)")


def test_oversized_profile_is_refused_naming_size_and_limit(built: Built) -> None:
    big = built[0] / "profiles" / "big-person.yaml"
    big.write_text("name: Big Person\n" + ("# padding " + "x" * 89 + "\n") * 160_000, encoding="utf-8")
    out = assert_refused(built, "profiles/big-person.yaml", r"is 16,000,017 bytes.*limit of 16,000,000 bytes")
    assert "KG_MAX_SOURCE_BYTES" in out


def test_source_limit_is_set_by_environment(built: Built) -> None:
    profile = built[0] / "profiles" / "ziheng-jiang.yaml"
    limit = profile.stat().st_size - 1
    assert_refused(built, "profiles/ziheng-jiang.yaml", rf"limit of {limit:,} bytes.*KG_MAX_SOURCE_BYTES",
                   KG_MAX_SOURCE_BYTES=str(limit))


def test_symlink_to_a_regular_file_still_builds(tmp_path: Path) -> None:
    data = tmp_path / "data"
    copy_repo_data(data)
    outside = tmp_path / "kept-elsewhere.yaml"
    shutil.move(data / "profiles" / "ziheng-jiang.yaml", outside)
    (data / "profiles" / "ziheng-jiang.yaml").symlink_to(outside)
    code, out, _ = kg("build", "--data", str(data), "--store", str(tmp_path / "store"))
    assert code == 0 and "graph/profile/ziheng-jiang" in out, out[-3000:]


def large_homepage(megabytes: float) -> str:
    """The Camille Dubois homepage with its publication list repeated to about `megabytes` MB."""
    page = HOMEPAGE.read_text(encoding="utf-8")
    items = "".join(re.findall(r"<li><u>Camille Dubois</u>.*?</li>\n", page))
    head, marker, tail = page.partition('<ul class="wp-block-list pubs">\n')
    copies = max(1, int((megabytes * 1e6 - len(page)) // len(items)))
    return head + marker + items * copies + tail


def assert_import_refused(file: Path, words: str, **env: str) -> None:
    """kg import exits 2 quickly naming the file, without a traceback."""
    code, out, seconds = kg("import", str(file), "--data", str(REPO_DATA), **env)
    assert code == 2, out[-3000:]
    assert str(file) in out and re.search(words, out), out[-3000:]
    assert "Traceback" not in out and seconds < QUICK, f"{seconds:.1f} s"


def test_import_of_an_oversized_page_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "huge.html"
    page.write_text(large_homepage(6), encoding="utf-8")
    assert_import_refused(page, r"larger than the limit of 5,000,000 bytes.*KG_MAX_IMPORT_BYTES")


def test_import_limit_is_set_by_environment(tmp_path: Path) -> None:
    assert_import_refused(HOMEPAGE, r"limit of 1,000 bytes", KG_MAX_IMPORT_BYTES="1000")


def test_import_of_dev_zero_is_never_read(tmp_path: Path) -> None:
    link = tmp_path / "page.html"
    link.symlink_to("/dev/zero")
    assert_import_refused(link, r"is not a regular file \(a device\)")


@pytest.mark.parametrize(("text", "line", "words"), [
    ("name: A\nx: &anchor 1\n", 2, "anchor &anchor"),
    ("name: A\nother:\n  <<: *base\n", 3, r"alias \*base"),
    ("name: A\ny: [1, *up]\n", 2, r"alias \*up"),
    ("name: A\nyear: " + "9" * 5000 + "\n", 2, "cannot read this value"),
    ("name: !!python/name:os.system x\n", 1, "YAML value refused"),
], ids=["anchor", "merge-key", "alias", "huge-integer", "python-tag"])
def test_yaml_loader_refusals_name_file_and_line(text: str, line: int, words: str) -> None:
    with pytest.raises(SourceError) as caught:
        parse_yaml(text, Path("p.yaml"), "profiles/p.yaml")
    assert str(caught.value).startswith(f"profiles/p.yaml:{line}") and re.search(words, str(caught.value))


def test_yaml_without_anchors_still_parses() -> None:
    document = parse_yaml("name: Ziheng Jiang*\naffiliation: R&D *lab*\n", Path("p.yaml"))
    assert document.data == {"name": "Ziheng Jiang*", "affiliation": "R&D *lab*"}
