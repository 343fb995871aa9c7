"""The error tree: each class's HTTP status, CLI exit code and Retry-After stay as they were when the tree was
flat (issue 29), whatever family it now belongs to."""

from __future__ import annotations

import pytest

from kg import errors

# (status, exit_code, retry_after) of every concrete error, as read from the flat tree before the families came
PINNED = {
    "KgError": (500, 1, None),
    "SourceError": (400, 2, None),
    "SourceErrors": (400, 2, None),
    "ValidationFailed": (422, 3, None),
    "BuildError": (500, 4, None),
    "StoreMissing": (503, 5, None),
    "BadQuery": (400, 6, None),
    "RemoteStoreError": (502, 7, None),
    "QueryTimeout": (503, 6, None),
    "QueryMemoryLimit": (503, 6, None),
    "DiskFull": (507, 8, None),
    "ReadOnly": (403, 1, None),
    "NotFound": (404, 1, None),
    "PayloadTooLarge": (413, 6, None),
    "UpdateTooLarge": (413, 6, None),
    "WriteLimit": (503, 4, None),
    "UnsupportedMediaType": (415, 6, None),
    "TooManyResults": (400, 6, None),
    "BadTerm": (400, 6, None),
    "NetworkRefused": (400, 6, None),
    "WriteBusy": (503, 4, 2),
    "QueryFailed": (500, 6, None),
    "Saturated": (503, 1, 1),
    "WorkersDown": (503, 1, 5),
    "BusyTimeout": (503, 1, 1),
    "EngineCrashed": (500, 1, None),
    "RemoteConfigError": (500, 4, None),
    "SettingError": (500, 4, None),
    "NotAcceptable": (406, 2, None),
    "GraphNotFound": (404, 1, None),
    "WriteRejected": (422, 3, None),
    "WriteForbidden": (403, 1, None),
    "PortInUse": (500, 4, None),
}


def error_classes() -> dict[str, type[errors.KgError]]:
    return {name: cls for name, cls in vars(errors).items()
            if isinstance(cls, type) and issubclass(cls, errors.KgError)}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_status_exit_code_and_retry_after_are_unchanged(name: str) -> None:
    cls = error_classes()[name]
    assert (cls.status, cls.exit_code, getattr(cls, "retry_after", None)) == PINNED[name]


def test_every_error_class_is_pinned() -> None:
    assert set(error_classes()) == set(PINNED)
