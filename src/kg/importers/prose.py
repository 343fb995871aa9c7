"""Facts stated in running text: emails (also obfuscated), profile links, metrics, projects, degrees and advisors."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .dates import YEAR
from .names import Mention, parse_people
from .venues import Reference, is_org_like

EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_AT = re.compile(r"\s*[\[({<]\s*(?:at|AT|@)\s*[\])}>]\s*")
_DOT = re.compile(r"\s*[\[({<]\s*(?:dot|DOT|\.)\s*[\])}>]\s*")
PROFILE_LINKS = {"google scholar": "Google Scholar", "scholar": "Google Scholar", "github": "GitHub",
                 "linkedin": "LinkedIn", "twitter": "Twitter", "x": "X", "cv": "CV", "resume": "Resume",
                 "résumé": "Résumé", "dblp": "DBLP", "orcid": "ORCID", "semantic scholar": "Semantic Scholar",
                 "researchgate": "ResearchGate", "blog": "Blog", "homepage": "Homepage", "mastodon": "Mastodon",
                 "bluesky": "Bluesky", "zhihu": "Zhihu", "openreview": "OpenReview", "youtube": "YouTube"}
_PROSE_LINKS = ("Google Scholar", "DBLP", "ORCID", "Semantic Scholar", "GitHub", "LinkedIn", "OpenReview")
_NUM = r"\d{1,3}(?:,\d{3})+|\d+"
_METRIC_KIND = {"publications": "publications", "papers": "publications", "citations": "citations",
                "cites": "citations"}
DEGREE = re.compile(
    r"(?P<phd>\bPh\.?\s?D\b\.?|\bDoctor of Philosophy\b|\bdoctorate\b|\bD\.Phil\b\.?)"
    r"|(?P<master>\bM\.(?:[A-Z][a-z]{0,4}\.){2,3}|\bM\.S\.|\bM\.E\b\.?|\bM\.Sc\.|\bMSc\b|\bM\.Eng\.|\bMEng\b|\bM\.A\.|\bM\.?Phil\b\.?|\bMaster(?:'s|’s)?"
    r"(?: degree)?(?: of (?:Science|Engineering|Arts|Philosophy))?\b|\bMS\b)"
    r"|(?P<bachelor>\bS\.B\.|\bA\.B\.|"
    r"\bB\.(?:[A-Z][a-z]{0,4}\.){2,3}|\bB\.S\.|\bB\.E\b\.?|\bB\.Sc\.|\bBSc\b|\bB\.E\.|\bB\.Eng\.|\bBEng\b|\bB\.A\.|\bB\.Tech\b\.?|\bBTech\b|"
    r"\bBachelor(?:'s|’s)?(?: degree)?(?: of (?:Science|Engineering|Arts|Technology))?\b|\bBS\b|\bBE\b|\bBA\b)"
    r"|(?P<other>\bDipl[oô]me\b(?:\s+(?:d['’]\s?|de\s+)\w+)?|\bDiplom(?:-[\w]+)?\b|\bDipl\.-Ing\.|"
    r"\bLaurea(?: Magistrale| Triennale)?\b|\bLicence\b|\bMagister\b|\bHabilitation\b|\bMBA\b)")
SHORT_DEGREE = {"doctor of philosophy": "Ph.D.", "master of science": "M.S.", "master of engineering": "M.Eng.",
                "master of arts": "M.A.", "master of philosophy": "MPhil", "bachelor of science": "B.S.",
                "bachelor of engineering": "B.Eng.", "bachelor of arts": "B.A.", "bachelor of technology": "B.Tech."}
_COMPLETED = re.compile(r"\b(?:received|obtained|earned|completed|graduated|holds?|got|did)\b", re.I)
_ONGOING = re.compile(r"\b(?:student|candidate|pursuing|working towards|working toward|currently)\b", re.I)
_ADVISED = re.compile(r"\b(advised|supervised|co-advised|mentored)\s+by\s+|\bunder the (supervision|guidance) of\s+",
                      re.I)
_WORKED = re.compile(r"\bworking with\s+|\bworked with\s+", re.I)
_PARTNER = re.compile(r"\b(?:joint(?:ly)?(?: program(?:me)?)? with|in collaboration with|joint program(?:me)? "
                      r"(?:between [^,]+ and|with))\s+(?:the\s+)?", re.I)
_INSTITUTION = re.compile(r"\b(?:from|at|in)\s+(?:the\s+)?((?:[A-Z][\w.&’'–-]*|of|and|in|de|für|the)"
                          r"(?:\s+(?:[A-Z][\w.&’'–-]*|of|and|in|de|für|the))*)")


def level(degree: str) -> str:
    """'doctor', 'master' or 'bachelor' for a degree as written."""
    match = DEGREE.search(degree)
    if match is None:
        return "other"
    return {"phd": "doctor", "master": "master", "bachelor": "bachelor"}.get(match.lastgroup or "phd", "other")


def short_degree(written: str) -> str:
    """The short degree name: 'Doctor of Philosophy' and 'PhD' -> 'Ph.D.', 'Bachelor’s degree' -> 'Bachelor'."""
    text = written.strip().rstrip(",")
    if re.match(r"^(?:Ph\.?\s?D\.?|Doctor of Philosophy|doctorate|D\.Phil\.?)$", text, re.I):
        return "Ph.D."
    lowered = text.lower().replace("’", "'")
    if lowered in SHORT_DEGREE:
        return SHORT_DEGREE[lowered]
    for prefix, name in (("bachelor", "Bachelor"), ("master", "Master")):
        if lowered.startswith(prefix):
            return name
    return text


def find_email(text: str) -> tuple[str | None, bool]:
    """An email address in a line, decoding 'name [at] host [dot] edu' forms; (address, was_obfuscated)."""
    match = EMAIL.search(text)
    if match:
        return match.group(0).rstrip("."), False
    decoded = _DOT.sub(".", _AT.sub("@", text))
    decoded = re.sub(r"\s+AT\s+", "@", decoded)
    decoded = re.sub(r"\s+DOT\s+", ".", decoded)
    context = re.match(r"^\s*(?:e-?mail|mail|contact)\s*:?", text, re.I) is not None or len(text.split()) <= 8
    if context:
        decoded = re.sub(r"(?<=\w)\s+at\s+(?=[\w-]+\s+dot\s)", "@", decoded)
        decoded = re.sub(r"(?<=\w)\s+dot\s+(?=\w)", ".", decoded)
        decoded = re.sub(r"(?<=\w)\s+at\s+(?=[\w-]+(?:\.[\w-]+)+\b)", "@", decoded)
    match = EMAIL.search(decoded)
    return (match.group(0).rstrip("."), True) if match else (None, False)


_SENTENCE_WORDS = re.compile(r"\b(?:I|I'm|I’m|my|me|we|our|he|she|his|her|they|their|is|am|are|was|were|has|have|"
                             r"had|will|received|joined|completed|obtained|work|works|working)\b", re.I)


def is_sentence(text: str) -> bool:
    """Whether a line is running text rather than a title, affiliation or contact line."""
    words = len(text.split())
    return words > 24 or (words > 14 and (bool(_SENTENCE_WORDS.search(text)) or text.rstrip().endswith(".")))


def prose_links(text: str) -> list[str]:
    """Profile services a sentence points to ('See the full list at Google Scholar')."""
    return [label for label in _PROSE_LINKS if re.search(rf"\b{re.escape(label)}\b", text)]


@dataclass(frozen=True)
class MetricFound:
    """A count stated on the page."""

    kind: str
    min_value: int | None
    value: int | None
    as_written: str


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def find_metrics(text: str) -> list[MetricFound]:
    """'35+ Publications', 'cited more than 4000 times', 'over 6,000 citations', 'h-index 24'."""
    found: list[MetricFound] = []
    for m in re.finditer(rf"\bcited\s+(?:(?P<q>more than|over|at least)\s+)?(?P<n>{_NUM})(?P<p>\+)?\s+times", text,
                         re.I):
        written = f"{m.group('q')} {m.group('n')}" if m.group("q") else m.group("n") + (m.group("p") or "")
        exact = not m.group("q") and not m.group("p")
        found.append(MetricFound("citations", None if exact else _number(m.group("n")),
                                 _number(m.group("n")) if exact else None, written))
    for m in re.finditer(rf"(?:\b(?P<q>more than|over|at least)\s+)?(?<![\d,])(?P<n>{_NUM})(?P<p>\+)?\s*"
                         rf"(?P<k>publications|papers|citations|cites)\b", text, re.I):
        kind = _METRIC_KIND[m.group("k").lower()]
        written = f"{m.group('q')} {m.group('n')}" if m.group("q") else m.group("n") + (m.group("p") or "")
        exact = not m.group("q") and not m.group("p")
        found.append(MetricFound(kind, None if exact else _number(m.group("n")),
                                 _number(m.group("n")) if exact else None, written))
    for m in re.finditer(r"\bh-index\s*(?:of|:|=)?\s*(\d+)", text, re.I):
        found.append(MetricFound("h-index", None, int(m.group(1)), m.group(0)))
    return found


def find_projects(text: str) -> list[str]:
    """Project names listed in prose: 'involved in projects: MegaScale, Apache TVM, Apache MXNet'."""
    match = re.search(r"\bprojects?(?:\s+(?:such as|including))?\s*:\s*(.+?)(?:\.\s|\.$|$)", text, re.I)
    if not match:
        return []
    names = re.split(r",\s*(?:and\s+)?|\s+and\s+", match.group(1))
    return [n.strip() for n in names if n.strip() and len(n.split()) <= 5]


def sentences(text: str) -> list[str]:
    """Split prose into sentences without cutting 'Ph.D.', 'Prof.' or initials."""
    protected = re.sub(r"\b(Ph\.D|Prof|Dr|Mr|Ms|Mrs|St|Jr|vs|e\.g|i\.e|etc|B\.S|M\.S|B\.Sc|M\.Sc|B\.E|B\.A|M\.A|"
                       r"B\.Tech|M\.Eng|B\.Eng|[A-Z])\.", lambda m: m.group(0).replace(".", "\x00"), text)
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z\"“(])", protected)
    return [p.replace("\x00", ".").strip() for p in parts if p.strip()]


@dataclass
class ProseDegree:
    """A degree mentioned in prose, with what the sentence says about it."""

    written: str
    level: str
    institution: str | None = None
    institution_text: str | None = None
    department: str | None = None
    partner: str | None = None
    lab: str | None = None
    end: int | None = None
    completed: bool | None = None
    advisors: list[Mention] = field(default_factory=list)
    advisor_label: str | None = None
    worked_with: list[str] = field(default_factory=list)


def _institution_text(clause: str) -> str | None:
    for match in _INSTITUTION.finditer(clause):
        words = match.group(1).split()
        while words and words[-1] in ("of", "and", "in", "de", "für", "the"):
            words.pop()
        name = " ".join(words).rstrip(".,")
        if name and is_org_like(name) and not re.fullmatch(r"Ph\.?D\.?|PhD", name):
            return name
    return None


def prose_degrees(sentence: str, ref: Reference) -> list[ProseDegree]:
    """Degrees a sentence states: 'I received my Ph.D. from X, advised by A and B, and my B.S. from Y.'"""
    matches = list(DEGREE.finditer(sentence))
    if not matches:
        return []
    out = []
    for i, m in enumerate(matches):
        clause = sentence[m.start(): matches[i + 1].start() if i + 1 < len(matches) else len(sentence)]
        prefix = sentence[: m.start()]
        degree = ProseDegree(m.group(0), level(m.group(0)))
        if _ONGOING.search(clause[:60]) or _ONGOING.search(prefix[-40:]):
            degree.completed = False
        elif _COMPLETED.search(prefix) or _COMPLETED.search(clause):
            degree.completed = True
        main = re.split(r",?\s*(?:advised|supervised|co-advised|under the|working with|where)\b", clause)[0]
        orgs = ref.orgs_in(main) or ref.orgs_in(re.sub(r"\([^()]*\)", " ", clause))
        universities = [o for o in orgs if ref.org_types.get(o) in ("university", "organization")]
        degree.institution = universities[0] if universities else (orgs[0] if orgs else None)
        for org in orgs:
            kind = ref.org_types.get(org)
            if kind == "department" and degree.department is None:
                degree.department = org
        partner = _PARTNER.search(clause)
        if partner:
            found = ref.orgs_in(clause[partner.end():][:80])
            if found and found[0] != degree.institution:
                degree.partner = found[0]
        for org in ref.orgs_in(clause):
            if ref.org_types.get(org) == "lab" and "member" in clause.lower():
                degree.lab = org
        if degree.institution is None:
            degree.institution_text = _institution_text(main)
        year = YEAR.search(main[len(m.group(0)):])
        if year:
            degree.end = int(year.group(1))
        advised = _ADVISED.search(clause)
        if advised:
            degree.advisors = parse_people(clause[advised.end():])
            word = (advised.group(1) or advised.group(2) or "").lower()
            degree.advisor_label = "supervisors" if word.startswith("super") else "advisors"
        worked = _WORKED.search(clause)
        if worked:
            degree.worked_with = [p.name for p in parse_people(clause[worked.end():])]
        out.append(degree)
    return out
