"""Record people by name, after the identifiers: one person per name as written, the profiles' people first.

A record author is the profiles' person when named as the profiles name or pin them (`same_as`), and one name
written the same way (after normalisation) is one person across the records, unless identifiers (ORCID, dblp pid,
Wikidata) differ, the two are authors of one work, or the name belongs to several people with different
identifiers. People kept apart, and record people whose name only resembles a profile person's (initials, another
middle name), are linked by kg:possibleSameAs and listed as KeptApart.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ..iris import ascii_folded
from ..model import ExternalId
from .links import KeptApart, Key
from .names import normalize_name
from .union_find import UnionFind

STRONG = ("orcid", "dblp", "wikidata")  # two different values of one of these are two people
WEAKER = "a weaker name match"
CONFLICTING = "conflicting identifiers"
AMBIGUOUS = "a name several people with different identifiers share"
ONE_WORK = "two authors of one work"


def summary(kept: list[KeptApart]) -> str:
    """The build's one line about record people kept apart, or '' when there are none."""
    if not kept:
        return ""
    reasons = ", ".join(f"{n} {reason}" for reason, n in Counter(k.reason for k in kept).most_common())
    return (f"record people kept apart: {len(kept)} ({reasons}); each is linked to whom they may be by "
            "kg:possibleSameAs; kg conflicts lists them")


def _tokens(name: str) -> list[str]:
    return normalize_name(ascii_folded(name).replace("-", " ")).split()


def weaker_match(a: str, b: str) -> bool:
    """Whether two different names share a family name and a first name or its initial ('H. Zhao', 'Hanyu Zhao')."""
    ta, tb = _tokens(a), _tokens(b)
    if len(ta) < 2 or len(tb) < 2 or ta[-1] != tb[-1] or normalize_name(a) == normalize_name(b):
        return False
    fa, fb = ta[0], tb[0]
    return fa == fb or (len(fa) == 1 and fb.startswith(fa)) or (len(fb) == 1 and fa.startswith(fb))


@dataclass
class _Cluster:
    """People found to be one so far, for one name: their strong identifiers, works and profile person."""

    root: Key
    ids: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    works: set[Key] = field(default_factory=set)
    curated: set[str] = field(default_factory=set)

    def fits(self, other: _Cluster) -> bool:
        """Whether two clusters can be one person: no differing identifiers, no shared work, one profile person."""
        return (not any(self.ids[s] and other.ids[s] and not self.ids[s] & other.ids[s] for s in STRONG)
                and not self.works & other.works and len(self.curated | other.curated) <= 1)

    def take(self, other: _Cluster) -> None:
        """Absorb another cluster's facts."""
        for scheme, values in other.ids.items():
            self.ids[scheme] |= values
        self.works |= other.works
        self.curated |= other.curated


@dataclass
class NameMerger:
    """Merges record people by name into the profiles' people and each other (see the module docstring)."""

    people: UnionFind
    works: UnionFind
    names: dict[Key, str]
    ids_of: dict[Key, list[ExternalId]]
    work_of: dict[Key, list[Key]]
    curated: dict[str, str]  # normalised name (as the profiles write or pin it) -> profile person slug
    curated_names: dict[str, str]  # profile person slug -> name
    reasons: dict[Key, str] = field(default_factory=dict)

    def _cluster(self, root: Key) -> _Cluster:
        cluster = _Cluster(root)
        for member in self.people.members(root):
            for ident in self.ids_of.get(member, ()):
                if ident.scheme in STRONG:
                    cluster.ids[ident.scheme].add(ident.value)
            cluster.works |= {self.works.find(w) for w in self.work_of.get(member, ())}
            if member[0] == "curated":
                cluster.curated.add(str(member[1]))
        return cluster

    def run(self) -> dict[Key, str]:
        """Merge; return why each group (by one member) that shares a name with another stayed apart."""
        by_name: dict[str, set[Key]] = defaultdict(set)
        for key, name in self.names.items():
            if key[0] != "curated" and name and (normalized := normalize_name(name)):
                by_name[normalized].add(key)
        for name in sorted(by_name):
            keys = sorted(by_name[name], key=str)
            slug = self.curated.get(name)
            if slug is not None:
                curated: Key = ("curated", slug)
                if curated not in self.people.parent:
                    self.people.add(curated)
                    self.names[curated] = self.curated_names.get(slug, name)
                keys.insert(0, curated)
            roots = list(dict.fromkeys(self.people.find(k) for k in keys))
            if len(roots) > 1:
                self._merge(roots)
        return self.reasons

    def _merge(self, roots: list[Key]) -> None:
        candidates = [self._cluster(r) for r in roots]
        named = [c for c in candidates if c.curated or any(c.ids.values())]
        bare = [c for c in candidates if not (c.curated or any(c.ids.values()))]
        clusters: list[_Cluster] = []
        for cand in named + bare:
            fitting = [c for c in clusters if c.fits(cand)]
            chosen = self._choose(cand, fitting)
            if chosen is not None:
                self.people.union(chosen.root, cand.root)
                chosen.take(cand)
                continue
            if clusters:
                if fitting:
                    reason = AMBIGUOUS
                elif all(c.works & cand.works for c in clusters):
                    reason = ONE_WORK
                else:
                    reason = CONFLICTING
                for cluster in [cand] + ([] if fitting else clusters):
                    self.reasons.setdefault(cluster.root, reason)
            clusters.append(cand)

    @staticmethod
    def _choose(cand: _Cluster, fitting: list[_Cluster]) -> _Cluster | None:
        """The cluster a candidate joins: the one it fits; without identifiers, the profile's, else an id-less one."""
        if any(cand.ids.values()):
            return fitting[0] if len(fitting) == 1 else None
        profile = [c for c in fitting if c.curated]
        loose = [c for c in fitting if not (c.curated or any(c.ids.values()))]
        if profile or loose:
            return (profile or loose)[0]
        return fitting[0] if len(fitting) == 1 else None


def possible_people(shown: dict[str, str], ids: dict[str, list[ExternalId]], curated: dict[str, str],
                    curated_names: dict[str, str], reasons: dict[str, str],
                    files: dict[str, tuple[str, ...]]) -> tuple[dict[str, tuple[str, ...]], list[KeptApart]]:
    """Whom each record-minted person may be (the same name kept apart, else a profile person's weaker match)."""
    same: dict[str, list[str]] = defaultdict(list)
    for slug, name in shown.items():
        same[normalize_name(name)].append(slug)
    buckets: dict[tuple[str, str], list[str]] = defaultdict(list)
    for slug, name in curated_names.items():
        tokens = _tokens(name)
        if len(tokens) >= 2:
            buckets[(tokens[-1], tokens[0][0])].append(slug)
    links: dict[str, tuple[str, ...]] = {}
    kept: list[KeptApart] = []
    for slug, name in sorted(shown.items()):
        key, tokens = normalize_name(name), _tokens(name)
        others = sorted(set(same[key]) - {slug}) + ([curated[key]] if key in curated else [])
        reason = reasons.get(slug, CONFLICTING)
        if not others and len(tokens) >= 2:
            others = sorted(c for c in buckets.get((tokens[-1], tokens[0][0]), ())
                            if weaker_match(name, curated_names[c]) and _compatible(ids.get(slug, []), ids.get(c, [])))
            reason = WEAKER
        if others:
            links[slug] = tuple(others)
            kept.append(KeptApart(slug, name, files.get(slug, ()), tuple(others), reason))
    return links, kept


def _compatible(a: list[ExternalId], b: list[ExternalId]) -> bool:
    return not any({i.value for i in a if i.scheme == s} and {i.value for i in b if i.scheme == s} and
                   not {i.value for i in a if i.scheme == s} & {i.value for i in b if i.scheme == s} for s in STRONG)
