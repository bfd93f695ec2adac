"""Sequence grammars: building them (pure), their GBNF, and the real model writing under one (slow)."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from treebrain.clock import MonotonicClock
from treebrain.llm.schema_check import validate
from treebrain.llm.sequence_grammar import (
    SEQUENCE_GRAMMAR_KEY,
    GrammarBuilder,
    RuleRef,
    SequenceGrammar,
    Terminal,
)
from treebrain.llm.types import LLMRequest, LLMResponse, Message
from treebrain.llm.worker import start_call

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="llama_cpp is not importable: install treebrain[local]",
)
COLOURS = {"type": "string", "enum": ["red", "green", "blue"]}


def language(grammar: SequenceGrammar) -> set[tuple[Any, ...]]:
    """Every sequence a finite grammar derives, as tuples of JSON texts."""

    def expand(name: str) -> set[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for alternative in grammar.rules[name]:
            partial: set[tuple[str, ...]] = {()}
            for symbol in alternative:
                tails = expand(symbol.name) if isinstance(symbol, RuleRef) else {(symbol.text,)}
                partial = {head + tail for head in partial for tail in tails}
            found |= partial
        return found

    return {tuple(json.loads(text) for text in sequence) for sequence in expand(grammar.start)}


def colours(*names: str) -> tuple[Terminal, ...]:
    return tuple(Terminal.of(name) for name in names)


def test_a_finite_language_is_derived_exactly_and_shares_its_endings() -> None:
    sequences = [
        colours(*words) for words in (("red", "green"), ("blue", "green"), ("red",), ("red", "red", "blue"))
    ]
    builder = GrammarBuilder()
    grammar = builder.grammar(builder.finite(sequences) or RuleRef("missing"))
    assert language(grammar) == {("red", "green"), ("blue", "green"), ("red",), ("red", "red", "blue")}
    # "green" after red and after blue is one rule; "red" alone and "red ..." are two alternatives
    assert sum(1 for body in grammar.rules.values() if body == ((Terminal.of("green"),),)) == 1
    assert len(grammar.rules) == 4


def test_every_colour_five_times_stays_a_few_rules() -> None:
    from itertools import product

    builder = GrammarBuilder()
    start = builder.finite(colours(*words) for words in product(["red", "green", "blue"], repeat=5))
    assert start is not None
    grammar = builder.grammar(start)
    assert len(grammar.rules) == 5 and len(language(grammar)) == 3**5


def test_no_sequence_is_no_rule_and_an_empty_sequence_is_refused() -> None:
    assert GrammarBuilder().finite([]) is None
    with pytest.raises(ValueError, match="no empty sequence"):
        GrammarBuilder().finite([(), colours("red")])


def test_a_malformed_grammar_says_what_is_wrong() -> None:
    with pytest.raises(ValueError) as raised:
        SequenceGrammar(start="plan", rules={"a": ((RuleRef("b"),), ())})
    message = str(raised.value)
    assert "start rule 'plan' is not defined" in message
    assert "rule 'a' uses undefined rule 'b'" in message
    assert "rule 'a' has an empty alternative" in message


def test_the_grammar_travels_in_the_schema_and_the_answer_check_ignores_it() -> None:
    builder = GrammarBuilder()
    grammar = builder.grammar(builder.finite([colours("red", "blue")]) or RuleRef("missing"))
    schema = grammar.attach({"type": "array", "items": COLOURS})
    assert SequenceGrammar.from_json(json.loads(json.dumps(schema[SEQUENCE_GRAMMAR_KEY]))) == grammar
    assert validate(["green"], schema) == []  # the grammar is for the decoder; items still apply
    assert validate(["pink"], schema) != []


@needs_llama
def test_the_gbnf_is_llama_cpps_for_plain_schemas_and_the_grammar_for_sequences() -> None:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from treebrain.llm.providers.local_grammar import schema_gbnf

    plain: dict[str, Any] = {
        "type": "object",
        "properties": {"c": {"type": "array", "items": COLOURS}},
        "required": ["c"],
    }
    assert schema_gbnf(plain) == json_schema_to_gbnf(json.dumps(plain))
    builder = GrammarBuilder(prefix="g")
    grammar = builder.grammar(builder.finite([colours("red", "blue"), colours("red")]) or RuleRef("missing"))
    text = schema_gbnf({**plain, "properties": {"c": grammar.attach(plain["properties"]["c"])}})
    assert 'c ::= "[" space c-g1 "]" space' in text
    assert 'c-g1 ::= "\\"red\\"" space | "\\"red\\"" space "," space c-g0' in text


@pytest.mark.slow
@pytest.mark.local_llm
@needs_llama
def test_the_local_model_writes_only_what_the_sequence_grammar_allows() -> None:
    from treebrain.llm.providers.local import LocalProvider

    builder = GrammarBuilder()
    palindromes = [
        colours(a, b, a) for a in ("red", "green", "blue") for b in ("red", "green", "blue") if a != b
    ]
    grammar = builder.grammar(builder.finite(palindromes) or RuleRef("missing"))
    schema = {
        "type": "object",
        "properties": {"colours": grammar.attach({"type": "array", "items": COLOURS})},
        "required": ["colours"],
        "additionalProperties": False,
    }
    request = LLMRequest(
        system="Answer with JSON only.",
        messages=[Message(role="user", content="List the colours of a traffic light.")],
        json_schema=schema,
        temperature=0.0,
        max_tokens=40,
        timeout_s=120,
    )
    call = start_call(LocalProvider(n_ctx=512), request, clock=MonotonicClock(), node_path="root/colours")
    assert call.wait(150)
    response = call.outcome()
    assert isinstance(response, LLMResponse), response
    assert response.parsed is not None
    written = tuple(response.parsed["colours"])
    assert written in language(grammar), written
