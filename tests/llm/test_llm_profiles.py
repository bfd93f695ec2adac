"""The robot file's llm: section: validation with located problems, defaults, building providers."""

from __future__ import annotations

import pytest
import yaml

from treebrain.errors import InputError
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.profiles import (
    AnthropicProfile,
    LocalProfile,
    ScriptedProfile,
    build_provider,
    default_section,
    parse_llm_section,
)
from treebrain.llm.providers.anthropic import AnthropicProvider
from treebrain.llm.providers.cassette import RecordingProvider, ReplayProvider
from treebrain.llm.providers.local import LocalProvider
from treebrain.llm.providers.openai import OpenAIProvider
from treebrain.llm.providers.scripted import ScriptedEntry, ScriptedProvider

EXAMPLE = """
default: local
profiles:
  local: {provider: local}
  haiku: {provider: anthropic, model: claude-haiku-4-5, temperature: 0.2, timeout_s: 20,
          price_in_per_mtok: 1.0, price_out_per_mtok: 5.0, api_key_env: ANTHROPIC_API_KEY}
  slow: {provider: scripted, latency_s: 2.0, responses: ["{\\"ok\\": true}"]}
  rec: {provider: record, inner: haiku, cassette: cassettes/voice.jsonl}
"""


def test_example_section_parses():
    section = parse_llm_section(yaml.safe_load(EXAMPLE))
    assert section.default == "local"
    assert section.profiles["haiku"] == AnthropicProfile(
        provider="anthropic",
        model="claude-haiku-4-5",
        temperature=0.2,
        timeout_s=20,
        price_in_per_mtok=1.0,
        price_out_per_mtok=5.0,
    )
    slow = section.profiles["slow"]
    assert isinstance(slow, ScriptedProfile)
    assert slow.responses == [ScriptedEntry(text='{"ok": true}')]


def test_default_section_and_implicit_local_profile():
    assert default_section().default == "local"
    assert default_section().profiles == {"local": LocalProfile(provider="local")}
    section = parse_llm_section({"default": "s", "profiles": {"s": {"provider": "scripted"}}})
    assert list(section.profiles) == ["local", "s"]
    assert parse_llm_section(None) == default_section()


def _locate(path):
    """Pretend every key sits on a line numbered by its depth, for checking locations."""
    return (10 + len(path), 3)


def test_all_problems_reported_with_locations():
    data = {
        "default": "fast",
        "profiles": {
            "haiku": {"provider": "anthropic", "modle": "x"},
            "weird": {"provider": "telepathy"},
            "nothing": {},
            "s": {"provider": "scripted", "latency_s": -1},
        },
        "extra": 1,
    }
    with pytest.raises(InputError) as caught:
        parse_llm_section(data, file="robot.yaml", locate=_locate)
    assert str(caught.value).splitlines() == [
        "robot.yaml:13:3: llm.profiles.haiku.model: Field required",
        "robot.yaml:13:3: llm.profiles.haiku.modle: unknown key 'modle'; check its spelling against the provider's "
        "profile fields",
        "robot.yaml:12:3: llm.profiles.weird: unknown provider 'telepathy'; expected one of local, anthropic, gemini, "
        "openai, scripted, record, replay",
        "robot.yaml:12:3: llm.profiles.nothing: a profile needs 'provider:' (one of local, anthropic, gemini, openai, "
        "scripted, record, replay)",
        "robot.yaml:13:3: llm.profiles.s.latency_s: Input should be greater than or equal to 0",
        "robot.yaml:11:3: llm.extra: unknown key 'extra'; check its spelling against the provider's profile fields",
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"default": "cloud"}, "llm: default profile 'cloud' is not defined (profiles: local)"),
        (
            {"profiles": {"r": {"provider": "record", "inner": "x", "cassette": "c.jsonl"}}},
            "llm: profile 'r' records 'x', which is not defined (local, r)",
        ),
        (
            {"profiles": {"r": {"provider": "record", "inner": "r", "cassette": "c.jsonl"}}},
            "llm: profile 'r' records 'r', which is itself record/replay",
        ),
    ],
)
def test_cross_profile_checks(data, message):
    with pytest.raises(InputError) as caught:
        parse_llm_section(data)
    assert str(caught.value) == f"<input>: {message}"


def test_build_scripted_with_relative_file(tmp_path):
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "a.jsonl").write_text('"from file"\n', encoding="utf-8")
    section = parse_llm_section(
        {
            "profiles": {
                "s": {"provider": "scripted", "responses": ["inline"], "responses_file": "scripts/a.jsonl"}
            }
        }
    )
    provider = build_provider("s", section, base_dir=tmp_path)
    assert isinstance(provider, ScriptedProvider)
    assert provider.remaining() == 2


def test_build_local_is_lazy_and_needs_no_key():
    provider = build_provider("local", default_section())
    assert isinstance(provider, LocalProvider)
    assert provider.timeout_s == 60.0


def test_missing_key_names_the_variable_only(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    section = parse_llm_section(yaml.safe_load(EXAMPLE))
    with pytest.raises(LLMError) as caught:
        build_provider("haiku", section)
    assert caught.value.kind is LLMErrorKind.CONFIG
    assert caught.value.message == (
        "profile 'haiku' needs an API key in the environment variable ANTHROPIC_API_KEY; "
        "set it, or choose another profile (e.g. 'local')"
    )


def test_build_cloud_record_and_replay(monkeypatch, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")
    section = parse_llm_section(yaml.safe_load(EXAMPLE))
    haiku = build_provider("haiku", section)
    assert isinstance(haiku, AnthropicProvider)
    assert (haiku.model, haiku.timeout_s) == ("claude-haiku-4-5", 20)
    recorder = build_provider("rec", section, base_dir=tmp_path)
    assert isinstance(recorder, RecordingProvider)
    assert recorder.cassette == tmp_path / "cassettes" / "voice.jsonl"
    (tmp_path / "c.jsonl").write_text("", encoding="utf-8")
    replay_section = parse_llm_section({"profiles": {"r": {"provider": "replay", "cassette": "c.jsonl"}}})
    assert isinstance(build_provider("r", replay_section, base_dir=tmp_path), ReplayProvider)


def test_openai_compatible_server_without_key(monkeypatch):
    section = parse_llm_section(
        {
            "profiles": {
                "ollama": {
                    "provider": "openai",
                    "model": "qwen",
                    "base_url": "http://localhost:11434/v1",
                    "api_key_env": None,
                }
            }
        }
    )
    provider = build_provider("ollama", section)
    assert isinstance(provider, OpenAIProvider)
    assert repr(provider) == "OpenAIProvider(model='qwen', base_url='http://localhost:11434/v1/')"


def test_unknown_profile_name():
    with pytest.raises(LLMError, match=r"no LLM profile named 'gpt' \(profiles: local\)"):
        build_provider("gpt", default_section())
