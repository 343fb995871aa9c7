"""The W3C SHACL Core test suite (98 sht:Validate tests), run from its manifests as pySHACL's runner does.

Each test's report must be the expected one (sh:conforms, and the results compared on focus node, path, value,
source shape, constraint component and severity, blank nodes by structure), computed natively by the
Oxigraph engine; the terminal summary says how many ran natively.
"""

from __future__ import annotations

import pytest
from rdflib import Graph

from kg.validation.engine import run

from .shacl_suite import NATIVE, SUITE, SuiteTest, conforms, describe_keys, result_keys, suite_tests

TESTS = suite_tests() if SUITE.exists() else []
pytestmark = pytest.mark.skipif(not TESTS, reason=f"the W3C SHACL Core suite ({SUITE}) is not available; it is not "
                                                  "part of the project (../shared/w3c-shacl-tests/core)")


def test_the_suite_is_complete() -> None:
    assert len(TESTS) == 98, f"the W3C SHACL Core suite under {SUITE} should hold 98 sht:Validate tests"


@pytest.mark.parametrize("case", TESTS, ids=lambda t: t.name)
def test_w3c_core(case: SuiteTest) -> None:
    outcome = run([case.data], case.shapes, Graph())
    NATIVE[outcome.engine] += 1
    context = Graph()
    context += case.shapes
    context += case.data
    actual, expected = result_keys(outcome.graph, context), result_keys(case.expected, context)
    assert actual == expected, "\n".join(["unexpected:", *describe_keys(actual - expected),
                                          "missing:", *describe_keys(expected - actual)])
    assert conforms(outcome.graph) is conforms(case.expected)
    assert outcome.engine == "oxigraph", f"{case.name} fell back to pyshacl"
