"""A site's navigation menu in copied text: a run of short menu words near the top ('Home', 'Publications')."""

from __future__ import annotations

import re
from dataclasses import replace

from .records import Line
from .sections import KEYWORDS

MENU_WORDS = {"home", "about", "about me", "about (current)", "publications", "papers", "research", "projects",
              "contact", "cv", "resume", "résumé", "posts", "blog", "talks", "teaching", "news", "search",
              "people", "team", "group", "members", "students", "software", "code", "misc", "more", "awards",
              "service", "experience", "education", "photos", "gallery", "links", "notes", "writing", "bio",
              "publication", "selected publications", "outreach", "outreach and service", "lab", "courses",
              "tags", "categories", "archive", "archives", "repositories", "portfolio", "github", "menu", "toggle menu",
              "homepage", "researches", "internships", "english", "中文"} | {p for ps in KEYWORDS.values() for p in ps}


def is_menu_word(text: str) -> bool:
    """Whether a line is one menu entry."""
    return re.sub(r"[\s\u00a0]+", " ", text).strip().lower() in MENU_WORDS


def mark_menu(lines: list[Line], top: int = 40) -> list[Line]:
    """The lines with each run of three or more menu entries among the first `top` lines marked as navigation
    (blank lines inside a run are allowed); a run of one word per line is what a copied menu bar gives."""
    out = list(lines)
    content = [i for i, line in enumerate(lines) if line.text][:top]
    run: list[int] = []
    for i in content + [-1]:
        if i >= 0 and is_menu_word(lines[i].text) and not lines[i].heading:
            run.append(i)
            continue
        if len(run) >= 3:
            for k in run:
                out[k] = replace(out[k], nav=True)
        run = []
    return out
