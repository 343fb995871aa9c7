"""A query job, and the bytes it and its answer travel as between the web process and a query worker.

No pickling: a job is a fixed header (struct) and length-prefixed UTF-8 strings; an answer is one status byte
and the serialised result as it is (an error: the status byte and a small JSON array).
"""

from __future__ import annotations

import hashlib
import json
import struct
from dataclasses import dataclass
from functools import cached_property
from typing import Any

READY = b"ready"
OK = b"o"
ERROR = b"e"
_HEADER = struct.Struct("<?IdIHH")  # dataset, max_results, timeout, preview, default graphs, named graphs
_LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class QueryJob:
    """Everything a worker needs to answer one query."""

    text: str
    base_iri: str
    default_graphs: tuple[str, ...]
    named_graphs: tuple[str, ...]
    dataset: bool
    format: str
    max_results: int
    timeout: float
    preview: int = 0
    volatile: bool = False  # the answer changes from run to run (RAND, NOW...): never kept (not sent to workers)
    deadline: float = 0.0  # monotonic time by which it is answered or refused, waiting included; 0: none (not sent)

    @cached_property
    def digest(self) -> bytes:
        """The SHA-256 digest of the query text."""
        return hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).digest()

    @property
    def cost_key(self) -> tuple[Any, ...]:
        """What this job's running time depends on: the query and its dataset (not the format or the base)."""
        return (self.digest, self.default_graphs, self.named_graphs, self.dataset)

    def cache_key(self, version: str) -> tuple[Any, ...]:
        """Key of this job's answer in the result cache for one data version (the text by its digest)."""
        return (version, self.digest, self.base_iri, self.default_graphs, self.named_graphs, self.dataset,
                self.format, self.preview)

    def encode(self) -> bytes:
        """The job as bytes for a worker's pipe."""
        parts = [_HEADER.pack(self.dataset, self.max_results, self.timeout, self.preview, len(self.default_graphs),
                              len(self.named_graphs))]
        for text in (self.text, self.base_iri, self.format, *self.default_graphs, *self.named_graphs):
            data = text.encode("utf-8", "surrogatepass")
            parts += (_LENGTH.pack(len(data)), data)
        return b"".join(parts)

    @classmethod
    def decode(cls, data: bytes) -> QueryJob:
        """The job encode() wrote."""
        dataset, max_results, timeout, preview, defaults, named = _HEADER.unpack_from(data)
        offset, texts = _HEADER.size, []
        for _ in range(3 + defaults + named):
            (size,) = _LENGTH.unpack_from(data, offset)
            offset += _LENGTH.size
            texts.append(data[offset:offset + size].decode("utf-8", "surrogatepass"))
            offset += size
        text, base_iri, fmt = texts[:3]
        return cls(text=text, base_iri=base_iri, default_graphs=tuple(texts[3:3 + defaults]),
                   named_graphs=tuple(texts[3 + defaults:]), dataset=dataset, format=fmt, max_results=max_results,
                   timeout=timeout, preview=preview)


def encode_error(status: int, kind: str, message: str) -> bytes:
    """A worker's error answer: the HTTP status, the error's kind and its message."""
    return ERROR + json.dumps([status, kind, message]).encode("utf-8")


def decode_error(data: bytes) -> tuple[int, str, str]:
    """The (status, kind, message) of an error answer."""
    status, kind, message = json.loads(data[len(ERROR):])
    return int(status), str(kind), str(message)
