"""The local model's GBNF: llama.cpp's JSON Schema converter, plus sequence grammars.

An array schema carrying a :class:`~treebrain.llm.sequence_grammar.SequenceGrammar` becomes that
grammar's rules, each element written as its exact JSON text; everything else is converted as
llama.cpp converts it.
"""

from __future__ import annotations

from typing import Any

from llama_cpp import llama_grammar

from treebrain.llm.sequence_grammar import SEQUENCE_GRAMMAR_KEY, RuleRef, SequenceGrammar

_SchemaConverter: Any = llama_grammar.SchemaConverter  # untyped upstream


class _Converter(_SchemaConverter):  # type: ignore[misc]
    def visit(self, schema: Any, name: str) -> str:
        if isinstance(schema, dict) and SEQUENCE_GRAMMAR_KEY in schema:
            return self._sequence(SequenceGrammar.from_json(schema[SEQUENCE_GRAMMAR_KEY]), name or "root")
        return str(super().visit(schema, name))

    def _sequence(self, grammar: SequenceGrammar, name: str) -> str:
        def rule_name(rule: str) -> str:
            return f"{name}-{rule}"

        def symbol(item: Any) -> str:
            if isinstance(item, RuleRef):
                return rule_name(item.name)
            return f"{self._format_literal(item.text)} space"

        for rule, alternatives in grammar.rules.items():
            body = " | ".join(
                ' "," space '.join(symbol(item) for item in alternative) for alternative in alternatives
            )
            added = self._add_rule(rule_name(rule), body)
            if added != rule_name(rule):
                raise ValueError(f"sequence grammar rule {rule!r} clashes with the schema's rule {added!r}")
        return str(self._add_rule(name, f'"[" space {rule_name(grammar.start)} "]" space'))


def schema_gbnf(schema: dict[str, Any]) -> str:
    """GBNF text for answers valid under `schema` (and its sequence grammars)."""
    converter = _Converter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    converter.visit(converter.resolve_refs(schema, "schema"), "")
    return str(converter.format_grammar())
