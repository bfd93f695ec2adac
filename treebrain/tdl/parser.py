"""Recovering recursive-descent parser for TDL: reports every syntax error, never raises.

Grammar (what the validation spec and LLM-written TDL use)::

    program   := [header] (DEFINE name '=' expr ';' | GOAL name '(' params ')' block
                  | COMMAND name '(' params ')' '{' ...ignored... '}')*
    header    := HEADER (KEY ':' value)* END_HEADER | (KEY ':' value)*   -- treebrain.tdl.header
    block     := '{' statement* '}'
    statement := SPAWN name '(' args ')' [WITH (WAIT|NOWAIT)] ';'   -- no WITH: NOWAIT
               | name '(' args ')' (';' | block)        -- End(); If(c) { ... }
               | name '=' expr ';'                      -- P1 = PosX(...);
               | DEFINE ... ';'
    args      := [arg (',' arg)* [',']]   arg := [name '='] expr

Recovery: a statement that cannot be read is skipped up to its ``;`` (or the next statement keyword
or ``}``) and reading resumes, so one bad line costs one issue. A missing ``;``, ``)`` or ``}`` is
reported where it was expected and parsing carries on as if it were there. A misspelled keyword
(``SPAWNN``, ``spawn``, ``DEFIN``) is reported with a suggestion and read as the keyword it resembles.
Nesting is capped so hostile input cannot exhaust the Python stack.
"""

from __future__ import annotations

from treebrain.tdl.header import read_header
from treebrain.tdl.lexer import Token, tokenize
from treebrain.tdl.nodes import (
    Argument,
    AssignStmt,
    CallStmt,
    CommandDecl,
    DefineStmt,
    GoalDecl,
    NameRef,
    ParsedProgram,
    SpawnStmt,
    Statement,
    SyntaxIssue,
    TopLevel,
)
from treebrain.tdl.reader import (
    KEYWORD_CONTEXT,
    MAX_DEPTH,
    STATEMENT_KEYWORDS,
    Abort,
    TokenReader,
    TooDeep,
    describe,
)
from treebrain.tdl.source import decode_source
from treebrain.tdl.spelling import closest_name

__all__ = ["MAX_DEPTH", "parse_program"]


class _Parser(TokenReader):
    """Declarations, blocks and statements on top of :class:`TokenReader`."""

    # --- program ---------------------------------------------------------------------------------
    def program(self) -> list[TopLevel]:
        items: list[TopLevel] = []
        while self.peek().kind != "eof":
            start = self.pos
            self.context = "structure"
            self.depth = 0
            try:
                item = self.top_level()
            except Abort:
                self.synchronise()
                item = None
            except TooDeep:
                self.skip_to_next_declaration()
                item = None
            if item is not None:
                items.append(item)
            if self.pos == start:
                self.advance()
        return items

    def top_level(self) -> TopLevel | None:
        token = self.peek()
        if token.kind == "keyword":
            if token.text == "DEFINE":
                return self.define()
            if token.text == "GOAL":
                return self.goal()
            if token.text == "COMMAND":
                return self.command_decl()
            if token.text == "SPAWN":
                self.report("SPAWN outside a GOAL block", context="structure")
                return self.spawn()
            raise self.fail(f"unexpected {token.text} outside a statement")
        if token.kind == "op" and token.text == "}":
            self.advance()
            self.report("unexpected '}' with no open block", token)
            return None
        if token.kind == "op" and token.text == ";":
            self.advance()
            return None
        if token.kind == "ident":
            statement = self.name_statement(top_level=True)
            if isinstance(statement, CallStmt | AssignStmt):
                self.report(
                    f"'{statement_name(statement)}' statement outside a GOAL block", token, "structure"
                )
            return statement
        raise self.fail(f"expected DEFINE, GOAL or COMMAND, found {describe(token)}")

    # --- declarations ----------------------------------------------------------------------------
    def define(self) -> DefineStmt:
        keyword = self.advance()
        return self.define_rest(keyword)

    def define_rest(self, keyword: Token) -> DefineStmt:
        self.context = "define"
        name = self.peek()
        if name.kind != "ident":
            raise self.fail(f"expected a name after DEFINE, found {describe(name)}")
        self.advance()
        if self.at_op("="):
            self.advance()
        else:
            self.report(f"expected '=' after DEFINE {name.text}, found {describe(self.peek())}")
            if not (self.peek().kind == "ident" or self.at_op("(")):
                raise Abort()
        value = self.expression()
        self.expect_semicolon(f"DEFINE {name.text}")
        return DefineStmt(name=name.text, value=value, line=keyword.line, column=keyword.column)

    def goal(self) -> GoalDecl:
        keyword = self.advance()
        return self.goal_rest(keyword)

    def goal_rest(self, keyword: Token) -> GoalDecl:
        self.context = "structure"
        name_token = self.peek()
        name = ""
        if name_token.kind == "ident":
            name = self.advance().text
        else:
            self.report(f"expected a GOAL name, found {describe(name_token)}")
        params: tuple[str, ...] = ()
        if self.at_op("("):
            params = tuple(arg_name for arg_name, _ in self.parameters())
        else:
            self.report(f"expected '(' after GOAL {name}, found {describe(self.peek())}")
        body, end_line = self.block(f"GOAL {name}", keyword)
        return GoalDecl(
            name=name, params=params, body=body, end_line=end_line, line=keyword.line, column=keyword.column
        )

    def command_decl(self) -> CommandDecl:
        return self.command_rest(self.advance())

    def command_rest(self, keyword: Token) -> CommandDecl:
        self.context = "structure"
        name_token = self.peek()
        if name_token.kind != "ident":
            raise self.fail(f"expected a command name after COMMAND, found {describe(name_token)}")
        self.advance()
        params: list[tuple[str, bool]] = []
        if self.at_op("("):
            params = self.parameters()
        else:
            self.report(f"expected '(' after COMMAND {name_token.text}, found {describe(self.peek())}")
        self.skip_raw_block(f"COMMAND {name_token.text}", keyword)
        return CommandDecl(
            name=name_token.text,
            params=tuple(name for name, _ in params),
            optional=tuple(name for name, has_default in params if has_default),
            line=keyword.line,
            column=keyword.column,
        )

    def parameters(self) -> list[tuple[str, bool]]:
        """A declaration's parameter list: names, each with whether it has a default value."""
        params: list[tuple[str, bool]] = []
        for argument in self.call_arguments():
            if argument.name is not None:
                params.append((argument.name, True))
            elif isinstance(argument.value, NameRef):
                params.append((argument.value.name, False))
            else:
                self.report("a parameter list holds names (optionally name=default)", context="structure")
        return params

    def skip_raw_block(self, owner: str, opener: Token) -> None:
        if not self.at_op("{"):
            self.report(f"expected '{{' to open the body of {owner}")
            return
        self.advance()
        depth = 1
        while depth:
            token = self.advance()
            if token.kind == "eof":
                self.report_at(
                    token.line, token.column, f"missing '}}' to close {owner} opened at line {opener.line}"
                )
                return
            if token.kind == "op" and token.text in "{}":
                depth += 1 if token.text == "{" else -1

    # --- blocks and statements -------------------------------------------------------------------
    def block(self, owner: str, opener: Token) -> tuple[tuple[Statement, ...], int]:
        if self.at_op("{"):
            self.advance()
        else:
            self.report(f"expected '{{' to open {owner}, found {describe(self.peek())}", context="structure")
            if not (self.peek().kind in ("keyword", "ident") and not self.at_keyword("GOAL", "COMMAND")):
                return (), self.peek().line
        self.enter()
        statements: list[Statement] = []
        while True:
            token = self.peek()
            if token.kind == "op" and token.text == "}":
                self.advance()
                self.depth -= 1
                return tuple(statements), token.line
            if token.kind == "eof" or (token.kind == "keyword" and token.text in ("GOAL", "COMMAND")):
                line, column = self.previous_end()
                self.report_at(
                    line, column, f"missing '}}' to close {owner} opened at line {opener.line}", "structure"
                )
                self.depth -= 1
                return tuple(statements), line
            start = self.pos
            saved_depth = self.depth
            try:
                statement = self.statement()
            except Abort:
                self.depth = saved_depth
                self.synchronise()
                statement = None
            if statement is not None:
                statements.append(statement)
            if self.pos == start:
                self.advance()

    def statement(self) -> Statement | None:
        token = self.peek()
        self.context = "statement"
        if token.kind == "keyword":
            if token.text == "SPAWN":
                return self.spawn()
            if token.text == "DEFINE":
                return self.define()
            raise self.fail(f"unexpected {token.text} at the start of a statement")
        if token.kind == "ident":
            statement = self.name_statement()
            if isinstance(statement, GoalDecl | CommandDecl):
                self.report(f"'{statement.name}' cannot be declared inside another block", token, "structure")
                return None
            return statement
        if token.kind == "op" and token.text == ";":
            self.advance()
            return None
        raise self.fail(f"expected a statement, found {describe(token)}")

    def name_statement(self, top_level: bool = False) -> Statement | GoalDecl | CommandDecl | None:
        """A statement starting with a name: bare call, assignment, or a misspelled keyword."""
        first = self.peek()
        following = self.peek(1)
        if following.kind in ("ident", "keyword") and following.line == first.line:
            keyword = closest_name(first.text, STATEMENT_KEYWORDS) or self.keyword_by_shape(top_level)
            if keyword is None:
                raise self.fail(f"unexpected {describe(following)} after '{first.text}'", following)
            self.advance()
            hint = "did you mean" if closest_name(first.text, STATEMENT_KEYWORDS) else "expected"
            self.report(
                f"unknown keyword '{first.text}' ({hint} {keyword}?)", first, KEYWORD_CONTEXT[keyword]
            )
            if keyword == "SPAWN":
                return self.spawn_rest(first)
            if keyword == "DEFINE":
                return self.define_rest(first)
            if keyword == "GOAL":
                return self.goal_rest(first)
            return self.command_rest(first)
        name = self.dotted_name()
        if self.at_op("("):
            args = self.call_arguments()
            if self.at_op("{"):
                body, _ = self.block(f"{name}(...)", first)
                if self.at_op(";"):
                    self.advance()
                return CallStmt(command=name, args=args, body=body, line=first.line, column=first.column)
            self.expect_semicolon(f"{name}(...)")
            return CallStmt(command=name, args=args, line=first.line, column=first.column)
        if self.at_op("="):
            self.advance()
            value = self.expression()
            self.expect_semicolon(f"assignment to {name}")
            return AssignStmt(target=name, value=value, line=first.line, column=first.column)
        raise self.fail(f"expected '(' or '=' after '{name}', found {describe(self.peek())}")

    def keyword_by_shape(self, top_level: bool) -> str | None:
        """Guess an unrecognisable keyword from what follows it: ``X Name(`` is a GOAL header at the top
        level and a SPAWN inside a block; ``X Name =`` is a DEFINE."""
        name, after = self.peek(1), self.peek(2)
        if name.kind != "ident" or after.kind != "op":
            return None
        if after.text == "=":
            return "DEFINE"
        if after.text == "(":
            return "GOAL" if top_level else "SPAWN"
        return None

    def spawn(self) -> SpawnStmt:
        keyword = self.advance()
        return self.spawn_rest(keyword)

    def spawn_rest(self, keyword: Token) -> SpawnStmt:
        self.context = "spawn"
        name_token = self.peek()
        if name_token.kind != "ident":
            raise self.fail(f"expected a command name after SPAWN, found {describe(name_token)}")
        self.advance()
        args: tuple[Argument, ...] = ()
        if self.at_op("("):
            args = self.call_arguments()
        else:
            self.report(f"expected '(' after SPAWN {name_token.text}, found {describe(self.peek())}")
        default_wait = self.at_clause_end()
        wait = False if default_wait else self.wait_clause(name_token.text)
        self.expect_semicolon(f"SPAWN {name_token.text}(...)")
        return SpawnStmt(
            command=name_token.text,
            args=args,
            wait=wait,
            default_wait=default_wait,
            line=keyword.line,
            column=keyword.column,
        )

    def at_clause_end(self) -> bool:
        """No WITH clause at all: the statement ends here (``SPAWN Cmd(...);``)."""
        token = self.peek()
        return token.kind == "op" and token.text in ";}"

    def wait_clause(self, command: str) -> bool | None:
        token = self.peek()
        if token.kind == "ident" and closest_name(token.text, {"WITH"}) == "WITH":
            self.report(f"expected WITH, found '{token.text}'")
            self.advance()
        elif self.at_keyword("WITH"):
            self.advance()
        elif self.at_keyword("WAIT", "NOWAIT"):
            self.report(f"missing WITH before {token.text} in SPAWN {command}")
        else:
            line, column = self.previous_end()
            self.report_at(
                line,
                column,
                f"expected WITH WAIT, WITH NOWAIT or ';' after SPAWN {command}(...), found {describe(token)}",
            )
            return None
        option = self.peek()
        if option.kind == "keyword" and option.text in ("WAIT", "NOWAIT"):
            self.advance()
            return option.text == "WAIT"
        suggestion = closest_name(option.text, {"WAIT", "NOWAIT"}) if option.kind == "ident" else None
        hint = f" (did you mean {suggestion}?)" if suggestion else ""
        self.report(f"expected WAIT or NOWAIT after WITH, found {describe(option)}{hint}", option)
        if suggestion:
            self.advance()
            return suggestion == "WAIT"
        return None


def statement_name(statement: CallStmt | AssignStmt) -> str:
    return statement.command if isinstance(statement, CallStmt) else statement.target


def parse_program(source: str | bytes, source_name: str = "") -> ParsedProgram:
    """Parse TDL `source` (text, or bytes decoded as UTF-8) into a tree plus every syntax issue."""
    decoded = decode_source(source)
    header, text = read_header(decoded.text)
    tokens, lex_issues = tokenize(text)
    issues = [
        SyntaxIssue(context="lexical", line=problem.line, column=problem.column, message=problem.message)
        for problem in decoded.problems
    ]
    issues.extend(
        SyntaxIssue(context="lexical", line=issue.line, column=issue.column, message=issue.message)
        for issue in lex_issues
    )
    parser = _Parser(tokens, issues)
    items = parser.program()
    return ParsedProgram(
        source_name=source_name,
        line_count=decoded.text.count("\n") + 1,
        header=header,
        items=tuple(items),
        issues=tuple(sorted(issues, key=lambda issue: (issue.line, issue.column))),
    )
