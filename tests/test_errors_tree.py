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
    "OutputExists": (409, 1, None),
    "BadIdentifier": (400, 2, None),
    "RecordNotFound": (404, 1, None),
    "FetchLimited": (503, 9, None),
    "SourceUnreachable": (502, 9, None),
}


def error_classes() -> dict[str, type[errors.KgError]]:
    return {name: cls for name, cls in vars(errors).items()
            if isinstance(cls, type) and issubclass(cls, errors.KgError)}


@pytest.mark.parametrize("name", sorted(PINNED))
def test_status_exit_code_and_retry_after_are_unchanged(name: str) -> None:
    cls = error_classes()[name]
    assert (cls.status, cls.exit_code, getattr(cls, "retry_after", None)) == PINNED[name]


FAMILIES = {
    "BadInput": {"SourceError", "SourceErrors", "NotAcceptable", "BadQuery", "TooManyResults", "BadTerm",
                 "NetworkRefused", "PayloadTooLarge", "UpdateTooLarge", "UnsupportedMediaType", "BadIdentifier"},
    "Missing": {"NotFound", "GraphNotFound", "RecordNotFound"},
    "Invalid": {"ValidationFailed", "WriteRejected"},
    "NotAllowed": {"ReadOnly", "WriteForbidden", "OutputExists"},
    "OverLimit": {"QueryTimeout", "QueryMemoryLimit", "WriteLimit", "WriteBusy", "Saturated", "BusyTimeout",
                  "FetchLimited"},
    "StoreError": {"StoreMissing", "BuildError", "RemoteStoreError", "DiskFull", "WorkersDown", "EngineCrashed",
                   "SourceUnreachable"},
    "SetupError": {"RemoteConfigError", "SettingError", "PortInUse"},
}
OUTSIDE = {"KgError", "QueryFailed"}  # the root, and a worker's error whatever its class was


def test_every_error_class_is_pinned_or_a_family() -> None:
    assert set(error_classes()) == set(PINNED) | set(FAMILIES)
    assert not set(PINNED) & set(FAMILIES)


@pytest.mark.parametrize("name", sorted(PINNED))
def test_each_error_is_in_exactly_one_family(name: str) -> None:
    cls = error_classes()[name]
    homes = {family for family in FAMILIES if issubclass(cls, error_classes()[family])}
    assert homes == ({family for family, members in FAMILIES.items() if name in members})
    assert len(homes) == (0 if name in OUTSIDE else 1)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_family_is_a_marker_that_takes_a_message(family: str) -> None:
    cls = error_classes()[family]
    assert cls.__bases__ == (errors.KgError,)
    assert cls.__doc__ and cls.__doc__.startswith("Family: ")
    assert "__init__" not in vars(cls)
    assert str(cls("a message")) == "a message"


def test_a_write_workers_errors_are_raised_again_as_their_class() -> None:
    from kg.writes.client import CARRIED, raised_again

    for family in FAMILIES:  # never raised by a worker, but rebuilding one by name must not fail
        assert isinstance(raised_again(family, 500, "m"), CARRIED[family])
    for name in ("NotFound", "GraphNotFound", "WriteForbidden", "ReadOnly", "WriteLimit", "WriteBusy", "DiskFull",
                 "UpdateTooLarge", "NetworkRefused", "StoreMissing"):
        error = raised_again(name, 500, "the message")
        assert type(error).__name__ == name and str(error) == "the message"


def test_the_families_catch_their_members() -> None:
    with pytest.raises(errors.Missing):
        raise errors.GraphNotFound("no such graph")
    with pytest.raises(errors.Invalid):
        raise errors.WriteRejected(Report())
    with pytest.raises(errors.BadInput):
        raise errors.UpdateTooLarge("too many operations")
    with pytest.raises(errors.OverLimit):
        raise errors.BusyTimeout("busy")
    with pytest.raises(errors.StoreError):
        raise errors.DiskFull()


def test_validation_and_write_rejection_stay_siblings() -> None:
    """kg's CLI prints a ValidationFailed as a stopped build, and the web routes turn a WriteRejected into its
    report: neither may catch the other."""
    assert not issubclass(errors.WriteRejected, errors.ValidationFailed)
    assert not issubclass(errors.ValidationFailed, errors.WriteRejected)
    for cls in (errors.ValidationFailed, errors.WriteRejected):
        error = cls(Report())
        assert str(error) == "2 violations" and error.report.text() == "2 violations"


class Report:
    def text(self) -> str:
        return "2 violations"
