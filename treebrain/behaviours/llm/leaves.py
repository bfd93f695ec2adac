"""LLM leaves that never block a tick: ``llm.generate``, ``llm.validate`` and ``llm.tool_call``.

Each starts its call on a worker in :meth:`start`, returns RUNNING while it is in flight, and on a
halt cancels it; a result arriving after the halt is never written because only :meth:`poll` writes.
Transport retries happen inside the call's deadline (the worker's job); re-asking a model whose
answer was wrong is the idioms' job, never mixed in here. Every failure leaves the reason in the
``error`` output and the model's raw text in ``raw``.
"""

from __future__ import annotations

import abc
import json
from pathlib import Path
from typing import Any, ClassVar

import yaml
from py_trees.common import Status
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from treebrain.behaviours.base import AsyncAction, CheckEnv, NodeSetup
from treebrain.behaviours.llm.service import LLMService, check_profile
from treebrain.behaviours.ports import Port
from treebrain.llm import (
    Budget,
    Image,
    LLMCall,
    LLMError,
    LLMRequest,
    LLMResponse,
    Message,
    RetryPolicy,
    ToolSpec,
    parse_structured,
)
from treebrain.llm.prompting import PromptTemplate, TemplateError, render_prompt
from treebrain.llm.schema_check import validate as validate_schema
from treebrain.secrets import redact, redact_data

RESERVED_INPUTS = {"correction", "attempt", "images", "variables"}
LOADING = "loading the model's client (its deadline starts once it is loaded)"


class LLMParams(BaseModel):
    """A pydantic model, unlike most leaves' params: it nests the LLM profiles' own models (budget,
    retry, tools), and an LLM leaf's tree loads pydantic anyway."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, defer_build=True)

    profile: str | None = Field(None, description="LLM profile of the robot file (default: its default)")
    prompt: str | None = Field(None, description="Jinja2 template file for the user message")
    prompt_text: str | None = Field(None, description="inline Jinja2 template for the user message")
    system: str | None = Field(None, description="Jinja2 template file for the system prompt")
    system_text: str | None = Field(None, description="inline system prompt template")
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    max_tokens: int = Field(512, gt=0)
    timeout_s: float | None = Field(
        None, gt=0, description="deadline of the call, transport retries included"
    )
    budget: Budget | None = Field(None, description="limits for this leaf across the run")
    retry: RetryPolicy | None = Field(None, description="transport retries (429, 5xx, timeouts)")

    @model_validator(mode="after")
    def _one_prompt(self) -> LLMParams:
        if (self.prompt is None) == (self.prompt_text is None):
            raise ValueError("give exactly one of 'prompt' (a template file) or 'prompt_text'")
        if self.system is not None and self.system_text is not None:
            raise ValueError("give at most one of 'system' (a template file) or 'system_text'")
        return self


def _template(params: LLMParams, file_option: str, text_option: str, resolve: Any) -> PromptTemplate | None:
    path = getattr(params, file_option)
    if path is not None:
        return PromptTemplate.from_file(resolve(file_option, path))
    text = getattr(params, text_option)
    return None if text is None else PromptTemplate(text, f"params.{text_option}")


def load_json_or_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}") from None
    try:
        return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise ValueError(f"{path}: not valid {path.suffix.lstrip('.') or 'data'}: {error}") from None


class LLMAction(AsyncAction):
    """Common machinery: templates, the request, the call, the outcome."""

    Params: ClassVar[type[LLMParams]] = LLMParams
    variadic_inputs = True
    params: LLMParams
    base_outputs: ClassVar[dict[str, Port]] = {
        "error": Port(
            "str", "why the call failed (budget, timeout, unparseable answer, ...)", required=False
        ),
        "raw": Port("str", "the model's raw answer", required=False),
        "failure": Port(
            "dict[str, str]",
            "when the model could not be used: {cause, message} (missing_key, bad_key, overloaded, timeout, ...)",
            required=False,
        ),
        "usage": Port(
            "dict[str, any]", "tokens, cost, latency, provider and model of the call", required=False
        ),
    }
    base_inputs: ClassVar[dict[str, Port]] = {
        "variables": Port(
            "dict[str, any]", "template variables (other mapped inputs are added by name)", required=False
        ),
        "correction": Port(
            "list[str]", "issues of a previous answer: adds a CORRECTION section", required=False
        ),
        "attempt": Port("int", "attempt number shown in the CORRECTION section", required=False),
        "images": Port("list[dict[str, any]]", "images ({path} or {data, media_type})", required=False),
    }

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self.prompt = _template(self.params, "prompt", "prompt_text", setup.resolve)
        self.system = _template(self.params, "system", "system_text", setup.resolve)
        self.call: LLMCall | None = None
        self.request: LLMRequest | None = None

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        problems = check_profile(env.robot, params.profile)
        for file_option in ("prompt", "system"):
            path = getattr(params, file_option)
            if path is None:
                continue
            try:
                PromptTemplate.from_file(env.resolve(file_option, path))
            except TemplateError as error:
                problems.append(f"params.{file_option}: {error}")
        return problems

    @property
    def service(self) -> LLMService:
        return self.context.service(LLMService)

    # what subclasses vary ---------------------------------------------------------------------------
    def request_options(self) -> dict[str, Any]:
        """Extra request fields (schema, tools)."""
        return {}

    def extra_variables(self) -> dict[str, Any]:
        return {}

    def sampling(self) -> dict[str, Any]:
        """The request's temperature and answer budget (a subclass may take them from inputs)."""
        return {"temperature": self.params.temperature, "max_tokens": self.params.max_tokens}

    @abc.abstractmethod
    def on_response(self, response: LLMResponse) -> Status:
        """Turn a completed call into outputs and a status."""

    # the call -----------------------------------------------------------------------------------------
    def template_variables(self) -> dict[str, Any]:
        variables: dict[str, Any] = dict(self.read("variables") or {}) if self.is_bound("variables") else {}
        for port in self.input_ports():
            if port not in RESERVED_INPUTS and port not in self.inputs:
                variables[port] = self.read(port)
        variables.update(self.extra_variables())
        return variables

    def build_request(self) -> LLMRequest:
        variables = self.template_variables()
        correction = self.read("correction") if self.is_bound("correction") else None
        attempt = self.read("attempt") if self.is_bound("attempt") else None
        assert self.prompt is not None
        text = render_prompt(self.prompt, variables, correction, attempt)
        system = self.system.render({**variables, "attempt": attempt}) if self.system else ""
        images = (
            [Image.model_validate(item) for item in self.read("images") or []]
            if self.is_bound("images")
            else []
        )
        return LLMRequest(
            system=system,
            messages=[Message(role="user", content=text, images=images)],
            timeout_s=self.params.timeout_s,
            **self.sampling(),
            **self.request_options(),
        )

    def start(self) -> Status:
        for port in ("error", "raw", "failure"):
            if self.is_bound(port):
                self.blackboard.unset(self._output_keys[port], self.path)
        try:
            self.request = self.build_request()
            self.call = self.service.start(
                self.path, self.request, self.params.profile, self.params.budget, self.params.retry
            )
        except LLMError as error:
            return self.fail_call(error)
        except (TemplateError, ValidationError) as error:
            return self.fail(str(error))
        return self.waiting()

    def waiting(self) -> Status:
        """RUNNING, saying whether the provider is still being set up (its SDK imported)."""
        assert self.call is not None
        self.feedback_message = LOADING if self.call.loading else "waiting for the model"
        return Status.RUNNING

    def poll(self) -> Status:
        assert self.call is not None and self.request is not None
        if not self.call.done():
            return self.waiting()
        outcome = self.call.outcome()
        assert outcome is not None
        self.service.report(self.path, self.params.profile, self.request, outcome)
        if isinstance(outcome, LLMError):
            return self.fail_call(outcome)
        self.write(
            "usage",
            {
                "input_tokens": outcome.input_tokens,
                "output_tokens": outcome.output_tokens,
                "cost_usd": outcome.cost_usd,
                "latency_s": outcome.latency_s,
                "provider": outcome.provider,
                "model": outcome.model,
            },
        )
        self.write("raw", outcome.text)
        return self.on_response(outcome)

    def busy(self) -> bool:
        return self.call is not None and not self.call.done()

    def cancel(self) -> None:
        if self.call is not None:
            self.call.cancel()
            self.feedback_message = "cancelled"

    def write(self, port: str, value: Any) -> None:
        """Whatever a model said goes to the blackboard without secrets (a model may echo a key)."""
        super().write(port, redact_data(value))

    def fail(self, reason: str) -> Status:
        self.feedback_message = redact(reason)
        self.write("error", reason)
        return Status.FAILURE

    def fail_call(self, error: LLMError) -> Status:
        """The model could not be used: the reason, and the cause a person is told."""
        self.write("failure", {"cause": error.cause.value, "message": error.user_message()})
        return self.fail(str(error))


def _schema_param(value: dict[str, Any] | str | None, resolve: Any) -> dict[str, Any] | None:
    if value is None or isinstance(value, dict):
        return value
    loaded = load_json_or_yaml(resolve("schema", value))
    if not isinstance(loaded, dict):
        raise ValueError(f"schema file {value} must hold a JSON Schema object")
    return loaded


class GenerateParams(LLMParams):
    schema_: dict[str, Any] | str | None = Field(
        None, alias="schema", description="JSON Schema of the answer (inline, or a .json/.yaml file)"
    )
    schema_name: str = "output"
    strict_schema: bool = Field(
        True,
        description="false: an answer that is JSON but breaks the schema is still written to `result`, "
        "for pipelines that check and repair answers themselves (the schema still guides the model)",
    )


class Generate(LLMAction):
    """Asks a model for an answer (schema-valid JSON when a schema is given) and writes `result`.

    The `schema`, `temperature` and `max_tokens` inputs, when mapped and set, replace the params of
    the same names for one call: a pipeline whose schema or sampling changes per request (a creative
    command at temperature 1.0) prepares them on the blackboard.
    """

    type_name = "llm.generate"
    Params = GenerateParams
    params: GenerateParams
    inputs = {
        **LLMAction.base_inputs,
        "schema": Port(
            "dict[str, any]", "JSON Schema of this call's answer (instead of params.schema)", required=False
        ),
        "temperature": Port(
            "float", "sampling temperature of this call (instead of params.temperature)", required=False
        ),
        "max_tokens": Port(
            "int", "answer budget of this call (instead of params.max_tokens)", required=False
        ),
    }
    outputs = {"result": Port("any", "the parsed JSON (with a schema) or the text"), **LLMAction.base_outputs}

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self.schema = _schema_param(self.params.schema_, setup.resolve)

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        problems = super().check(params, env)
        try:
            _schema_param(params.schema_, env.resolve)
        except ValueError as error:
            problems.append(f"params.schema: {error}")
        return problems

    def given(self, port: str) -> Any:
        """An optional input's value, or None when it is not mapped or not set."""
        return self.read(port) if self.is_bound(port) else None

    def sampling(self) -> dict[str, Any]:
        chosen = super().sampling()
        for port in ("temperature", "max_tokens"):
            value = self.given(port)
            if value is not None:
                chosen[port] = value
        return chosen

    def request_options(self) -> dict[str, Any]:
        schema = self.given("schema") or self.schema
        return {"json_schema": schema, "schema_name": self.params.schema_name} if schema else {}

    def on_response(self, response: LLMResponse) -> Status:
        assert self.request is not None
        if self.request.json_schema is None:
            self.write("result", response.text)
            return Status.SUCCESS
        if response.parsed is not None:
            self.write("result", response.parsed)
            self.feedback_message = ""
            return Status.SUCCESS
        if not self.params.strict_schema:
            loose = parse_structured(response.text)
            if loose.ok:
                self.write("result", loose.value)
                self.feedback_message = "JSON that breaks the schema, passed on to be checked"
                return Status.SUCCESS
        return self.fail(f"the answer is not JSON valid against the schema: {response.text[:200]!r}")


VALIDATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"valid": {"type": "boolean"}, "issues": {"type": "array", "items": {"type": "string"}}},
    "required": ["valid", "issues"],
    "additionalProperties": False,
}


class ValidateParams(LLMParams):
    enabled: bool = Field(True, description="false: pass without calling (an optional reviewer switched off)")


class Validate(LLMAction):
    """An LLM reviews `candidate` and writes its `issues` (and `valid`); SUCCESS whenever it answered."""

    type_name = "llm.validate"
    Params = ValidateParams
    params: ValidateParams
    inputs = {
        "candidate": Port("any", "what to review (shown to the template as `candidate` JSON)"),
        **LLMAction.base_inputs,
    }
    outputs = {
        "issues": Port("list[str]", "problems found; empty when valid"),
        "valid": Port("bool", "the reviewer's verdict", required=False),
        **LLMAction.base_outputs,
    }

    def extra_variables(self) -> dict[str, Any]:
        return {"candidate": json.dumps(self.read("candidate"), ensure_ascii=False, default=str)}

    def request_options(self) -> dict[str, Any]:
        return {"json_schema": VALIDATION_SCHEMA, "schema_name": "review"}

    def start(self) -> Status:
        if not self.params.enabled:
            self.write("issues", [])
            self.write("valid", True)
            self.feedback_message = "disabled"
            return Status.SUCCESS
        return super().start()

    def on_response(self, response: LLMResponse) -> Status:
        verdict = response.parsed
        if not isinstance(verdict, dict):
            return self.fail(f"the review is not valid JSON: {response.text[:200]!r}")
        issues = [str(issue) for issue in verdict.get("issues", [])]
        valid = bool(verdict.get("valid")) and not issues
        self.write("issues", issues)
        self.write("valid", valid)
        self.feedback_message = "valid" if valid else f"{len(issues)} issue(s)"
        return Status.SUCCESS


class ToolCallParams(LLMParams):
    tools: list[ToolSpec] | str = Field(description="tool declarations inline, or a .json/.yaml file of them")
    require_tool: bool = Field(True, description="FAILURE when the model answers without choosing a tool")


class ToolChoice(LLMAction):
    """The model chooses one of the declared tools; its arguments are checked against the tool's schema."""

    type_name = "llm.tool_call"
    Params = ToolCallParams
    params: ToolCallParams
    inputs = LLMAction.base_inputs
    outputs = {
        "tool_call": Port("dict[str, any]", "{name, arguments} of the chosen tool"),
        "text": Port("str", "any text the model wrote besides", required=False),
        **LLMAction.base_outputs,
    }

    def __init__(self, setup: NodeSetup) -> None:
        super().__init__(setup)
        self.tools = self.load_tools(self.params.tools, setup.resolve)

    @staticmethod
    def load_tools(tools: list[ToolSpec] | str, resolve: Any) -> list[ToolSpec]:
        if not isinstance(tools, str):
            return tools
        loaded = load_json_or_yaml(resolve("tools", tools))
        try:
            return [ToolSpec.model_validate(item) for item in loaded]
        except (ValidationError, TypeError) as error:
            raise ValueError(f"{tools}: not a list of tool declarations: {error}") from None

    @classmethod
    def check(cls, params: Any, env: CheckEnv) -> list[str]:
        problems = super().check(params, env)
        try:
            cls.load_tools(params.tools, env.resolve)
        except ValueError as error:
            problems.append(f"params.tools: {error}")
        return problems

    def request_options(self) -> dict[str, Any]:
        return {"tools": self.tools, "tool_choice": "required" if self.params.require_tool else "auto"}

    def on_response(self, response: LLMResponse) -> Status:
        self.write("text", response.text)
        if not response.tool_calls:
            return self.fail("the model chose no tool") if self.params.require_tool else Status.SUCCESS
        chosen = response.tool_calls[0]
        declared = {tool.name: tool for tool in self.tools}.get(chosen.name)
        if declared is None:
            return self.fail(f"the model called an undeclared tool '{chosen.name}'")
        problems = validate_schema(chosen.arguments, declared.parameters)
        if problems:
            return self.fail(f"arguments of '{chosen.name}' do not match its schema: {'; '.join(problems)}")
        self.write("tool_call", {"name": chosen.name, "arguments": chosen.arguments})
        self.feedback_message = chosen.name
        return Status.SUCCESS


BEHAVIOURS = (Generate, Validate, ToolChoice)
