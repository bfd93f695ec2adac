"""Facts as short text: reading them, their errors, negation and checking them against the world."""

from __future__ import annotations

import pytest

from treebrain.manipulation.facts import ARITY, Fact, FactError, fact, parse_fact


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("holding(Can)", Fact("holding", ("Can",))),
        ("lifted(cube)", Fact("lifted", ("cube",))),
        ("on(cubeA, cubeB)", Fact("on", ("cubeA", "cubeB"))),
        ("in(Can,bin_can)", Fact("in", ("Can", "bin_can"))),
        ("near( Bread ,  Milk )", Fact("near", ("Bread", "Milk"))),
        ("gripper_open", Fact("gripper_open")),
        ("  gripper_closed  ", Fact("gripper_closed")),
    ],
)
def test_parse_fact_reads_every_relation(text: str, expected: Fact) -> None:
    assert parse_fact(text) == expected


def test_every_relation_in_arity_is_covered_above() -> None:
    assert set(ARITY) == {"holding", "lifted", "on", "in", "near", "gripper_open", "gripper_closed"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not holding(cubeA)", Fact("holding", ("cubeA",), negated=True)),
        ("  not   on(a, b)", Fact("on", ("a", "b"), negated=True)),
        ("not gripper_open", Fact("gripper_open", negated=True)),
    ],
)
def test_not_negates(text: str, expected: Fact) -> None:
    assert parse_fact(text) == expected


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("holding()", 1),
        ("holding(a, b)", 1),
        ("lifted(a, b)", 1),
        ("on(a)", 2),
        ("in(a, b, c)", 2),
        ("near(a, )", 2),
        ("on(, b)", 2),
        ("gripper_open(x)", 0),
        ("not gripper_closed(x)", 0),
    ],
)
def test_a_wrong_number_of_arguments_is_an_error(text: str, count: int) -> None:
    relation = text.removeprefix("not ").split("(")[0]
    with pytest.raises(FactError, match=rf"^{relation} takes {count} argument\(s\), got "):
        parse_fact(text)


def test_an_unknown_relation_is_named_with_the_known_ones() -> None:
    with pytest.raises(FactError) as raised:
        parse_fact("hovering(cube)")
    message = str(raised.value)
    assert "unknown relation 'hovering'" in message
    assert "gripper_closed, gripper_open, holding, in, lifted, near, on" in message


def test_not_glued_to_the_relation_is_not_negation() -> None:
    with pytest.raises(FactError, match="unknown relation 'notholding'"):
        parse_fact("notholding(cube)")


@pytest.mark.parametrize(
    "text", ["", "holding(Can", "Holding(Can)", "on(a)(b)", "holding(Can) extra", "on(a(b))"]
)
def test_unreadable_text_says_what_is_expected(text: str) -> None:
    with pytest.raises(FactError, match=r"cannot read fact .*expected relation\(args\)"):
        parse_fact(text)


def test_fact_error_is_a_value_error() -> None:
    assert issubclass(FactError, ValueError)


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("holding(Can)", "holding(Can)"),
        ("on( cubeA ,cubeB )", "on(cubeA, cubeB)"),
        ("  not   in(Can,bin_can) ", "not in(Can, bin_can)"),
        ("gripper_open", "gripper_open"),
        ("not gripper_closed", "not gripper_closed"),
    ],
)
def test_str_round_trip(text: str, canonical: str) -> None:
    parsed = parse_fact(text)
    assert str(parsed) == canonical
    assert parse_fact(str(parsed)) == parsed


def test_positive_drops_the_negation() -> None:
    assert parse_fact("not near(a, b)").positive() == "near(a, b)"


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("holding(cube)", True),
        ("not holding(cube)", False),
        ("on(cube, table)", False),
        ("not on(cube, table)", True),
        ("gripper_closed", True),
        ("gripper_open", False),
        ("not gripper_open", True),
    ],
)
def test_holds_in_checks_against_the_positive_facts(text: str, holds: bool) -> None:
    facts = {"holding(cube)", "lifted(cube)", "gripper_closed"}
    assert parse_fact(text).holds_in(facts) is holds


def test_holds_in_needs_the_exact_spelling_of_positive() -> None:
    """The world lists facts as ``positive()`` spells them; a parsed fact matches that spelling."""
    assert parse_fact("on(a,b)").holds_in(["on(a, b)"])
    assert not parse_fact("on(b, a)").holds_in(["on(a, b)"])


def test_fact_helper_spells_facts_like_the_parser() -> None:
    assert fact("on", "a", "b") == "on(a, b)"
    assert fact("holding", "Can") == "holding(Can)"
    assert fact("gripper_open") == "gripper_open"
    assert parse_fact(fact("in", "Can", "bin_can")) == Fact("in", ("Can", "bin_can"))
