"""Plain-text pages as lines: Markdown markup (emphasis, escapes, links, front matter) and bilingual lines undone."""

from __future__ import annotations

import re

from .citation import LINK_WORDS
from .records import Line

_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>])")
_PLACEHOLDER = {"*": "\ue001", "_": "\ue002", "[": "\ue003", "]": "\ue004", "(": "\ue005", ")": "\ue006"}
_RESTORE = {v: k for k, v in _PLACEHOLDER.items()}
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")
_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_AUTOLINK = re.compile(r"<((?:https?://|mailto:)[^<>\s]+)>")
_TAG = re.compile(r"</?(?:sub|sup|b|i|u|em|strong|span|small|big|br|mark|abbr|a|code|kbd|font|div|p)\b[^<>]*>", re.I)
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = (re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*(?![\w*])"),
             re.compile(r"(?<![\w_\\])_(?=[^\s_])([^_]+?)(?<=[^\s_])_(?![\w_])"))
_CODE = re.compile(r"`([^`]+)`")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,}|={3,})$")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)+\|?$")
_FRONT_KEY = re.compile(r"^[\w-]+\s*:(?:\s|$)")
# a run of Chinese/Japanese/Korean text with its full-width punctuation
_CJK = r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]"
_BILINGUAL_SEP = re.compile(r"\s+[/|]\s+|\s*[｜／]\s*")
_CJK_DATE_WORDS = {"至今": "present", "现在": "present", "現在": "present", "현재": "present"}
_DATE_PREFIX = re.compile(r"^[\d\s.,~()–—-]*(?:(?:present|now)\b)?", re.I)


def markdown_line(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """A line with Markdown markup removed, and its links as (label, url): '[GitHub](https://...)' -> 'GitHub'.

    >>> markdown_line("- **Weave**. Mei Tanaka\\\\*, Lukas Brandt. *MLSys*, 2025. [[paper]](https://x.org/w.pdf)")
    ('- Weave. Mei Tanaka*, Lukas Brandt. MLSys, 2025. [paper]', (('paper', 'https://x.org/w.pdf'),))
    """
    if _RULE.match(text.strip()) or _TABLE_RULE.match(text.strip()):
        return "", ()
    if text.startswith("|") and text.rstrip().endswith("|"):
        text = " | ".join(cell.strip() for cell in text.strip().strip("|").split("|"))
    text = _ESCAPED.sub(lambda m: _PLACEHOLDER.get(m.group(1), m.group(1)), text)
    text = _IMAGE.sub(lambda m: m.group(1), text)
    links: list[tuple[str, str]] = []

    def link(match: re.Match[str]) -> str:
        label = " ".join(match.group(1).split())
        if label.strip("[]() "):
            links.append((label.strip("[]() "), match.group(2)))
        return f"[{label}]" if label.lower() in LINK_WORDS else label

    text = _LINK.sub(link, text)
    def autolink(match: re.Match[str]) -> str:
        links.append((match.group(1), match.group(1)))
        return match.group(1)

    text = _AUTOLINK.sub(autolink, text)
    text = _TAG.sub("", text)
    text = _CODE.sub(r"\1", text)
    for _ in range(2):
        text = _STRONG.sub(r"\2", text)
    for pattern in _EMPHASIS:
        text = pattern.sub(r"\1", text)
    text = "".join(_RESTORE.get(ch, ch) for ch in text)
    return text.rstrip("\\").rstrip(), tuple(links)


def front_matter(raw: list[str]) -> int:
    """How many leading lines are YAML or TOML front matter ('---' ... '---'); 0 when there is none."""
    first = next((i for i, line in enumerate(raw) if line.strip()), None)
    if first is None or raw[first].strip() not in ("---", "+++"):
        return 0
    fence = raw[first].strip()
    for i in range(first + 1, min(len(raw), first + 60)):
        line = raw[i]
        if line.strip() == fence:
            return i + 1
        if line.strip() and not (_FRONT_KEY.match(line.strip()) or line.startswith((" ", "\t", "-"))):
            return 0
    return 0


def _letters(text: str) -> tuple[int, int]:
    """(CJK characters, Latin letters) in a text."""
    cjk = len(re.findall(_CJK, text))
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    return cjk, latin


def latin_side(text: str) -> str:
    """A bilingual line ('工作经历 | Work Experience', '副研究员 / Associate Researcher') without its CJK side.

    Only lines that pair CJK text with a Latin translation across ' / ' or ' | ' change: a CJK part keeps just
    its leading dates ('至今' becomes 'present').

    >>> latin_side("2021.07 – 至今 (Present)  微软亚洲研究院，副研究员 / Associate Researcher, Microsoft Research Asia")
    '2021.07 – present Associate Researcher, Microsoft Research Asia'
    >>> latin_side("胡佳欣, 唐志伟. 面向深度学习的综述. 软件学报, 2022.")
    '胡佳欣, 唐志伟. 面向深度学习的综述. 软件学报, 2022.'
    """
    parts = _BILINGUAL_SEP.split(text)
    if len(parts) < 2:
        return text
    counts = [_letters(p) for p in parts]
    if not any(cjk for cjk, _ in counts) or not any(latin >= 2 and not cjk for cjk, latin in counts):
        return text
    kept = []
    for part, (cjk, _) in zip(parts, counts, strict=True):
        if cjk:
            for word, english in _CJK_DATE_WORDS.items():
                part = re.sub(rf"(?<!{_CJK}){word}(?!{_CJK})(?:\s*\(\s*{english}\s*\))?", english, part, flags=re.I)
            part = _DATE_PREFIX.match(part).group(0)  # type: ignore[union-attr]
        if part.strip():
            kept.append(part.strip())
    return " ".join(" ".join(kept).split())


def without_cjk_lead(text: str) -> str:
    """'大模型训练系统 Large-model training systems' -> 'Large-model training systems' (a term and its translation)."""
    match = re.match(rf"^(?:\S*{_CJK}\S*\s+)+", text)
    rest = text[match.end():] if match else text
    return rest if match and not re.search(_CJK, rest) and _letters(rest)[1] >= 2 else text


def text_lines(text: str) -> list[Line]:
    """Plain text (or Markdown) as lines with 1-based numbers, indentation and the links written on them."""
    raw = text.splitlines()
    skip = front_matter(raw)
    out = []
    for i, line in enumerate(raw):
        expanded = line.replace("\t", "    ").replace("\u00a0", " ")
        header = i + 1 < len(raw) and _TABLE_RULE.match(raw[i + 1].strip()) is not None
        stripped, links = markdown_line(expanded.strip()) if i >= skip and not header else ("", ())
        latin = latin_side(stripped)
        out.append(Line(i, i + 1, " ".join(latin.split()) if "  " not in latin else latin,
                        len(expanded) - len(expanded.lstrip()), links=links,
                        raw=" ".join(stripped.split()) if latin != stripped else ""))
    return out
