"""The pass-2 rule validators in Python: the floor that holds whatever an LLM validator says.

Each rule is its own function over a sequence, judging each step on its own and returning issues;
an issue either removes its step or carries a replacement (a known alias mapped to its canonical name, a ``transfer`` into an
assembly zone turned into ``set_active_zone`` + ``add_layer``). :func:`enforce_rules` applies the
repairs and re-checks until the sequence is clean, so its output only ever holds valid calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict

from treebrain.voice.isa import InstructionSet, ParamKind
from treebrain.voice.params import signature_problems, value_problem
from treebrain.voice.steps import Step


class RuleIssue(BaseModel):
    """One violation: which rule, which step (0-based), what is wrong, and how it is repaired."""

    model_config = ConfigDict(frozen=True)

    rule: str
    step: int
    message: str
    replacement: list[Step] | None = None
    normalised: bool = False
    """The repair only spells a name the instruction set's way ("ham" is its alias of meat): the plan
    means the same. Every other repair or removal changes the plan."""
    original: str = ""
    """The step as the plan had it (``set_speed(speed=careful)``), for telling the user what would change."""

    def text(self) -> str:
        action = "removed" if self.replacement is None else ("normalised" if self.normalised else "repaired")
        return f"step {self.step + 1}: {self.message} ({action})"


Rule = Callable[[Sequence[Step], InstructionSet], list[RuleIssue]]


def rule_valid_composites(sequence: Sequence[Step], iset: InstructionSet) -> list[RuleIssue]:
    """Rule 1: every instruction is a tier-1/2 composite called with its own parameters.

    Parameters the composite does not take are dropped (a repair, reported); an unknown
    instruction or a missing required parameter removes the step.
    """
    issues: list[RuleIssue] = []
    for index, step in enumerate(sequence):
        signature = iset.signature(step.instruction)
        unknown = [] if signature is None else [name for name in step.params if name not in signature]
        if unknown:
            kept = {key: value for key, value in step.params.items() if key not in unknown}
            message = f"{step.instruction} has no parameter {', '.join(map(repr, unknown))}; dropped"
            repaired = [Step(instruction=step.instruction, params=kept)]
            issues.append(
                RuleIssue(rule="valid_composites", step=index, message=message, replacement=repaired)
            )
            continue
        problems = signature_problems(step, iset)
        if problems:
            issues.append(RuleIssue(rule="valid_composites", step=index, message=problems[0]))
    return issues


def rule_valid_items(sequence: Sequence[Step], iset: InstructionSet) -> list[RuleIssue]:
    """Rule 2: every item is one the cell has; a known alias ("ham") is mapped to its item."""
    return _kind_rule("valid_items", ("item",), sequence, iset, iset.item_names_by_alias())


def rule_valid_locations(sequence: Sequence[Step], iset: InstructionSet) -> list[RuleIssue]:
    """Rule 3: every location is a known location (assembly zones are rule 5's business)."""
    zones = iset.zone_names_by_alias()
    return [
        issue
        for issue in _kind_rule("valid_locations", ("location", "place"), sequence, iset, {})
        if str(sequence[issue.step].params.get("location", "")).lower() not in zones
    ]


def rule_valid_directions(sequence: Sequence[Step], iset: InstructionSet) -> list[RuleIssue]:
    """Rule 4: every direction is one of the arm's six."""
    return _kind_rule("valid_directions", ("direction",), sequence, iset, {})


def rule_assembly_uses_add_layer(sequence: Sequence[Step], iset: InstructionSet) -> list[RuleIssue]:
    """Rule 5: building in an assembly zone uses add_layer, never transfer into the zone. (place_at
    into a zone is how an item already in the gripper becomes the zone's next layer: no rule against
    it, the compiler stacks it like add_layer.)"""
    zones = iset.zone_names_by_alias()
    issues: list[RuleIssue] = []
    for index, step in enumerate(sequence):
        zone = zones.get(str(step.params.get("location", "")).lower())
        if zone is None or step.instruction != "transfer":
            continue
        message = f"{step.instruction} used for assembly zone {zone} — should be add_layer"
        replacement = None
        if step.instruction == "transfer" and "item" in step.params:
            replacement = [
                Step(instruction="set_active_zone", params={"zone": zone}),
                Step(instruction="add_layer", params={"item": step.params["item"]}),
            ]
        issues.append(
            RuleIssue(rule="assembly_uses_add_layer", step=index, message=message, replacement=replacement)
        )
    return issues


def rule_valid_zones(sequence: Sequence[Step], iset: InstructionSet) -> list[RuleIssue]:
    """Rule 6: set_active_zone names an assembly zone; a spatial word ("left") is mapped to one."""
    return _kind_rule("valid_zones", ("zone",), sequence, iset, iset.zone_names_by_alias())


def rule_valid_motion_values(sequence: Sequence[Step], iset: InstructionSet) -> list[RuleIssue]:
    """Speeds, distances and durations resolve (a profile, an alias or a positive number)."""
    return _kind_rule("valid_motion_values", ("speed", "distance", "seconds"), sequence, iset, {})


RULES: tuple[Rule, ...] = (
    rule_valid_composites,
    rule_valid_items,
    rule_valid_locations,
    rule_valid_directions,
    rule_assembly_uses_add_layer,
    rule_valid_zones,
    rule_valid_motion_values,
)


class RuleOutcome(BaseModel):
    """A sequence that passes every rule, and every issue found on the way there."""

    sequence: list[Step]
    issues: list[RuleIssue]

    def messages(self) -> list[str]:
        return [issue.text() for issue in self.issues]

    def changes(self) -> list[str]:
        """What validation had to change in the plan, one phrase per step ("drop `set_speed(careful)`:
        it is not a valid instruction"); a step only spelled differently is no change."""
        changed: dict[int, str] = {}
        for issue in self.issues:
            if not issue.normalised and issue.step not in changed:
                verb = "drop" if issue.replacement is None else "rewrite"
                changed[issue.step] = f"{verb} `{issue.original}` ({issue.message})"
        return list(changed.values())


def check_rules(
    sequence: Sequence[Step], iset: InstructionSet, rules: Sequence[Rule] = RULES
) -> list[RuleIssue]:
    """Every issue every rule finds, in rule order."""
    return [issue for rule in rules for issue in rule(sequence, iset)]


def enforce_rules(
    sequence: Sequence[Step], iset: InstructionSet, rules: Sequence[Rule] = RULES, max_rounds: int = 3
) -> RuleOutcome:
    """Repair or remove offending steps until no rule objects; issues keep their original step number.

    Every rule judges steps one at a time, so each step is settled on its own: a step with an issue
    that has no repair is removed (all its issues are reported as removals); otherwise its first
    repair replaces it and the replacement is checked again, at most `max_rounds` times.
    """
    kept: list[Step] = []
    found: list[RuleIssue] = []
    for index, step in enumerate(sequence):
        settled, issues = _settle(step, iset, rules, max_rounds)
        kept.extend(settled)
        found.extend(issue.model_copy(update={"step": index, "original": step.short()}) for issue in issues)
    return RuleOutcome(sequence=kept, issues=found)


def _settle(
    step: Step, iset: InstructionSet, rules: Sequence[Rule], max_rounds: int
) -> tuple[list[Step], list[RuleIssue]]:
    pending = [step]
    issues: list[RuleIssue] = []
    for round_number in range(max_rounds):
        settled: list[Step] = []
        for candidate in pending:
            own = check_rules([candidate], iset, rules)
            if not own:
                settled.append(candidate)
            elif round_number == max_rounds - 1 or any(issue.replacement is None for issue in own):
                issues.extend(
                    issue.model_copy(update={"replacement": None, "normalised": False}) for issue in own
                )
            else:
                issues.append(own[0])
                settled.extend(own[0].replacement or [])
        if settled == pending:
            break
        pending = settled
    return pending, issues


def _kind_rule(
    rule: str,
    kinds: tuple[ParamKind, ...],
    sequence: Sequence[Step],
    iset: InstructionSet,
    aliases: dict[str, str],
) -> list[RuleIssue]:
    """Issues for parameters of the given kinds whose values are invalid; aliases become repairs."""
    issues: list[RuleIssue] = []
    for index, step in enumerate(sequence):
        signature = iset.signature(step.instruction) or {}
        for key, value in step.params.items():
            spec = signature.get(key)
            if spec is None or spec.kind not in kinds or value is None:
                continue
            problem = value_problem(spec, value, iset)
            if problem is None:
                continue
            canonical = aliases.get(str(value).lower())
            if canonical is not None and value_problem(spec, canonical, iset) is None:
                fixed = Step(instruction=step.instruction, params={**step.params, key: canonical})
                message = f"{step.instruction}.{key}: {value!r} means {canonical!r}"
                issues.append(
                    RuleIssue(rule=rule, step=index, message=message, replacement=[fixed], normalised=True)
                )
            else:
                issues.append(
                    RuleIssue(rule=rule, step=index, message=f"{step.instruction}.{key}: {problem}")
                )
    return issues


def sequence_issues(sequence: Sequence[Step], iset: InstructionSet) -> list[str]:
    """What the rules find in `sequence`, as the issue lines pass 2 reports (the rule validator)."""
    return enforce_rules(sequence, iset).messages()
