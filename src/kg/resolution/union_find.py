"""Union-find over entity keys: the sets of record and profile entities found to be one node."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from .links import Key


@dataclass
class UnionFind:
    """Union-find over entity keys, remembering the order keys were first seen."""

    parent: dict[Key, Key] = field(default_factory=dict)
    seen: dict[Key, int] = field(default_factory=dict)
    sets: dict[Key, list[Key]] = field(default_factory=dict)

    def add(self, key: Key) -> None:
        """Make a key known."""
        if key not in self.parent:
            self.parent[key], self.seen[key], self.sets[key] = key, len(self.seen), [key]

    def find(self, key: Key) -> Key:
        """The representative of a key's set."""
        self.add(key)
        root = key
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[key] != root:
            self.parent[key], key = root, self.parent[key]
        return root

    def union(self, a: Key, b: Key) -> None:
        """Merge two keys' sets (the earlier-seen representative stays)."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            first, second = (ra, rb) if self.seen[ra] <= self.seen[rb] else (rb, ra)
            self.parent[second] = first
            self.sets[first] += self.sets.pop(second)

    def members(self, key: Key) -> list[Key]:
        """The keys in a key's set."""
        return self.sets[self.find(key)]

    def groups(self) -> dict[Key, list[Key]]:
        """Members of each set by representative, in first-seen order."""
        out: dict[Key, list[Key]] = defaultdict(list)
        for key in self.parent:
            out[self.find(key)].append(key)
        return out

