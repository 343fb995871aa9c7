"""The taggers of the CRF model files the importer ships (line labeller, segmenter, field and career models)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Protocol, cast


class Tagger(Protocol):
    """A trained CRF: the most likely label of each item of a sequence of feature maps."""

    def tag(self, xseq: Sequence[Mapping[str, str | float]], /) -> list[str]:
        """The most likely labels."""


@lru_cache(maxsize=8)
def tagger(path: Path) -> Tagger | None:
    """The tagger of a model file, opened once per process, or None when the file is missing."""
    if not path.exists():
        return None
    import pycrfsuite

    opened = pycrfsuite.Tagger()
    opened.open(str(path))
    return cast(Tagger, opened)


@contextmanager
def model_swapped(active: list[Path], path: Path) -> Iterator[None]:
    """Read with another model file (pushed on a module's stack of model paths) while the block runs."""
    active.append(path)
    try:
        yield
    finally:
        active.pop()
