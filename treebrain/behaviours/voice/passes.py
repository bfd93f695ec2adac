"""The voice pipeline's three passes as leaves around ``llm.generate``: the prompt of each pass, reading
pass 1, pass 2 (the Python rules always, merged with the LLM validator's verdict), pass 3's
acceptance, the result dict, and the result of an answer that could not be read. The LLM calls stay in
the ``llm.*`` leaves.
"""

from __future__ import annotations

from typing import ClassVar

from py_trees.common import Status

from treebrain.behaviours.ports import Port
from treebrain.behaviours.voice.kit import RESULT, RESULT_DOC, VoiceLeaf, robot_voice_settings
from treebrain.voice.classify import Classification
from treebrain.voice.passes import (
    Generation,
    Pass2Outcome,
    needs_pass3,
    parse_generation,
    read_review,
    review_pass1,
    review_pass3,
)
from treebrain.voice.prompts import PromptRequest
from treebrain.voice.result import LlmFailureInfo, assemble_result, unparseable_result


class PromptLeaf(VoiceLeaf):
    """Writes one LLM call's rendered prompt (`prompt`: system and user text), schema and sampling."""

    outputs: ClassVar[dict[str, Port]] = {
        "prompt": Port("dict[str, str]", "{system, user}: the llm.generate template variables"),
        "schema": Port("dict[str, any]", "JSON Schema of the answer"),
        "temperature": Port("float"),
        "max_tokens": Port("int"),
    }

    def next_sample(self) -> tuple[bool, float | None]:
        """Whether one more answer may be asked for and its temperature: the first at the pass's own
        (None), then samples at ``passes.sample_temperature`` while fewer than ``passes.samples`` were
        asked for and ``passes.sample_budget_s`` has not passed since `started` (when the command's
        first answer was asked for: pass 1 and pass 3 share one budget); counts on `attempt`."""
        settings = self.kit.settings.passes
        attempt: int = self.read("attempt") or 0
        now = self.context.clock.now()
        known: float | None = self.read("started")
        started = now if known is None else known
        if attempt >= settings.samples or (attempt > 0 and now - started > settings.sample_budget_s):
            self.feedback_message = f"no more samples after {attempt} answer(s) in {now - started:.1f} s"
            return False, None
        self.write("attempt", attempt + 1)
        self.write("started", started)
        return True, None if attempt == 0 else settings.sample_temperature

    def publish_request(self, request: PromptRequest) -> Status:
        self.write("prompt", {"system": request.system, "user": request.user})
        self.write("schema", request.json_schema)
        self.write("temperature", request.temperature)
        self.write("max_tokens", request.max_tokens)
        self.feedback_message = f"{request.purpose} at temperature {request.temperature:g}"
        return Status.SUCCESS


SAMPLE_INPUTS = {
    "attempt": Port("int", "answers asked for so far", required=False),
    "started": Port("float", "when the first answer was asked for (clock seconds)", required=False),
}
SAMPLE_OUTPUTS = {"attempt": Port("int", required=False), "started": Port("float", required=False)}


class GeneratePrompt(PromptLeaf):
    """Pass 1: the generation prompt (creative axes and scene included); creative is temperature 1.0.

    With `attempt` mapped each run is one answer, as in pass 3: an answer that could not be read (cut
    off at its token budget) is followed by samples, and FAILURE ends them -- at once when the model
    could not be used at all (`failure`: no key, timeout), since another answer would fail the same way.
    """

    type_name = "voice.generate_prompt"
    inputs = {
        "text": Port("str"),
        "classification": Port("VoiceClassification"),
        "creative": Port("optional[VoiceCreative]", required=False),
        "scene": Port("ArmScene", "the cell, shown to the model", required=False),
        "active_zone": Port("str", required=False),
        **SAMPLE_INPUTS,
        "failure": Port(
            "dict[str, str]", "why the model could not be used for the last answer", required=False
        ),
    }
    outputs = {**PromptLeaf.outputs, **SAMPLE_OUTPUTS}

    def request(self, corrections: list[str] | None, temperature: float | None = None) -> PromptRequest:
        text = self.read("text")
        return self.kit.prompts.generate(
            text,
            self.read("classification"),
            scene=self.read("scene"),
            active_zone=self.read("active_zone"),
            creative=self.read("creative"),
            corrections=corrections,
            examples=self.kit.examples.nearest(text),
            temperature=temperature,
        )

    def update(self) -> Status:
        if "attempt" not in self.input_ports():
            return self.publish_request(self.request(None))
        if self.read("attempt") and self.read("failure") is not None:
            self.feedback_message = "the model could not be used: no other answer is asked for"
            return Status.FAILURE
        more, temperature = self.next_sample()
        return self.publish_request(self.request(None, temperature)) if more else Status.FAILURE


class RegeneratePrompt(GeneratePrompt):
    """Pass 3: the generation prompt with the CORRECTION REQUIRED section for pass 2's issues. Each
    run is one answer (`attempt` counts them): the first at the regenerate temperature, later ones
    sampled hotter; FAILURE once ``passes.samples`` answers were asked for or the sampling budget is
    spent, so the retry around pass 3 stops."""

    type_name = "voice.regenerate_prompt"
    inputs = {
        **{name: port for name, port in GeneratePrompt.inputs.items() if name != "failure"},
        "pass2": Port("VoicePass2"),
    }

    def update(self) -> Status:
        pass2: Pass2Outcome = self.read("pass2")
        more, temperature = self.next_sample()
        return self.publish_request(self.request(pass2.retry_issues, temperature)) if more else Status.FAILURE


class ReviewPrompt(PromptLeaf):
    """Pass 2's LLM validator prompt; FAILURE when no LLM review is wanted (switched off, or empty)."""

    type_name = "voice.review_prompt"
    inputs = {"text": Port("str"), "generation": Port("VoiceGeneration")}

    def update(self) -> Status:
        generation: Generation = self.read("generation")
        if not self.kit.settings.llm_validator:
            self.feedback_message = "the LLM validator is switched off"
            return Status.FAILURE
        if not generation.sequence:
            self.feedback_message = "nothing to review"
            return Status.FAILURE
        request = self.kit.prompts.validate(self.read("text"), generation.interpretation, generation.sequence)
        return self.publish_request(request)


class ReadGeneration(VoiceLeaf):
    """Reads pass 1's answer as a generation; FAILURE when it does not have that shape."""

    type_name = "voice.read_generation"
    inputs = {"answer": Port("any", "the parsed JSON of pass 1")}
    outputs = {"generation": Port("VoiceGeneration")}

    def update(self) -> Status:
        generation = parse_generation(self.read("answer"))
        if generation is None:
            self.feedback_message = "the answer does not have the fields of a generation"
            return Status.FAILURE
        self.write("generation", generation)
        self.feedback_message = f"{len(generation.sequence)} step(s), confidence {generation.confidence:g}"
        return Status.SUCCESS


class Review(VoiceLeaf):
    """Pass 2: the Python rules (always, repairing what they can) merged with the LLM verdict, if any."""

    type_name = "voice.review"
    inputs = {
        "generation": Port("VoiceGeneration"),
        "verdict": Port("any", "the LLM validator's parsed answer", required=False),
        "verdict_error": Port("str", "why the LLM validator call failed", required=False),
        "verdict_raw": Port("str", "the LLM validator's raw answer", required=False),
        "classification": Port("VoiceClassification", "what the command asks for"),
        "active_zone": Port("str", "the zone active before this command", required=False),
        "scene": Port("ArmScene", "the cell before this command", required=False),
        "creative": Port("optional[VoiceCreative]", "the axes a creative plan must follow", required=False),
    }
    outputs = {"pass2": Port("VoicePass2"), "retry_issues": Port("list[str]", "issues worth a pass 3")}

    def update(self) -> Status:
        verdict, validator_error = read_review(
            self.read("verdict"),
            error=self.read("verdict_error"),
            answered=self.read("verdict_raw") is not None,
        )
        classification: Classification = self.read("classification")
        generation: Generation = self.read("generation")
        outcome = review_pass1(
            generation,
            self.kit.iset,
            verdict=verdict,
            validator_error=validator_error,
            request=classification.request,
            context=self.plan_context(generation),
            creative=self.read("creative"),
        )
        self.write("pass2", outcome)
        # an unchecked command gets no pass 3: no plan that does anything could be checked
        self.write("retry_issues", outcome.retry_issues if needs_pass3(outcome) else [])
        self.feedback_message = f"{len(outcome.issues)} issue(s)" if outcome.issues else "valid"
        return Status.SUCCESS


class Recheck(VoiceLeaf):
    """Pass 3's answer is kept only when it passes every rule; issues it fixed are tagged [P3 fixed].
    FAILURE when it is not kept, so the next sample is asked for (if any is left)."""

    type_name = "voice.recheck"
    inputs = {
        "pass2": Port("VoicePass2"),
        "answer": Port("any", "the parsed JSON of pass 3"),
        "classification": Port("VoiceClassification", "what the command asks for"),
        "active_zone": Port("str", "the zone active before this command", required=False),
        "scene": Port("ArmScene", "the cell before this command", required=False),
        "creative": Port("optional[VoiceCreative]", "the axes a creative plan must follow", required=False),
    }
    outputs = {"pass3": Port("VoicePass3")}

    def update(self) -> Status:
        classification: Classification = self.read("classification")
        regenerated = parse_generation(self.read("answer"))
        outcome = review_pass3(
            self.read("pass2"),
            regenerated,
            self.kit.iset,
            request=classification.request,
            context=self.plan_context(regenerated),
            creative=self.read("creative"),
        )
        self.write("pass3", outcome)
        self.feedback_message = "fixed" if outcome.fixed else "pass 2 stands"
        return Status.SUCCESS if outcome.fixed else Status.FAILURE


class Assemble(VoiceLeaf):
    """The result dict after the three passes: a plan pass 3 did not fix is refused, or run with its
    changes listed when the robot file's ``voice: {repair: allow}`` says so."""

    type_name = "voice.assemble"
    inputs = {
        "generation": Port("VoiceGeneration"),
        "pass2": Port("VoicePass2"),
        "pass3": Port("VoicePass3", required=False),
        "classification": Port("VoiceClassification"),
        "creative": Port("optional[VoiceCreative]", required=False),
        "notice": Port("str", required=False),
    }
    outputs = {"result": Port(RESULT, RESULT_DOC)}

    def update(self) -> Status:
        result = assemble_result(
            self.read("generation"),
            self.read("pass2"),
            self.read("pass3"),
            classification=self.read("classification"),
            creative=self.read("creative"),
            notice=self.read("notice"),
            repair=robot_voice_settings(self.context.robot).repair,
            strict_threshold=self.kit.settings.strict_threshold,
        )
        self.write("result", result.as_dict())
        self.feedback_message = f"confidence {result.confidence:g}, {len(result.sequence)} step(s)"
        return Status.SUCCESS


class Unparseable(VoiceLeaf):
    """Pass 1 gave nothing usable -- the model could not be used (`failure` says why) or answered
    with no plan: confidence 0, nothing to do, the raw answer kept."""

    type_name = "voice.unparseable"
    inputs = {
        "raw": Port("str", "the model's raw answer", required=False),
        "error": Port("str", "why the call or the parse failed", required=False),
        "failure": Port(
            "dict[str, str]", "why the model could not be used: {cause, message}", required=False
        ),
        "classification": Port("VoiceClassification"),
        "notice": Port("str", required=False),
    }
    outputs = {"result": Port(RESULT, RESULT_DOC)}

    def update(self) -> Status:
        classification: Classification = self.read("classification")
        raw = self.read("raw") or self.read("error")
        failure = self.read("failure")
        result = unparseable_result(
            raw,
            is_creative=classification.is_creative,
            notice=self.read("notice"),
            failure=None if failure is None else LlmFailureInfo.model_validate(failure),
        )
        self.write("result", result.as_dict())
        assert result.llm_failure is not None
        self.feedback_message = f"{result.llm_failure.cause}: confidence 0"
        return Status.SUCCESS


BEHAVIOURS = (
    GeneratePrompt,
    RegeneratePrompt,
    ReviewPrompt,
    ReadGeneration,
    Review,
    Recheck,
    Assemble,
    Unparseable,
)
