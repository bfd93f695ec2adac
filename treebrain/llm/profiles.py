"""Provider profiles: the ``llm:`` section of a robot file, validated, and turned into providers.

```yaml
llm:
  default: local
  profiles:
    local: {provider: local}
    haiku: {provider: anthropic, model: claude-haiku-4-5, temperature: 0.2, timeout_s: 20,
            price_in_per_mtok: 1.0, price_out_per_mtok: 5.0, api_key_env: ANTHROPIC_API_KEY}
    slow: {provider: scripted, latency_s: 2.0, responses: ['{"ok": true}']}
    rec: {provider: record, inner: haiku, cassette: cassettes/voice.jsonl}
```

A ``local`` profile always exists (added when the section does not define one), so a robot file
without ``llm:`` still has a working default. Keys are named by environment variable only; their
values are read when a provider is built and never stored in a profile.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from treebrain.errors import InputError, Location, Problem
from treebrain.llm.budget import Budget
from treebrain.llm.errors import LLMError, LLMErrorKind
from treebrain.llm.providers.base import Pricing, Provider
from treebrain.llm.providers.cassette import RecordingProvider, ReplayProvider
from treebrain.llm.providers.remote import api_key_from_env, missing_package
from treebrain.llm.providers.scripted import ScriptedEntry, ScriptedProvider, load_script

if TYPE_CHECKING:
    import httpx2


class _Profile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    temperature: float | None = Field(default=None, ge=0, le=2)
    timeout_s: float = Field(default=30.0, gt=0)
    price_in_per_mtok: float = Field(default=0.0, ge=0)
    price_out_per_mtok: float = Field(default=0.0, ge=0)

    @property
    def pricing(self) -> Pricing:
        return Pricing(self.price_in_per_mtok, self.price_out_per_mtok)


class LocalProfile(_Profile):
    provider: Literal["local"]
    model_path: str | None = None
    """A GGUF file instead of the bundled Gemma 3 270M."""
    n_ctx: int = Field(default=4096, ge=256)
    n_threads: int | None = Field(default=None, ge=1)
    """Decode threads (default: half the cores; see treebrain/llm/providers/local.py)."""
    n_threads_batch: int | None = Field(default=None, ge=1)
    """Prompt-evaluation threads (default: half the cores)."""
    timeout_s: float = Field(default=60.0, gt=0)


class AnthropicProfile(_Profile):
    """`temperature` is accepted but not sent: the Messages API of anthropic SDK 2.x has none."""

    provider: Literal["anthropic"]
    model: str
    api_key_env: str = "ANTHROPIC_API_KEY"
    base_url: str | None = None
    cache_system_prompt: bool = True


class GeminiProfile(_Profile):
    provider: Literal["gemini"]
    model: str
    api_key_env: str = "GEMINI_API_KEY"
    base_url: str | None = None


class OpenAIProfile(_Profile):
    provider: Literal["openai"]
    model: str
    base_url: str | None = None
    """An OpenAI-compatible server (Ollama, vLLM, llama.cpp server); None: api.openai.com."""
    api_key_env: str | None = "OPENAI_API_KEY"
    """None for servers without authentication."""


class ScriptedProfile(_Profile):
    provider: Literal["scripted"]
    model: str = "scripted"
    responses: list[ScriptedEntry] = Field(default_factory=list)
    responses_file: str | None = None
    """A JSONL script (relative to the robot file), played after `responses`."""
    latency_s: float = Field(default=0.0, ge=0)

    @field_validator("responses", mode="before")
    @classmethod
    def _strings_are_texts(cls, value: Any) -> Any:
        """A plain string in the list is shorthand for ``{text: ...}``."""
        if not isinstance(value, list):
            return value
        return [{"text": item} if isinstance(item, str) else item for item in value]


class RecordProfile(_Profile):
    provider: Literal["record"]
    inner: str
    """The profile whose calls are recorded."""
    cassette: str


class ReplayProfile(_Profile):
    provider: Literal["replay"]
    cassette: str


ProfileConfig = Annotated[
    LocalProfile
    | AnthropicProfile
    | GeminiProfile
    | OpenAIProfile
    | ScriptedProfile
    | RecordProfile
    | ReplayProfile,
    Field(discriminator="provider"),
]
PROVIDER_KINDS = ("local", "anthropic", "gemini", "openai", "scripted", "record", "replay")


class LLMSection(BaseModel):
    """The robot file's ``llm:`` section."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    default: str = "local"
    profiles: dict[str, ProfileConfig] = Field(default_factory=dict)
    budget: Budget | None = None
    """Limits for the whole tree (all leaves together)."""

    @model_validator(mode="before")
    @classmethod
    def _with_local(cls, data: Any) -> Any:
        profiles = data.get("profiles") if isinstance(data, dict) else None
        if isinstance(data, dict) and isinstance(profiles, dict | None) and "local" not in (profiles or {}):
            return {**data, "profiles": {"local": {"provider": "local"}, **(profiles or {})}}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> LLMSection:
        names = ", ".join(sorted(self.profiles))
        if self.default not in self.profiles:
            raise ValueError(f"default profile {self.default!r} is not defined (profiles: {names})")
        for name, profile in self.profiles.items():
            if isinstance(profile, RecordProfile):
                inner = self.profiles.get(profile.inner)
                if inner is None:
                    raise ValueError(
                        f"profile {name!r} records {profile.inner!r}, which is not defined ({names})"
                    )
                if isinstance(inner, RecordProfile | ReplayProfile):
                    raise ValueError(
                        f"profile {name!r} records {profile.inner!r}, which is itself record/replay"
                    )
        return self


def default_section() -> LLMSection:
    """The section of a robot file without ``llm:``: one ``local`` profile, the default."""
    return LLMSection()


def _problem_message(detail: Any) -> str:
    if detail["type"] == "extra_forbidden":
        return f"unknown key {detail['loc'][-1]!r}; check its spelling against the provider's profile fields"
    if detail["type"] == "union_tag_invalid":
        return f"unknown provider {detail['input'].get('provider')!r}; expected one of {', '.join(PROVIDER_KINDS)}"
    if detail["type"] == "union_tag_not_found":
        return f"a profile needs 'provider:' (one of {', '.join(PROVIDER_KINDS)})"
    return str(detail["msg"]).removeprefix("Value error, ")


def parse_llm_section(
    data: Any, *, file: str = "", locate: Callable[[tuple[str | int, ...]], tuple[int, int]] | None = None
) -> LLMSection:
    """Validate a robot file's ``llm:`` data; all problems at once as an InputError.

    `locate` maps a key path inside the section (e.g. ``("profiles", "haiku", "model")``) to
    (line, column) in the file, from the YAML node marks the robot loader keeps.
    """
    try:
        return LLMSection.model_validate({} if data is None else data)
    except ValidationError as error:
        problems = []
        for detail in error.errors():
            path = tuple(part for part in detail["loc"] if part not in PROVIDER_KINDS)
            line, column = locate(path) if locate is not None else (0, 0)
            where = ".".join(str(part) for part in ("llm", *path))
            problems.append(Problem(Location(file, line, column), f"{where}: {_problem_message(detail)}"))
        raise InputError(problems) from None


def build_provider(
    name: str, section: LLMSection, *, base_dir: str | Path = ".", http_client: httpx2.Client | None = None
) -> Provider:
    """Build the provider of profile `name`; relative paths resolve against `base_dir`.

    `http_client` replaces the cloud SDKs' own HTTP client (proxies, custom TLS, mocked transports).

    Raises ``LLMError(config)`` for an unknown profile, a missing API key or a missing package, and
    InputError for a bad scripted file or cassette. Providers take time from each call's context,
    so building one needs no clock.
    """
    profile = section.profiles.get(name)
    if profile is None:
        known = ", ".join(sorted(section.profiles))
        raise LLMError(LLMErrorKind.CONFIG, f"no LLM profile named {name!r} (profiles: {known})")
    base = Path(base_dir)
    match profile:
        case LocalProfile():
            try:
                from treebrain.llm.providers.local import LocalProvider
            except ImportError as error:
                raise missing_package(
                    error.name or "llama_cpp", "local", f"the LLM profile {name!r}"
                ) from None
            model_path = None if profile.model_path is None else base / profile.model_path
            return LocalProvider(
                model_path=model_path,
                n_ctx=profile.n_ctx,
                n_threads=profile.n_threads,
                n_threads_batch=profile.n_threads_batch,
                temperature=profile.temperature,
                pricing=profile.pricing,
                timeout_s=profile.timeout_s,
            )
        case AnthropicProfile():
            from treebrain.llm.providers.anthropic import AnthropicProvider

            return AnthropicProvider(
                model=profile.model,
                api_key=api_key_from_env(profile.api_key_env, name),
                pricing=profile.pricing,
                base_url=profile.base_url,
                cache_system_prompt=profile.cache_system_prompt,
                http_client=http_client,
                timeout_s=profile.timeout_s,
            )
        case GeminiProfile():
            from treebrain.llm.providers.gemini import GeminiProvider

            return GeminiProvider(
                model=profile.model,
                api_key=api_key_from_env(profile.api_key_env, name),
                temperature=profile.temperature,
                pricing=profile.pricing,
                base_url=profile.base_url,
                timeout_s=profile.timeout_s,
                http_client=http_client,
            )
        case OpenAIProfile():
            from treebrain.llm.providers.openai import OpenAIProvider

            key = None if profile.api_key_env is None else api_key_from_env(profile.api_key_env, name)
            return OpenAIProvider(
                model=profile.model,
                api_key=key,
                base_url=profile.base_url,
                temperature=profile.temperature,
                pricing=profile.pricing,
                timeout_s=profile.timeout_s,
                http_client=http_client,
            )
        case ScriptedProfile():
            entries = list(profile.responses)
            if profile.responses_file is not None:
                entries += load_script(base / profile.responses_file)
            return ScriptedProvider(
                entries,
                latency_s=profile.latency_s,
                model=profile.model,
                pricing=profile.pricing,
                timeout_s=profile.timeout_s,
            )
        case RecordProfile():
            inner = build_provider(profile.inner, section, base_dir=base, http_client=http_client)
            return RecordingProvider(inner, base / profile.cassette)
        case ReplayProfile():
            return ReplayProvider(base / profile.cassette, timeout_s=profile.timeout_s)
    raise LLMError(LLMErrorKind.CONFIG, f"profile {name!r} has an unknown provider")
