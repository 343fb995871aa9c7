"""Synthetic experience and education sections with token labels known by construction, for the career model.

Entries come from the real-world development pages' annotations, small pools of roles, organisations, degrees
and fields recombined, and harvested CV facts only when the environment variable KG_CV_HARVEST names a file
such as training/harvest/cv.jsonl.gz (`train_career_model.py --harvest`; development rows only; a row gives
the role or degree as `role`/`degree`/`title` and the place as `organization`/`institution`). A section picks
one layout (field order, dates first or last, one line or several, bullets, separators, description lines)
and keeps it for every entry, as a real page does, with stray lines (news, services, GPA, theses) mixed in.
Seeded, so a run is reproducible.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
HARVEST = ROOT / "training" / "harvest" / "cv.jsonl.gz"
REALWORLD = ROOT / "tests" / "data" / "import_realworld" / "dev"
EXCLUSIONS = (ROOT.parent / "shared" / "import-exclusions.txt", ROOT.parent.parent / "shared" / "import-exclusions.txt")
Segment = tuple[str, str]  # (text, field); field "" for separators, which are labelled "other"
SynthLine = tuple[list[Segment], int]  # segments and indentation
Entry = dict[str, Any]

_ROLES = ("Research Intern", "Software Engineer", "Senior Software Engineer", "Assistant Professor",
          "Associate Professor", "Professor", "Postdoctoral Researcher", "Postdoctoral Fellow", "Ph.D. Student",
          "PhD Candidate", "Visiting Scholar", "Visiting Researcher", "Research Scientist", "Senior Research Scientist",
          "Research Assistant", "Teaching Assistant", "Machine Learning Engineer", "Data Scientist", "Lecturer",
          "Research Engineer", "Student Researcher", "Applied Scientist", "Principal Investigator", "Intern",
          "Summer Intern", "Undergraduate Researcher", "Graduate Research Assistant", "Staff Engineer",
          "Algorithm Engineer", "Quantitative Researcher", "Member of Technical Staff", "Head of Research",
          "Co-founder & CTO", "Technical Lead", "Group Leader", "Senior Lecturer", "Research Fellow", "Director")
_DOMAINS = ("Training Infrastructure", "Data Platform", "Search Quality", "Vision", "Speech", "Ads Ranking", "Compiler",
            "Cloud Storage", "Inference", "Robotics", "Security", "Recommendation", "AI-Infra", "ML Platform")
_ROLE_HEADS = ("Lead", "Engineer", "Tech Lead", "Researcher", "Scientist", "Manager", "Architect", "Intern")
_COMPANIES = ("Google", "Google Research", "Google DeepMind", "Microsoft Research", "Microsoft Research Asia", "Meta",
              "Meta AI", "Amazon", "Amazon Web Services", "Apple", "NVIDIA", "IBM Research", "Intel Labs", "Adobe",
              "Tencent", "Tencent AI Lab", "Alibaba Group", "Alibaba DAMO Academy", "ByteDance", "Baidu Research",
              "Huawei Noah's Ark Lab", "SenseTime", "Megvii", "Samsung Research", "Sony AI", "Bosch Center for AI",
              "Siemens", "Uber ATG", "Snap Inc.", "Salesforce Research", "OpenAI", "Anthropic", "Netflix",
              "Airbnb", "Xiaomi", "JD.com", "Kuaishou", "Meituan", "Ant Group", "NetEase", "Zhipu AI",
              "Max Planck Institute for Informatics", "Inria", "CNRS", "Allen Institute for AI", "Flatiron Institute",
              "Los Alamos National Laboratory", "Argonne National Laboratory", "CERN", "Mila", "Vector Institute")
_PLACES = ("Beijing", "Shanghai", "Shenzhen", "Hangzhou", "Seattle", "Paris", "London", "Zurich", "Tokyo", "Boston",
           "Pittsburgh", "Berlin", "Munich", "Toronto", "Montreal", "Singapore", "Hong Kong", "Seoul", "Sydney",
           "Madrid", "Milan", "Amsterdam", "Stockholm", "Austin", "Chicago", "Atlanta", "Nanjing", "Wuhan")
_REGIONS = ("China", "USA", "WA", "CA", "France", "UK", "Switzerland", "Japan", "Germany", "Canada", "Italy",
            "Spain", "Korea", "Australia", "Netherlands", "MA", "PA", "NY", "TX")
_UNIVERSITIES = ("Tsinghua University", "Peking University", "Zhejiang University", "Fudan University",
                 "Shanghai Jiao Tong University", "Nanjing University", "Beihang University", "Wuhan University",
                 "Massachusetts Institute of Technology", "Stanford University", "Carnegie Mellon University",
                 "University of California, Berkeley", "UC Berkeley", "UCLA", "University of Washington",
                 "University of Oxford", "University of Cambridge", "ETH Zurich", "EPFL", "University of Toronto",
                 "McGill University", "National University of Singapore", "Nanyang Technological University",
                 "The University of Tokyo", "Kyoto University", "KAIST", "Seoul National University",
                 "Technical University of Munich", "Sorbonne Université", "Politecnico di Torino",
                 "Universidad Politécnica de Madrid", "KU Leuven", "Delft University of Technology",
                 "University of Michigan", "Georgia Institute of Technology", "Cornell University",
                 "Harvard University", "Princeton University", "New York University", "Columbia University",
                 "The Hong Kong University of Science and Technology", "The Chinese University of Hong Kong",
                 "Indian Institute of Technology Bombay", "University of Edinburgh", "Imperial College London",
                 "University of Illinois Urbana-Champaign", "Purdue University", "Northeastern University",
                 "University of Science and Technology of China", "Harbin Institute of Technology",
                 "Sun Yat-sen University", "Xi'an Jiaotong University", "Rutgers University", "Aalto University")
_CITIES_FOR_UNIS = ("Bologna", "Padova", "Utah", "Arizona", "Leeds", "Sheffield", "Bristol", "Geneva", "Vienna",
                    "Lisbon", "Porto", "Helsinki", "Oslo", "Warsaw", "Prague", "Texas", "Florida", "Maryland")
_UNITS = ("Department of Computer Science", "School of Computer Science", "AI Lab", "Ocean College",
          "School of Electronic Information", "Department of Physics", "Institute for Interdisciplinary Information "
          "Sciences", "Department of Electrical Engineering", "CSAIL", "Robotics Institute", "Vision Group",
          "Systems Research Group", "NLP Group", "Department of Statistics", "School of Medicine", "PAI Team",
          "Speech Team", "Brain Team", "Visual Computing Lab", "Center for Computational Quantum Physics")
_LABS = ("CSAIL", "LIDS", "SAIL", "VCL", "MMLab", "NLPR", "CVL", "LAMP", "IIIS", "LTI", "BAIR", "ISTA", "MPI-IS")
_DEGREES = ("Ph.D.", "PhD", "Ph.D", "Doctor of Philosophy", "M.S.", "MS", "M.Sc.", "MSc", "M.E", "M.Eng.",
            "Master of Science", "Master of Engineering", "Master", "M.A.", "MPhil", "B.S.", "BS", "B.Sc.", "BSc",
            "B.E.", "B.Eng.", "BEng", "B.Tech", "Bachelor of Science", "Bachelor of Engineering", "Bachelor", "B.A.",
            "Bachelor's degree", "Master's degree", "Diplom", "Laurea Magistrale", "MBA", "Ph.D. Candidate",
            "Ph.D. student")
_FIELDS = ("Computer Science", "Electrical Engineering", "Physics", "Mathematics", "Statistics", "Ocean Technology",
           "Artificial Intelligence", "Software Engineering", "Automation", "Data Science", "Electronic Information",
           "Mechanical Engineering", "Biology", "Chemistry", "Economics", "Linguistics", "Civil Engineering",
           "Computer Science and Technology", "Information Engineering", "Applied Mathematics", "Ecology",
           "Physics and Chemistry", "Cognitive Science", "Neuroscience", "Robotics", "Control Science")
_FIRST = ("Wei", "Li", "Jun", "Anna", "Maria", "John", "David", "Yoshua", "Sanjay", "Elena", "Pierre", "Hiro",
          "Daoyi", "Yong", "Xi", "Ming", "Sara", "Tom", "Laura", "Ravi", "Kenji", "Olga", "Paul", "Chen")
_LAST = ("Li", "Wang", "Zhang", "Chen", "Smith", "Garcia", "Müller", "Rossi", "Kim", "Tanaka", "Dubois", "Nguyen",
         "Brown", "Zhou", "Liu", "Yang", "Ivanova", "Kumar", "Silva", "Novak", "Sato", "Ren", "Xiao", "Huang")
_DESCRIPTIONS = ("Tech lead for the scheduling service across GPU jobs.",
                 "Engineer on the storage team, owning replication.",
                 "Lead developer of the open-source toolkit (see our ATC 2023 paper).",
                 "Intern project on query planning.",
                 "Research assistant to the group's survey project, 2019 data release.", "Team lead since 2021.",
                 "Leading the infrastructure for training large models", "Deep learning systems and cluster management",
                 "Distributed machine learning, GPU scheduling, graph computing", "Computer vision and robotics",
                 "Natural language processing for low-resource languages", "Quantum many-body physics",
                 "Statistical methods for ecology and field data", "Compilers, program analysis, verification",
"Worked on large-scale training infrastructure for language models.",
                 "Designed a scheduler for GPU clusters and cut job waiting time by half.",
                 "Thesis on robust perception for autonomous driving.",
                 "Built data pipelines and evaluation tools for recommendation systems.",
                 "Research on reinforcement learning for underwater robots.",
                 "Mentored by senior researchers on efficient inference",
                 "Teaching undergraduate courses in algorithms and data structures",
                 "Developed simulation tools used by several research groups.",
                 "Led a small team building a retrieval system",
                 "Focus: graph neural networks, causal inference")
_NOISE = ("GPA: 3.9/4.0", "GPA: 92.4/100, Rank 1/143", "Ranking: 2/120", "Courses: Algorithms, Machine Learning",
          "Thesis: Learning to Plan with Sparse Rewards", "Honors: National Scholarship (2019)",
          "Outstanding Graduate of Beijing, 2020", "Reviewer: NeurIPS 2023, ICML 2024, ICLR 2025",
          "[Apr. 2024] Our paper was accepted at ICANN 2024!", "2022.12: I start a new position in Shenzhen.",
          "Program Committee Member, AAAI 2024", "Invited talk at MIT, March 2023", "Dean's List, 2018-2020",
          "Exchange student program, Spring 2019", "Top 5% of the class")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "January",
           "February", "March", "September", "October", "June", "July", "Sept.", "Aug.")


def _excluded() -> set[str]:
    """Repositories and people import-exclusions.txt keeps out (lower case)."""
    path = next((p for p in EXCLUSIONS if p.exists()), None)
    if path is None:
        return set()
    out: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.update(part.strip().lower() for part in line.split(",") if part.strip())
    return out


def _year_of(value: Any) -> Any:
    text = str(value or "").strip().lower()
    if text in ("present", "now", "current"):
        return "present"
    found = re.search(r"(?:19|20)\d\d", text)
    return int(found.group(0)) if found else None


def real_entries() -> tuple[list[Entry], list[Entry]]:
    """Positions and degrees from the development pages' annotations and the harvest's development rows."""
    positions: list[Entry] = []
    degrees: list[Entry] = []
    for path in sorted(REALWORLD.glob("*.facts.yaml")):
        facts = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for p in facts.get("positions") or []:
            positions.append({"role": p.get("role"), "organization": p.get("organization"),
                              "start": _year_of(p.get("start")), "end": _year_of(p.get("end"))})
        for d in facts.get("degrees") or []:
            degrees.append({"degree": d.get("degree"), "institution": d.get("institution"),
                            "start": _year_of(d.get("start")), "end": _year_of(d.get("end"))})
    harvest = Path(os.environ.get("KG_CV_HARVEST", ""))
    if harvest.name and harvest.exists():
        excluded = _excluded()
        with gzip.open(harvest, "rt", encoding="utf-8") as stream:
            for raw in stream:
                row = json.loads(raw)
                if row.get("split") != "dev" or str(row.get("repo", "")).lower() in excluded:
                    continue
                what = row.get("role") or row.get("degree") or row.get("title")
                where = row.get("organization") or row.get("institution")
                start, end = _year_of(row.get("start_year") or row.get("start")), row.get("end_year") or row.get("end")
                if not what or not where:
                    continue
                if row.get("kind") == "position":
                    positions.append({"role": what, "organization": where, "start": start, "end": _year_of(end)})
                elif row.get("kind") == "degree":
                    degrees.append({"degree": what, "institution": where, "start": start, "end": _year_of(end)})
    clean = [e for e in positions if e["role"] and e["organization"] and len(str(e["role"])) < 80 and
             len(str(e["organization"])) < 100]
    return clean, [e for e in degrees if e["degree"] and e["institution"] and len(str(e["institution"])) < 100]


@dataclass
class Style:
    """One section's layout, kept for all its entries."""

    order: tuple[str, ...]
    lines: int
    sep: str
    date_style: int
    dash: str
    bullet: str
    blank: bool
    description: float
    place: float
    unit: float
    advisor: float
    noise: float


def _style(rng: random.Random, education: bool) -> Style:
    head = ("degree", "institution") if education else ("role", "organization")
    orders = [head + ("date",), ("date",) + head, head[::-1] + ("date",), ("date",) + head[::-1],
              (head[0], "date", head[1]), (head[1], "date", head[0])]
    return Style(order=rng.choice(orders), lines=rng.choice((1, 1, 2, 2, 3)),
                 sep=rng.choice((", ", ", ", " | ", " — ", " · ", "  ", " - ", ", ", "; ", ". ", " @ " if not education
                                 else ", ")),
                 date_style=rng.randrange(8), dash=rng.choice((" – ", " - ", "–", "-", " — ", " to ", " ~ ")),
                 bullet=rng.choice(("", "", "", "- ", "• ", "* ")), blank=rng.random() < 0.4,
                 description=rng.choice((0.0, 0.0, 0.3, 0.7)), place=rng.choice((0.0, 0.0, 0.3, 0.8)),
                 unit=rng.choice((0.0, 0.2, 0.5)), advisor=rng.choice((0.0, 0.0, 0.3)) if education else 0.0,
                 noise=rng.choice((0.0, 0.0, 0.15, 0.3)))


def _point(rng: random.Random, year: int, style: int) -> str:
    month = rng.randint(1, 12)
    return (str(year), f"{_MONTHS[month - 1]} {year}", f"{year}.{month}", f"{year}.{month:02d}", f"{year}/{month}",
            f"{month:02d}/{year}", f"{_MONTHS[(month - 1) % 12]}. {year}".replace("..", "."), str(year))[style]


def _dates(rng: random.Random, entry: Entry, style: Style) -> list[Segment]:
    """The date range as segments labelled start and end (the dash goes with the end)."""
    start, end = entry.get("start"), entry.get("end")
    if start is None and end is None:
        return []
    if start is None:
        return [(_point(rng, end, style.date_style), "end")] if isinstance(end, int) else []
    if end == start and rng.random() < 0.1:  # 'Jun – Sep 2011'
        first, last = sorted(rng.sample(range(12), 2))
        return [(_MONTHS[first], "start"), (f"{style.dash}{_MONTHS[last]} {start}", "end")]
    out: list[Segment] = [(_point(rng, start, style.date_style), "start")]
    if end == start and rng.random() < 0.5:
        return out
    if end is None:
        return out
    word = "Present" if end == "present" else _point(rng, end, style.date_style)
    if end == "present" and rng.random() < 0.1:
        return [(rng.choice(("Since ", "since ")) + out[0][0], "start")]
    if end == "present":
        word = rng.choice(("Present", "present", "Now", "now", "Current"))
    return out + [(style.dash + word, "end")]


def _name(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _university(rng: random.Random, real: list[Entry]) -> str:
    if real and rng.random() < 0.5:
        return str(rng.choice(real)["institution"])
    if rng.random() < 0.2:
        return rng.choice(("University of ", "Università di ", "Universität ")) + rng.choice(_CITIES_FOR_UNIS)
    return rng.choice(_UNIVERSITIES)


def synth_entry(rng: random.Random, education: bool, positions: list[Entry], degrees: list[Entry]) -> Entry:
    """Facts of one entry: a real one, or one recombined from the pools."""
    year = rng.randint(1995, 2026)
    end: Any = rng.choice((year, year + 1, year + 2, year + 4, "present", None)) if rng.random() < 0.95 else None
    if isinstance(end, int) and end > 2026:
        end = "present"
    start: Any = year if rng.random() < 0.92 else None
    if education:
        real = rng.choice(degrees) if degrees and rng.random() < 0.4 else None
        if real:
            return dict(real)
        degree = rng.choice(_DEGREES)
        if rng.random() < 0.5:
            degree += rng.choice((" in ", ", ", " in ", " ")) + rng.choice(_FIELDS)
        return {"degree": degree, "institution": _university(rng, degrees), "start": start, "end": end}
    real = rng.choice(positions) if positions and rng.random() < 0.4 else None
    if real:
        return dict(real)
    org = rng.choice(_COMPANIES) if rng.random() < 0.6 else _university(rng, degrees)
    role = rng.choice(_ROLES) if rng.random() < 0.8 else f"{rng.choice(_DOMAINS)} {rng.choice(_ROLE_HEADS)}"
    return {"role": role, "organization": org, "start": start, "end": end}


def _split_degree(text: str) -> list[Segment]:
    """'M.S. in Physics' -> degree 'M.S.', glue, field 'Physics'."""
    match = re.match(r"^(.+?)(\s+in\s+|,\s+|\s+)((?:[A-Z][\w&-]*)(?:\s+(?:and|of|&|[A-Z][\w&-]*))*)$", text)
    if match and re.search(r"[A-Z]", match.group(3)) and not re.fullmatch(
            r"(?:of|Science|Engineering|Arts|Philosophy|Technology|degree|Candidate|student|Magistrale)(?:\s.*)?",
            match.group(3)) and re.search(r"\.|^[A-Z][A-Za-z]{1,4}$|Bachelor|Master|Doctor", match.group(1)):
        return [(match.group(1), "degree"), (match.group(2), ""), (match.group(3), "field")]
    return [(text, "degree")]


def render_entry(rng: random.Random, entry: Entry, style: Style, education: bool) -> list[SynthLine]:
    """The lines of one entry in a section's style."""
    parts: dict[str, list[Segment]] = {"date": _dates(rng, entry, style)}
    if education:
        parts["degree"] = _split_degree(str(entry["degree"]))
        inst: list[Segment] = [(str(entry["institution"]), "institution")]
        if rng.random() < style.unit:
            unit = rng.choice(_LABS) if rng.random() < 0.5 else rng.choice(_UNITS)
            inst = [(unit, "unit"), (", ", "")] + inst
        degree_part = parts["degree"]
        if len(degree_part) == 3 and rng.random() < 0.3:  # 'Ph.D. 2019. Computer Science, CSAIL, MIT.'
            parts["degree"] = degree_part[:1]
            inst = [degree_part[2], (rng.choice((", ", ". ")), "")] + inst
        parts["institution"] = inst
    else:
        parts["role"] = [(str(entry["role"]), "role")]
        org: list[Segment] = [(str(entry["organization"]), "organization")]
        if rng.random() < style.unit:
            unit = rng.choice(_UNITS)
            glue = rng.choice((", ", ", ", " @ ", ", "))
            org = org + [(glue, ""), (unit, "unit")] if rng.random() < 0.5 and glue == ", " else \
                [(unit, "unit"), (glue, "")] + org
        parts["organization"] = org
    if rng.random() < style.place and style.lines >= 2 and rng.random() < 0.4:
        parts["place"] = [(rng.choice(_PLACES) + ", " + rng.choice(_REGIONS), "other")]
    elif rng.random() < style.place:
        key = "institution" if education else "organization"
        parts[key] = parts[key] + [(rng.choice((", {}", " ({})", " · {}")).format(rng.choice(_PLACES) + rng.choice(
            ("", ", " + rng.choice(_REGIONS)))), "other")]
    order = [k for k in style.order if parts.get(k)]
    if parts.get("place"):
        order.insert(order.index("date") + 1 if "date" in order else len(order), "place")
    groups: list[list[str]] = [[k] for k in order] if style.lines >= len(order) else (
        [order] if style.lines == 1 else [order[:2], order[2:]] if rng.random() < 0.5 else [order[:1], order[1:]])
    out: list[SynthLine] = []
    for i, group in enumerate(groups):
        segments: list[Segment] = []
        for k in group:
            if segments:
                segments.append((style.sep, ""))
            segments.extend(parts[k])
        if i == 0 and style.bullet:
            segments.insert(0, (style.bullet, ""))
        if style.sep == ". ":
            segments.append((".", ""))
        out.append((segments, 0))
    if rng.random() < (style.advisor if education else style.description / 3):
        label = rng.choice(("Advisor: ", "Supervisors: ", "Advised by ", "Supervisor: Prof. ", "Mentor: ",
                            "Host: "))
        names = _name(rng) + (rng.choice((" and ", ", ")) + _name(rng) if rng.random() < 0.4 else "")
        out.append(([(label, ""), (names, "advisor")], 0))
    if rng.random() < style.description:
        for _ in range(rng.randint(1, 2)):
            text = rng.choice(_DESCRIPTIONS)
            text = text.rstrip(".") if rng.random() < 0.4 else text
            out.append(([(rng.choice(("- ", "• ", "", "")) + text, "other")], rng.choice((0, 0, 2))))
    if education and rng.random() < style.noise:
        out.append(([(rng.choice(_NOISE[:7]), "other")], 0))
    return out


_HEADS = {True: ("Education", "Educations", "Education:", "Degrees", "Academic Background", "🎓 Education"),
          False: ("Experience", "Work Experience", "Employment", "Internships", "Research Experience",
                  "Professional Experience", "Positions", "💻 Internships")}


def _grouped(rng: random.Random, add: Any, positions: list[Entry], degrees: list[Entry]) -> None:
    """Organisations as headings, each over its roles: 'Google Brain, Mountain View, CA' / '  Research Intern,
    Summer 2016'; the heading is an entry of its own that names only the organisation."""
    sep, indent = rng.choice((", ", " | ", " — ", "  ")), rng.choice((0, 2, 4))
    for _ in range(rng.randint(1, 3)):
        org = str(synth_entry(rng, False, positions, degrees)["organization"])
        place = rng.choice(("", ", " + rng.choice(_PLACES) + ", " + rng.choice(_REGIONS)))
        add([(org, "organization"), (place, "other")], 0, True)
        for _ in range(rng.randint(1, 3)):
            entry = synth_entry(rng, False, positions, degrees)
            dates = _dates(rng, entry, _style(rng, False))
            add([(str(entry["role"]), "role")] + ([(sep, "")] + dates if dates else []), indent, True)


def synth_section(rng: random.Random, education: bool, positions: list[Entry], degrees: list[Entry]
                  ) -> tuple[list[str], list[int], list[list[str]]]:
    """One section: its lines, their indentation and each line's token labels (B- on an entry's first token,
    O on lines of no entry)."""
    from kg.importers.pipeline.career_features import TOKEN

    style = _style(rng, education)
    gaps = style.blank and rng.random() < 0.35
    texts: list[str] = []
    indents: list[int] = []
    labels: list[list[str]] = []

    def add(segments: list[Segment], indent: int, entry_start: bool, outside: bool = False) -> None:
        line, kinds = "", []
        for text, kind in segments:
            kinds += [kind or "other"] * len(text)
            line += text
        lead = len(line) - len(line.lstrip())
        line = line.strip()
        tags = ["O" if outside else "I-" + kinds[lead + m.start()] for m in TOKEN.finditer(line)]
        if entry_start and tags:
            tags[0] = "B-" + tags[0][2:]
        texts.append(line)
        indents.append(indent)
        labels.append(tags)

    if rng.random() < 0.2:
        add([(rng.choice(_NOISE[7:]), "")], 0, False, outside=True)
    if not education and rng.random() < 0.15:
        _grouped(rng, add, positions, degrees)
        return texts, indents, labels
    for _ in range(rng.randint(1, 6)):
        entry = synth_entry(rng, education, positions, degrees)
        for n, (segments, indent) in enumerate(render_entry(rng, entry, style, education)):
            if n and gaps:  # a copied Hugo page: a blank line between every two lines
                texts.append("")
                indents.append(0)
                labels.append([])
            add(segments, indent, n == 0)
        if style.blank:
            texts.append("")
            indents.append(0)
            labels.append([])
        if rng.random() < style.noise / 2:
            add([(rng.choice(_NOISE[7:]), "")], 0, False, outside=True)
    return texts, indents, labels
