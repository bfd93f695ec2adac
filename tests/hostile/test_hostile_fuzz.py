"""Random bytes and random nested structures through the loader: only the project's own error type
ever comes out (as problems), and every example is answered quickly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treebrain.trees import validate_file
from treebrain.yaml_source import parse_yaml

FUZZ = settings(
    max_examples=300,
    deadline=2000,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["succeed", "sequence", "wait", "llm.generate", "/key", "${limits.x}", "yes", "~"]),
)
structures = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(
            st.one_of(
                st.sampled_from(["type", "name", "children", "child", "params", "root", "version"]),
                st.text(max_size=8),
            ),
            inner,
            max_size=5,
        ),
    ),
    max_leaves=40,
)


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes_give_problems_never_exceptions(data: bytes) -> None:
    text = data.decode("utf-8", "surrogateescape")
    _, problems = parse_yaml(text, "fuzz.yaml")
    assert all(problem.location.file == "fuzz.yaml" for problem in problems)


@FUZZ
@given(structures)
def test_random_trees_validate_to_problems_never_exceptions(tmp_path: Path, structure: Any) -> None:
    document = {"version": 1, "root": structure} if not isinstance(structure, dict) else structure
    path = tmp_path / "tree.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8", errors="surrogateescape")
    problems = validate_file(path)
    assert all(str(problem) for problem in problems)
