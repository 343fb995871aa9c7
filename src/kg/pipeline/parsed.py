"""Per-file cache of parsed profiles, so a rebuild reads and parses only the profile files that changed.

Each parsed profile is kept in its own pickle under ``<store parent>/cache/build/parsed``, named by a hash of the
code version (kg.mapping.cache.code_version), the file's path as displayed and the sha256 of its content: an
entry can only ever hold what parsing that exact text at that exact path gives, so it is never stale. A small
index records, per displayed path, the file's (size, mtime_ns, ctime_ns, inode) taken just before it was last read,
the sha256 of what was read and when. A file whose stat matches its record is not read at all; any other file is
read and hashed, and parsed only when no entry holds that content. A stat is trusted only when the file was last
changed well before that read (``RACY_NS``), so a write within the file system's timestamp granularity of the
read is always re-read. Files with errors are never cached: they are read and reported on every build.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic_files import write_atomically
from ..errors import SourceError, SourceErrors
from ..mapping.cache import code_version
from ..model import Corpus, Organization, Profile, Venue
from ..parsing import parse_organizations, parse_profile, parse_venues
from ..source_files import max_source_bytes
from ..sources import profile_files, read_reference, read_yaml

INDEX = "index.pkl"
RACY_NS = 2_000_000_000  # a file changed this close to its last read is read again (coarse file-system clocks)
StatKey = tuple[int, int, int, int]
Seen = tuple[StatKey, str, int]  # the stat before the read, the sha256 read, time.time_ns() after the read


@dataclass
class ParseStats:
    """What the cached parse did."""

    profiles: int = 0
    unread: int = 0  # skipped on a matching stat
    parsed: int = 0  # read and parsed (the rest were read, hashed and found cached)


@dataclass
class ParseCache:
    """Parsed profiles under one folder; None disables caching (every file is read and parsed)."""

    folder: Path | None
    index: dict[str, Seen] = field(default_factory=dict)
    seen: dict[str, Seen] = field(default_factory=dict)
    stats: ParseStats = field(default_factory=ParseStats)
    memory: dict[tuple[str, str], Profile] | None = None  # (display, sha256) -> profile: a resident builder's

    def __post_init__(self) -> None:
        if self.folder is None:
            return
        try:
            with open(self.folder / INDEX, "rb") as handle:
                version, index = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
            return
        if version == code_version() and isinstance(index, dict):
            self.index = index

    def _entry(self, display: str, sha256: str) -> Path | None:
        if self.folder is None:
            return None
        name = hashlib.sha256("\x00".join((code_version(), display, sha256)).encode()).hexdigest()
        return self.folder / f"{name}.pkl"

    def next_build(self) -> None:
        """Start another build with this cache (a resident builder): what the last one saw is the index now."""
        self.index.update(self.seen)
        self.seen, self.stats = {}, ParseStats()

    def _load(self, display: str, sha256: str) -> Profile | None:
        if self.memory is not None and (display, sha256) in self.memory:
            return self.memory[(display, sha256)]
        entry = self._entry(display, sha256)
        if entry is None:
            return None
        try:
            with open(entry, "rb") as handle:
                profile = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, ImportError):
            return None
        if not isinstance(profile, Profile) or profile.sha256 != sha256:
            return None
        if self.memory is not None:
            self.memory[(display, sha256)] = profile
        return profile

    @staticmethod
    def _trusted(info: os.stat_result, read_ns: int) -> bool:
        return info.st_mtime_ns + RACY_NS < read_ns and info.st_ctime_ns + RACY_NS < read_ns

    def profile(self, file: Path, display: str, limit: int) -> Profile | SourceError:
        """The parsed profile of a file, or parse_profile's error; raises read_yaml's errors (read, YAML syntax)."""
        self.stats.profiles += 1
        try:
            info: os.stat_result | None = os.stat(file)
        except OSError:
            info = None
        key: StatKey | None = None
        if info is not None and stat.S_ISREG(info.st_mode) and info.st_size <= limit:
            key = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
            known = self.index.get(display)
            if known is not None and known[0] == key and self._trusted(info, known[2]):
                cached = self._load(display, known[1])
                if cached is not None:
                    self.stats.unread += 1
                    self.seen[display] = known
                    return cached
        document = read_yaml(file, display, limit)
        read_ns = time.time_ns()
        profile = self._load(display, document.sha256)
        if profile is None:
            self.stats.parsed += 1
            try:
                profile = parse_profile(document)
            except SourceError as exc:
                return exc
            if self.memory is not None:
                self.memory[(display, document.sha256)] = profile
            entry = self._entry(display, document.sha256)
            if entry is not None:
                write_atomically(entry, pickle.dumps(profile, protocol=pickle.HIGHEST_PROTOCOL))
        if key is not None:
            self.seen[display] = (key, document.sha256, read_ns)  # the stat before the read: a later write re-reads
        return profile

    def save(self) -> None:
        """Record the stats of the files read and drop the entries no file holds now."""
        if self.memory is not None:
            held = {(display, sha) for display, (_, sha, _) in self.seen.items()}
            for gone in set(self.memory) - held:
                del self.memory[gone]
        if self.folder is None:
            return
        index = pickle.dumps((code_version(), self.seen), protocol=pickle.HIGHEST_PROTOCOL)
        write_atomically(self.folder / INDEX, index)
        kept = {self._entry(display, sha) for display, (_, sha, _) in self.seen.items()}
        for path in self.folder.glob("*.pkl"):
            if path.name != INDEX and path not in kept:
                path.unlink(missing_ok=True)


def read_corpus(root: Path, cache: ParseCache, max_bytes: int | None = None) -> tuple[Corpus, str]:
    """read_data_dir + parse_corpus with unchanged profiles cached (same result and errors); corpus, reference sha."""
    limit = max_source_bytes() if max_bytes is None else max_bytes
    documents = read_reference(root, limit)
    files = profile_files(root)
    parsed = [cache.profile(file, str(file), limit) for file in files]  # a read error stops here, as in kg.sources
    errors: list[SourceError] = []
    orgs: tuple[Organization, ...] = ()
    venues: tuple[Venue, ...] = ()
    try:
        orgs = parse_organizations(documents["organizations"])
    except SourceError as exc:
        errors.append(exc)
    try:
        venues = parse_venues(documents["venues"])
    except SourceError as exc:
        errors.append(exc)
    profiles = [p for p in parsed if isinstance(p, Profile)]
    errors += [p for p in parsed if isinstance(p, SourceError)]
    if errors:
        raise SourceErrors(errors)
    cache.save()
    digest = hashlib.sha256()
    for doc in (documents["organizations"], documents["venues"]):
        digest.update((doc.sha256 if doc else "").encode())
    return Corpus(orgs, venues, tuple(profiles), root=root), digest.hexdigest()
