"""Deterministic generator of synthetic researcher profiles in kg's own YAML format.

    python benchmarks/generate.py --triples 100000 --out /tmp/kg-100k

writes DIR/organizations.yaml, DIR/venues.yaml and DIR/profiles/*.yaml that `kg build --data DIR`
takes. The same arguments always give the same files. The triple count is approximate (about
±10 %); `kg build` prints the exact count.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import yaml

GIVEN = ["Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Frances", "John", "Leslie", "Radia", "Shafi",
         "Silvio", "Tim", "Vint", "Whitfield", "Yann", "Fei", "Jeff", "Sanjay", "Ion", "Matei", "Michael", "Jennifer",
         "Daphne", "Andrew", "Judea", "Geoffrey", "Yoshua", "Li", "Wei", "Xin", "Hao", "Ming", "Jun", "Yan", "Lei",
         "Priya", "Arjun", "Ananya", "Ravi", "Sofia", "Lucas", "Emma", "Noah", "Olivia", "Liam", "Mia", "Elena"]
FAMILY = ["Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Allen", "McCarthy", "Lamport", "Perlman",
          "Goldwasser", "Micali", "Berners-Lee", "Cerf", "Diffie", "LeCun", "Dean", "Ghemawat", "Stoica", "Zaharia",
          "Jordan", "Widom", "Koller", "Ng", "Pearl", "Hinton", "Bengio", "Chen", "Wang", "Zhang", "Liu", "Li",
          "Zhao", "Sun", "Patel", "Sharma", "Iyer", "Rossi", "Silva", "Müller", "Novak", "Kowalski", "Kim", "Park"]
TOPICS = ["distributed systems", "machine learning systems", "databases", "compilers", "networking",
          "operating systems", "security", "graph processing", "GPU scheduling", "storage", "program analysis"]
WORDS = ["Scalable", "Efficient", "Robust", "Adaptive", "Learned", "Distributed", "Elastic", "Secure", "Fast",
         "Incremental", "Serverless", "Federated", "Sparse", "Streaming", "Verified", "Approximate"]
NOUNS = ["Scheduling", "Caching", "Training", "Inference", "Query Processing", "Replication", "Compilation",
         "Indexing", "Consensus", "Checkpointing", "Partitioning", "Load Balancing", "Garbage Collection"]
CONTEXTS = ["for Large Language Models", "on GPU Clusters", "in the Cloud", "at Datacenter Scale",
            "for Graph Workloads", "with Disaggregated Memory", "on Edge Devices", "for Key-Value Stores"]
TRIPLES_PER_AUTHOR = 12
TRIPLES_PER_PUBLICATION = 16
TRIPLES_PER_PROFILE_BASE = 60


def organizations(rng: random.Random, count: int) -> list[dict]:
    """Universities with departments and labs, companies with research groups."""
    orgs: list[dict] = []
    for i in range(count):
        root = {"id": f"org-{i}", "name": f"{rng.choice(FAMILY)} {'University' if i % 2 == 0 else 'Labs'} {i}",
                "type": "university" if i % 2 == 0 else "company", "aliases": [f"O{i}"]}
        orgs.append(root)
        for j in range(2):
            orgs.append({"id": f"org-{i}-{j}", "name": f"{root['name']} Group {j}",
                         "type": "department" if i % 2 == 0 else "research-lab", "parent": root["id"]})
    return orgs


def venues(count: int) -> list[dict]:
    """Conference series plus one preprint repository."""
    listed = [{"id": f"conf-{i}", "name": f"Symposium on Synthetic Systems {i}", "acronym": f"SSS{i}",
               "type": "conference"} for i in range(count)]
    return listed + [{"id": "preprints", "name": "Synthetic Preprint Archive", "type": "repository"}]


def person_name(index: int) -> str:
    """A deterministic, mostly unique full name for an index."""
    given, family = GIVEN[index % len(GIVEN)], FAMILY[(index // len(GIVEN)) % len(FAMILY)]
    suffix = index // (len(GIVEN) * len(FAMILY))
    return f"{given} {family}" + (f" {chr(ord('A') + suffix % 26)}{suffix // 26 or ''}" if suffix else "")


def profile(rng: random.Random, index: int, owners: int, org_ids: list[str], venue_ids: list[str],
            pubs: int, authors: int) -> dict:
    """One synthetic profile whose co-authors are drawn from a shared pool (so identities recur)."""
    name = person_name(index)
    pool = max(owners * 8, 50)
    publications = []
    for p in range(pubs):
        year = rng.randint(2005, 2025)
        others = [person_name(rng.randrange(pool)) for _ in range(authors - 1)]
        names = list(dict.fromkeys(others))
        names.insert(rng.randrange(len(names) + 1), name)
        marked = [n + "*" if k < 2 and rng.random() < 0.1 else n for k, n in enumerate(names)]
        venue = rng.choice(venue_ids)
        title = f"{rng.choice(WORDS)} {rng.choice(NOUNS)} {rng.choice(CONTEXTS)} ({index}-{p})"
        entry: dict = {"title": title, "authors": marked, "venue": venue, "venue_as_written": f"{venue} {year}",
                       "year": year, "status": "preprint" if venue == "preprints" else "published"}
        if rng.random() < 0.05:
            entry["awards"] = ["Best Paper Award"]
        publications.append(entry)
    start = rng.randint(2000, 2015)
    advisor = person_name((index * 7 + 3) % max(owners, 1))
    return {
        "name": name, "title": "Research Scientist", "affiliation": rng.choice(org_ids),
        "email": f"p{index}@example.org", "research_areas": rng.sample(TOPICS, 3),
        "experience": [{"role": "Research Scientist", "organizations": [rng.choice(org_ids)], "start": start + 6,
                        "end": "present"},
                       {"role": "Intern", "organizations": [rng.choice(org_ids)], "start": start, "end": start + 2}],
        "education": [{"degree": "Ph.D.", "field": rng.choice(TOPICS), "institution": rng.choice(org_ids),
                       "start": start, "end": start + 5, "completed": True,
                       "advisors": [{"name": advisor}] if advisor != name else []}],
        "metrics": [{"kind": "citations", "min_value": rng.randint(10, 5000)}],
        "publications": publications,
    }


def generate(triples: int, out: Path, seed: int = 7) -> int:
    """Write a data folder of about `triples` triples; returns the number of profiles."""
    rng = random.Random(seed)
    pubs, authors = 20, 6
    per_profile = TRIPLES_PER_PROFILE_BASE + pubs * (TRIPLES_PER_PUBLICATION + authors * TRIPLES_PER_AUTHOR)
    owners = max(1, round(triples / per_profile))
    orgs = organizations(rng, max(2, owners // 10))
    org_ids = [o["id"] for o in orgs]
    venue_list = venues(max(3, min(60, owners // 5)))
    venue_ids = [v["id"] for v in venue_list]
    (out / "profiles").mkdir(parents=True, exist_ok=True)
    dump = {"allow_unicode": True, "sort_keys": False, "default_flow_style": False}
    (out / "organizations.yaml").write_text(yaml.safe_dump(orgs, **dump), encoding="utf-8")
    (out / "venues.yaml").write_text(yaml.safe_dump(venue_list, **dump), encoding="utf-8")
    for index in range(owners):
        data = profile(rng, index, owners, org_ids, venue_ids, pubs, authors)
        (out / "profiles" / f"person-{index:06d}.yaml").write_text(yaml.safe_dump(data, **dump), encoding="utf-8")
    return owners


def main() -> None:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--triples", type=int, required=True, help="approximate number of triples to generate")
    parser.add_argument("--out", type=Path, required=True, help="output data folder")
    parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    args = parser.parse_args()
    profiles = generate(args.triples, args.out, args.seed)
    print(f"wrote {profiles} profiles to {args.out}")


if __name__ == "__main__":
    main()
