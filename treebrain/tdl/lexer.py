"""TDL lexer: one pass, every token with its 1-based line and column, never raising.

Comments are ``// ...``, ``# ...`` (header lines such as ``# doc_meta: {...}``) and ``/* ... */``.
Identifiers may contain any Unicode letters (Korean names included); strings use double or single
quotes with backslash escapes and may hold any text. Numbers accept ``3``, ``3.``, ``.5``, ``3e-1``
and a percent suffix (``30%``). Characters that start no token, unterminated strings and unterminated
block comments are reported as :class:`LexIssue` and skipped, so the parser always gets a stream.
"""

from __future__ import annotations

import re
from typing import NamedTuple

KEYWORDS = frozenset({"DEFINE", "GOAL", "SPAWN", "WITH", "WAIT", "NOWAIT", "COMMAND"})


class Token(NamedTuple):
    """One token; `kind` is ident, keyword, number, string, op or eof. Strings keep their quotes."""

    kind: str
    text: str
    line: int
    column: int


class LexIssue(NamedTuple):
    line: int
    column: int
    message: str


_TOKEN = re.compile(
    r"""
    [ \t\r\f\v\u00a0\u3000]*
    (?:
     (?P<newline>\n[ \t\r\n\f\v\u00a0\u3000]*)
    |(?P<comment>//[^\n]*|\#[^\n]*|/\*.*?\*/)
    |(?P<open_comment>/\*)
    |(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?)
    |(?P<ident>[^\W\d]\w*)
    |(?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    |(?P<open_string>["'](?:[^\\\n]|\\.)*)
    |(?P<op>==|!=|<=|>=|&&|\|\||[(){}\[\],;=.+\-*/<>!%&|:?])
    |(?P<other>.)
    )
    """,
    re.VERBOSE | re.DOTALL,
)
_MAX_ISSUES = 50
_PLAIN = frozenset({"number", "string", "op"})


def tokenize(text: str) -> tuple[list[Token], list[LexIssue]]:
    """Split `text` into tokens ending with an ``eof`` token, plus the lexical problems met."""
    tokens: list[Token] = []
    issues: list[LexIssue] = []
    line = 1
    line_start = 0
    append = tokens.append
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if kind == "newline" or kind == "comment":  # noqa: PLR1714 - two compares beat a set lookup here
            end = match.end()
            newlines = text.count("\n", match.start(kind), end)
            if newlines:
                line += newlines
                line_start = text.rfind("\n", 0, end) + 1
            continue
        start = match.start(kind)
        value = match.group(kind)
        column = start - line_start + 1
        if kind == "ident":
            append(Token("keyword" if value in KEYWORDS else "ident", value, line, column))
        elif kind in _PLAIN:
            append(Token(kind, value, line, column))
        elif kind == "open_comment":
            if len(issues) < _MAX_ISSUES:
                issues.append(LexIssue(line, column, "unterminated block comment ('/*' without '*/')"))
            break
        elif kind == "open_string":
            if len(issues) < _MAX_ISSUES:
                issues.append(
                    LexIssue(line, column, "unterminated string (a quote is missing before the line ends)")
                )
            append(Token("string", value + value[0], line, column))
        elif len(issues) < _MAX_ISSUES:
            issues.append(LexIssue(line, column, f"unexpected character {value!r}"))
    end_line = text.count("\n") + 1
    end_column = len(text) - (text.rfind("\n") + 1) + 1
    append(Token("eof", "", end_line, end_column))
    return tokens, issues
