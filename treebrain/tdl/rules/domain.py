"""Domain rules R-DOM-001..003: pick-and-place conventions (standard pattern, safe heights, delays)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from treebrain.tdl.findings import Level
from treebrain.tdl.rules.facts import TraceEvent, number
from treebrain.tdl.rules.registry import Hit, RuleContext, RuleSet

rules = RuleSet()

_CYCLE = ("approach", "descend", "close", "ascend", "travel", "descend", "open", "ascend")
_SAFE_MARKERS = ("safe", "안전")


def _tokens(events: Sequence[TraceEvent], tolerance: float) -> list[str]:
    """Abstract the trace into pattern steps: home, open, close, approach, descend, ascend, travel."""
    tokens: list[str] = []
    previous_z: float | None = None
    for event in events:
        if event.kind == "gripper" and event.gripper in ("open", "close"):
            tokens.append(event.gripper)
        elif event.kind == "motion":
            z = event.z
            name = next((t.name for t in event.invocation.targets if t.name), "") or ""
            if "home" in name.casefold() or (event.pose is not None and event.pose.space == "joint"):
                tokens.append("home")
            elif z is None or previous_z is None:
                tokens.append("approach")
            elif z < previous_z - tolerance:
                tokens.append("descend")
            elif z > previous_z + tolerance:
                tokens.append("ascend")
            else:
                tokens.append("travel")
            previous_z = z
    return tokens


def common_subsequence_length(pattern: Sequence[str], observed: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel over `pattern` (Allison-Dix / Hyyro).

    Bit i of `v` is cleared once pattern[: i + 1] can match one more item; the LCS is the number of
    cleared bits. O(len(observed)) big-integer steps instead of a len(pattern) x len(observed) table.
    """
    matches: dict[str, int] = {}
    for index, item in enumerate(pattern):
        matches[item] = matches.get(item, 0) | (1 << index)
    width = (1 << len(pattern)) - 1
    v = width
    for item in observed:
        u = v & matches.get(item, 0)
        v = ((v + u) | (v - u)) & width
    return len(pattern) - v.bit_count()


@rules.rule(
    "R-DOM-001", Level.DOMAIN, {"non_standard": ["match", "required"]}, params=["min_match", "tolerance_mm"]
)
def pick_and_place_pattern(ctx: RuleContext) -> Iterator[Hit]:
    """Pick-and-place follows home, open, approach, descend, grasp, lift, move, descend, release, retreat, home."""
    events = ctx.events
    grips = [event for event in events if event.kind == "gripper"]
    cycles = sum(1 for event in grips if event.gripper == "close")
    first_close = next((event.position for event in grips if event.gripper == "close"), None)
    if first_close is None or not any(e.gripper == "open" and e.position > first_close for e in grips):
        return  # not a pick-and-place: nothing is released after a grasp
    observed = _tokens(events, ctx.params["tolerance_mm"])[:2000]
    pattern = ["home", "open", *(_CYCLE * min(cycles, 50)), "home"]
    match = common_subsequence_length(pattern, observed) / len(pattern)
    if match < ctx.params["min_match"]:
        first = grips[0].invocation
        fields = {"match": number(100 * match), "required": number(100 * ctx.params["min_match"])}
        yield Hit("non_standard", first.line, first.column, fields)


@rules.rule("R-DOM-002", Level.DOMAIN, {"too_low": ["pose", "z", "min_z"]}, params=["min_safe_z_mm"])
def safe_height(ctx: RuleContext) -> Iterator[Hit]:
    """Poses named as safe (``*Safe*``, ``*안전*``) are at least 100 mm up."""
    minimum = ctx.params["min_safe_z_mm"]
    for pose in ctx.model.poses:
        xyz = pose.xyz
        name = (pose.name or "").casefold()
        if xyz is not None and any(marker in name for marker in _SAFE_MARKERS) and xyz[2] < minimum:
            fields = {"pose": pose.label, "z": number(xyz[2]), "min_z": number(minimum)}
            yield Hit("too_low", pose.line, pose.column, fields)


@rules.rule(
    "R-DOM-003",
    Level.DOMAIN,
    {"missing_delay": [], "delay_out_of_range": ["duration", "low", "high"]},
    params=["min_delay_s", "max_delay_s"],
)
def delay_after_gripper(ctx: RuleContext) -> Iterator[Hit]:
    """Every gripper action is followed by a Delay of 0.3-2.0 s so the grip settles."""
    low, high = ctx.params["min_delay_s"], ctx.params["max_delay_s"]
    events = ctx.events
    reported: set[int] = set()
    for position, event in enumerate(events):
        following = events[position + 1] if position + 1 < len(events) else None
        if event.kind != "gripper" or event.gripper not in ("open", "close"):
            continue
        line, column = event.invocation.line, event.invocation.column
        if line in reported:
            continue
        reported.add(line)
        if following is None or following.kind != "delay":
            yield Hit("missing_delay", line, column)
            continue
        duration = following.invocation.duration
        if duration is not None and not low <= duration <= high:
            fields = {"duration": number(duration), "low": number(low), "high": number(high)}
            yield Hit("delay_out_of_range", following.invocation.line, following.invocation.column, fields)
