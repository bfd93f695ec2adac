from __future__ import annotations

from treebrain.tdl.lexer import LexIssue, Token, tokenize
from treebrain.tdl.source import DecodeProblem, decode_source


def test_every_token_has_line_and_column() -> None:
    tokens, issues = tokenize("DEFINE Home = PosJ(0, -45.5);\n  SPAWN End() WITH WAIT;")
    assert issues == []
    assert tokens[:6] == [
        Token("keyword", "DEFINE", 1, 1),
        Token("ident", "Home", 1, 8),
        Token("op", "=", 1, 13),
        Token("ident", "PosJ", 1, 15),
        Token("op", "(", 1, 19),
        Token("number", "0", 1, 20),
    ]
    assert Token("keyword", "SPAWN", 2, 3) in tokens
    assert tokens[-1] == Token("eof", "", 2, 25)


def test_comments_of_all_three_kinds_are_skipped_and_lines_still_count() -> None:
    source = "# doc_meta: {}\n// 한국어 주석\n/* block\n comment */ GOAL\n"
    tokens, issues = tokenize(source)
    assert issues == []
    assert tokens == [Token("keyword", "GOAL", 4, 13), Token("eof", "", 5, 1)]


def test_numbers_strings_and_korean_identifiers() -> None:
    tokens, _ = tokenize("3. .5 3e-1 30% \"30%\" '빨간 상자' 홈_위치")
    assert [(token.kind, token.text) for token in tokens[:-1]] == [
        ("number", "3."),
        ("number", ".5"),
        ("number", "3e-1"),
        ("number", "30%"),
        ("string", '"30%"'),
        ("string", "'빨간 상자'"),
        ("ident", "홈_위치"),
    ]


def test_two_character_operators() -> None:
    tokens, _ = tokenize("a==b&&c!=d||e<=f>=g")
    assert [token.text for token in tokens if token.kind == "op"] == ["==", "&&", "!=", "||", "<=", ">="]


def test_problems_are_reported_and_lexing_continues() -> None:
    tokens, issues = tokenize('a @ b\n"open\nc /* never closed\nd')
    assert issues == [
        LexIssue(1, 3, "unexpected character '@'"),
        LexIssue(2, 1, "unterminated string (a quote is missing before the line ends)"),
        LexIssue(3, 3, "unterminated block comment ('/*' without '*/')"),
    ]
    assert [token.text for token in tokens] == ["a", "b", '"open"', "c", ""]


def test_keywords_are_case_sensitive() -> None:
    tokens, _ = tokenize("SPAWN spawn Spawn")
    assert [token.kind for token in tokens[:-1]] == ["keyword", "ident", "ident"]


def test_decode_reports_each_run_of_bad_bytes_with_its_position() -> None:
    decoded = decode_source(b"\xef\xbb\xbfGOAL A()\n{ \xff\xfe x \xc3 }")
    assert decoded.text == "GOAL A()\n{ \ufffd x \ufffd }"
    assert decoded.problems == (
        DecodeProblem(line=2, column=3, message="bytes that are not valid UTF-8: ff fe"),
        DecodeProblem(line=2, column=7, message="bytes that are not valid UTF-8: c3"),
    )


def test_decode_keeps_valid_korean_and_flags_lone_surrogates_in_text() -> None:
    assert decode_source("빨간 상자".encode()).problems == ()
    decoded = decode_source("a\udc80b")
    assert decoded.text == "a\ufffdb"
    assert decoded.problems == (DecodeProblem(line=1, column=2, message="lone surrogate characters: U+DC80"),)


def test_decode_caps_the_number_of_reported_problems() -> None:
    decoded = decode_source(b"\xff " * 30)
    assert len(decoded.problems) == 21
    assert decoded.problems[-1].message == "10 more undecodable runs"
