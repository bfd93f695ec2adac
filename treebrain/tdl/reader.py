"""Token-level reading shared by the TDL parser: cursor, located issues, recovery, expressions.

Issues are de-duplicated per token position so one mistake yields one message; a statement that
cannot be read raises :class:`Abort` and the statement loop resynchronises; nesting beyond
:data:`MAX_DEPTH` raises :class:`TooDeep` and the whole top-level item is dropped, so hostile input
cannot exhaust the Python stack.
"""

from __future__ import annotations

from treebrain.tdl.findings import clip_long_words
from treebrain.tdl.lexer import Token
from treebrain.tdl.nodes import (
    Argument,
    BinaryExpr,
    CallExpr,
    Expr,
    IssueContext,
    ListExpr,
    NameRef,
    NumberLit,
    StringLit,
    SyntaxIssue,
    TupleExpr,
    UnaryExpr,
)

MAX_DEPTH = 64
MAX_ISSUES = 200
BINARY_PRECEDENCE = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "<": 4,
    ">": 4,
    "<=": 4,
    ">=": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "/": 6,
    "%": 6,
}
STATEMENT_KEYWORDS = frozenset({"SPAWN", "DEFINE", "GOAL", "COMMAND"})
KEYWORD_CONTEXT: dict[str, IssueContext] = {
    "SPAWN": "spawn",
    "DEFINE": "define",
    "GOAL": "structure",
    "COMMAND": "structure",
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}


class Abort(Exception):
    """Unwinds out of a statement that cannot be read; the statement loop resynchronises."""


class TooDeep(Exception):
    """Unwinds out of a whole top-level item nested beyond :data:`MAX_DEPTH`."""


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    out: list[str] = []
    chars = iter(body)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            out.append(_ESCAPES.get(following, following))
        else:
            out.append(char)
    return "".join(out)


def describe(token: Token) -> str:
    return "end of file" if token.kind == "eof" else repr(token.text)


class TokenReader:
    """A cursor over the tokens that records issues and reads expressions."""

    def __init__(self, tokens: list[Token], issues: list[SyntaxIssue]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.last = len(tokens) - 1
        self.current = tokens[0]
        self.issues = issues
        self.depth = 0
        self.context: IssueContext = "structure"
        self._last_issue_at = -1

    # --- token helpers -------------------------------------------------------------------------
    def peek(self, ahead: int = 0) -> Token:
        if not ahead:
            return self.current
        index = self.pos + ahead
        return self.tokens[index] if index < self.last else self.tokens[self.last]

    def advance(self) -> Token:
        token = self.current
        if self.pos < self.last:
            self.pos += 1
            self.current = self.tokens[self.pos]
        return token

    def at_op(self, text: str) -> bool:
        token = self.current
        return token.kind == "op" and token.text == text

    def at_keyword(self, *words: str) -> bool:
        token = self.peek()
        return token.kind == "keyword" and token.text in words

    def previous_end(self) -> tuple[int, int]:
        """Line and column just after the previous token (where a missing ';' belongs)."""
        if self.pos == 0:
            return 1, 1
        token = self.tokens[self.pos - 1]
        return token.line, token.column + len(token.text)

    # --- issues ----------------------------------------------------------------------------------
    def report(self, message: str, token: Token | None = None, context: IssueContext | None = None) -> None:
        if self._last_issue_at == self.pos or len(self.issues) > MAX_ISSUES:
            return
        self._last_issue_at = self.pos
        where = token or self.peek()
        self._add(context or self.context, where.line, where.column, message)

    def report_at(self, line: int, column: int, message: str, context: IssueContext | None = None) -> None:
        if self._last_issue_at == self.pos or len(self.issues) > MAX_ISSUES:
            return
        self._last_issue_at = self.pos
        self._add(context or self.context, line, column, message)

    def _add(self, context: IssueContext, line: int, column: int, message: str) -> None:
        if len(self.issues) == MAX_ISSUES:
            message = f"more than {MAX_ISSUES} syntax errors; stopped reporting"
        self.issues.append(
            SyntaxIssue(context=context, line=line, column=column, message=clip_long_words(message))
        )

    def fail(self, message: str, token: Token | None = None) -> Abort:
        self.report(message, token)
        return Abort()

    def synchronise(self) -> None:
        """Skip to just after the next ';', or to the next '}' / statement keyword / end of file."""
        while True:
            token = self.peek()
            if token.kind == "eof" or (token.kind == "op" and token.text == "}"):
                return
            if token.kind == "keyword" and token.text in STATEMENT_KEYWORDS:
                return
            self.advance()
            if token.kind == "op" and token.text == ";":
                return

    def expect_semicolon(self, after: str) -> None:
        if self.at_op(";"):
            self.advance()
            return
        line, column = self.previous_end()
        token = self.peek()
        self.report_at(line, column, f"missing ';' after {after} (found {describe(token)})")
        ends_statement = (
            token.kind == "eof"
            or (token.kind == "op" and token.text == "}")
            or (token.kind == "keyword" and token.text in STATEMENT_KEYWORDS)
            or token.line > line
        )
        if not ends_statement:
            self.synchronise()

    def skip_to_next_declaration(self) -> None:
        """Drop the rest of an item too deep to read, up to the next DEFINE/GOAL/COMMAND."""
        while self.current.kind != "eof" and not self.at_keyword("DEFINE", "GOAL", "COMMAND"):
            self.advance()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.report(f"nesting deeper than {MAX_DEPTH} levels")
            raise TooDeep()

    # --- expressions -----------------------------------------------------------------------------
    def call_arguments(self) -> tuple[Argument, ...]:
        """Read ``( args )`` (the current token is '('); a missing ')' is reported and assumed."""
        self.enter()
        self.advance()
        args: list[Argument] = []
        while not self.at_op(")"):
            token = self.peek()
            name: str | None = None
            if token.kind == "ident" and self.peek(1).kind == "op" and self.peek(1).text == "=":
                name = token.text
                self.advance()
                self.advance()
            value = self.expression()
            args.append(Argument(name=name, value=value, line=token.line, column=token.column))
            if self.at_op(","):
                self.advance()
                continue
            if self.at_op(")"):
                break
            following = self.peek()
            if following.kind in ("eof", "keyword") or (following.kind == "op" and following.text in ";{}"):
                line, column = self.previous_end()
                self.report_at(line, column, f"missing ')' (found {describe(following)})")
                self.depth -= 1
                return tuple(args)
            raise self.fail(f"expected ',' or ')' between arguments, found {describe(following)}", following)
        self.advance()
        self.depth -= 1
        return tuple(args)

    def dotted_name(self) -> str:
        parts = [self.advance().text]
        while self.at_op(".") and self.peek(1).kind == "ident":
            self.advance()
            parts.append(self.advance().text)
        return ".".join(parts)

    def expression(self, min_precedence: int = 1) -> Expr:
        left = self.unary()
        while True:
            token = self.peek()
            precedence = BINARY_PRECEDENCE.get(token.text, 0) if token.kind == "op" else 0
            if precedence < min_precedence:
                return left
            self.advance()
            self.enter()
            right = self.expression(precedence + 1)
            self.depth -= 1
            left = BinaryExpr(op=token.text, left=left, right=right, line=token.line, column=token.column)

    def unary(self) -> Expr:
        operators: list[Token] = []
        while self.peek().kind == "op" and self.peek().text in ("-", "+", "!"):
            operators.append(self.advance())
            if len(operators) > MAX_DEPTH:
                self.report(f"more than {MAX_DEPTH} unary operators in a row")
                raise TooDeep()
        value = self.primary()
        for operator in reversed(operators):
            if isinstance(value, NumberLit) and operator.text in "+-":
                sign = -1.0 if operator.text == "-" else 1.0
                value = NumberLit(
                    value=sign * value.value,
                    text=operator.text + value.text,
                    percent=value.percent,
                    line=operator.line,
                    column=operator.column,
                )
            else:
                value = UnaryExpr(op=operator.text, operand=value, line=operator.line, column=operator.column)
        return value

    def primary(self) -> Expr:
        token = self.peek()
        if token.kind == "number":
            self.advance()
            percent = token.text.endswith("%")
            return NumberLit(
                value=float(token.text.rstrip("%")),
                text=token.text,
                percent=percent,
                line=token.line,
                column=token.column,
            )
        if token.kind == "string":
            self.advance()
            return StringLit(value=_unescape(token.text[1:-1]), line=token.line, column=token.column)
        if token.kind == "ident":
            name = self.dotted_name()
            if self.at_op("("):
                return CallExpr(name=name, args=self.call_arguments(), line=token.line, column=token.column)
            return NameRef(name=name, line=token.line, column=token.column)
        if token.kind == "op" and token.text in "([":
            return self.group(token)
        raise self.fail(f"expected a value, found {describe(token)}")

    def group(self, opener: Token) -> Expr:
        closer = ")" if opener.text == "(" else "]"
        self.enter()
        self.advance()
        items: list[Expr] = []
        trailing_comma = False
        while not self.at_op(closer):
            items.append(self.expression())
            trailing_comma = self.at_op(",")
            if trailing_comma:
                self.advance()
                continue
            if not self.at_op(closer):
                raise self.fail(f"expected ',' or '{closer}', found {describe(self.peek())}")
        self.advance()
        self.depth -= 1
        if closer == "]":
            return ListExpr(items=tuple(items), line=opener.line, column=opener.column)
        if len(items) == 1 and not trailing_comma:
            return items[0]
        return TupleExpr(items=tuple(items), line=opener.line, column=opener.column)
