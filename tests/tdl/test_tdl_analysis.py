from __future__ import annotations

from collections.abc import Callable

from treebrain.tdl.binding import bind_arguments
from treebrain.tdl.commands import ParamSpec
from treebrain.tdl.model import ProgramModel, SignatureIssue
from treebrain.tdl.nodes import Argument, NumberLit

PROGRAM = """\
DEFINE Home = PosJ(0, 0, 90, 0, 90, 0);
GOAL Main_Process() {
    SPAWN Initialize_Process() WITH WAIT;
    SPAWN Execute_Process() WITH WAIT;
}
GOAL Initialize_Process() {
    SPAWN Assign(P1, PosX(300, 0, 50, 180, 0, 180)) WITH WAIT;
    SPAWN Assign(destination=P2, source=P1) WITH WAIT;
    v = 2 * 60;
}
GOAL Execute_Process() {
    SPAWN MoveJoint(Home, 30, 40, 0, 0) WITH WAIT;
    SPAWN MoveLinear(target_pose=P2, velocity=v, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveLinear(target_pose=P1 + Trans(0, 0, 100, 0, 0, 0), velocity=v, acceleration=50, tool=0, blending_radius=0) WITH WAIT;
    SPAWN MoveJoint((0, -90, 90, 0, 90, 0), 30, 40, 0, 0) WITH WAIT;
    SPAWN Assign(P1, PosX(400, 0, 60, 180, 0, 180)) WITH WAIT;
    SPAWN MoveLinear(P1, 100, 50, 0, 0) WITH WAIT;
    SPAWN MoveLinear(P2, 100, 50, 0, 0) WITH WAIT;
    SPAWN MoveLinear(P9, 100, 50, 0, 0) WITH WAIT;
}
"""


def params(*names: str, optional: tuple[str, ...] = ()) -> list[ParamSpec]:
    return [ParamSpec(name=name, required=name not in optional) for name in names]


def arg(name: str | None, value: float, column: int) -> Argument:
    return Argument(
        name=name, value=NumberLit(value=value, text=str(value), line=1, column=column), line=1, column=column
    )


def test_binding_maps_positional_then_keyword_arguments() -> None:
    bound, issues = bind_arguments(
        [arg(None, 1, 1), arg("c", 3, 5)], params("a", "b", "c", optional=("b",)), "Cmd", 1, 1
    )
    assert sorted(bound) == ["a", "c"]
    assert issues == []


def test_binding_reports_every_misfit_with_its_position() -> None:
    # the positional 2 after the keyword still fills the second parameter, as its position says
    _, issues = bind_arguments(
        [arg("velocty", 1, 10), arg(None, 2, 20), arg("a", 3, 30), arg("a", 4, 40)],
        params("a", "velocity", "c"),
        "Cmd",
        7,
        3,
    )
    assert issues == [
        SignatureIssue(
            variant="unknown_parameter",
            command="Cmd",
            param="velocty",
            suggestion="velocity",
            line=1,
            column=10,
        ),
        SignatureIssue(
            variant="positional_after_keyword", command="Cmd", param="argument 2", line=1, column=20
        ),
        SignatureIssue(variant="duplicate_parameter", command="Cmd", param="a", line=1, column=40),
        SignatureIssue(variant="missing_parameter", command="Cmd", param="c", line=7, column=3),
    ]


def test_too_many_positional_arguments() -> None:
    args = [arg(None, 1, 1), arg(None, 2, 4)]
    _, issues = bind_arguments(args, params("a"), "Cmd", 1, 1)
    assert [(issue.variant, issue.param) for issue in issues] == [("too_many_arguments", "argument 2")]


def test_poses_from_define_assign_inline_and_offsets(analyse: Callable[[str], ProgramModel]) -> None:
    model = analyse(PROGRAM)
    assert [(p.name, p.origin, p.pose_type, p.space, p.values[:3], p.line) for p in model.poses] == [
        ("Home", "define", "PosJ", "joint", (0.0, 0.0, 90.0), 1),
        ("P1", "assign", "PosX", "cartesian", (300.0, 0.0, 50.0), 7),
        (None, "inline", None, "joint", (0.0, -90.0, 90.0), 15),  # the tuple's space comes from MoveJoint
        ("P1", "assign", "PosX", "cartesian", (400.0, 0.0, 60.0), 16),
        (None, "inline", None, "cartesian", (300.0, 0.0, 150.0), 14),  # P1 + Trans(0, 0, 100, ...)
    ]
    assert model.poses[4].label == "P1 + Trans(0, 0, 100, 0, 0, 0)"
    assert model.named_poses == {"Home": (0,), "P1": (1, 3)}
    assert model.scalars == {"v": 120.0}
    assert model.other_names == ("P2",)


def test_targets_resolve_statically(analyse: Callable[[str], ProgramModel]) -> None:
    model = analyse(PROGRAM)
    moves = [inv for inv in model.invocations if inv.action == "motion"]
    assert [(t.name, t.status, t.pose) for inv in moves for t in inv.targets] == [
        ("Home", "defined", 0),
        ("P2", "defined", 1),
        (None, "literal", 4),
        (None, "literal", 2),
        ("P1", "defined", 1),
        ("P2", "defined", 1),
        ("P9", "undefined", None),
    ]


def test_trace_follows_main_process_and_reassignments(analyse: Callable[[str], ProgramModel]) -> None:
    model = analyse(PROGRAM)
    assert model.entry_goals == ("Main_Process",)
    assert model.phase_order == ("Initialize_Process", "Execute_Process")
    commands = [(model.invocations[step.invocation].command, step.pose) for step in model.trace]
    assert commands == [
        ("Assign", None),
        ("Assign", None),
        ("MoveJoint", 0),
        ("MoveLinear", 1),
        ("MoveLinear", 4),
        ("MoveJoint", 2),
        ("Assign", None),
        ("MoveLinear", 3),  # P1 re-assigned
        ("MoveLinear", 1),  # P2 kept the value it copied
        ("MoveLinear", None),
    ]


def test_use_before_assignment_is_recorded_on_the_step(analyse: Callable[[str], ProgramModel]) -> None:
    model = analyse(
        "GOAL Execute_Process() {\n"
        "  SPAWN MoveLinear(P1, 100, 50, 0, 0) WITH WAIT;\n"
        "  SPAWN Assign(P1, PosX(300, 0, 50, 180, 0, 180)) WITH WAIT;\n}\n"
    )
    assert model.trace[0].unbound == ("P1",)
    assert model.trace[0].pose == 0


def test_goals_spawning_each_other_in_a_cycle_do_not_loop(analyse: Callable[[str], ProgramModel]) -> None:
    model = analyse(
        "GOAL A() { SPAWN B() WITH WAIT; SPAWN End() WITH WAIT; }\nGOAL B() { SPAWN A() WITH WAIT; }\n"
    )
    assert model.entry_goals == ("A", "B")
    assert [model.invocations[step.invocation].command for step in model.trace] == ["End", "End"]


def test_exponential_spawning_is_truncated(analyse: Callable[[str], ProgramModel]) -> None:
    goals = [f"GOAL G{i}() {{ SPAWN G{i + 1}() WITH WAIT; SPAWN G{i + 1}() WITH WAIT; }}" for i in range(30)]
    model = analyse("\n".join(goals) + "\nGOAL G30() { SPAWN Delay(1) WITH WAIT; }")
    assert model.trace_truncated
    assert len(model.trace) == 10_000


def test_digital_outputs_and_delays_are_classified(analyse: Callable[[str], ProgramModel]) -> None:
    model = analyse(
        "GOAL G() { SPAWN SetDigitalOutput(1, 1) WITH WAIT; SPAWN Delay(duration_sec=0.5) WITH WAIT;"
        " SPAWN SetDigitalOutput(port=p, value=0) WITH WAIT; SPAWN If(c) WITH WAIT; SPAWN EndIf() WITH WAIT; }"
    )
    assert [(inv.action, inv.output, inv.duration) for inv in model.invocations] == [
        ("output", (1.0, 1.0), None),
        ("delay", None, 0.5),
        ("output", (None, 0.0), None),
        ("flow", None, None),
        ("flow", None, None),
    ]


def test_unknown_declared_and_goal_commands(analyse: Callable[[str], ProgramModel]) -> None:
    model = analyse(
        "COMMAND Grip(force, speed=None) { io.grip(force=force); }\n"
        "GOAL Main() { SPAWN Sub() WITH WAIT; SPAWN Grip() WITH WAIT; SPAWN Frobnicate() WITH WAIT;"
        " SPAWN movelinear(A, 1, 1, 0, 0) WITH WAIT; }\nGOAL Sub() { }\n"
    )
    assert [(inv.command, inv.kind, inv.resolved) for inv in model.invocations] == [
        ("Sub", "goal", "Sub"),
        ("Grip", "declared", "Grip"),
        ("Frobnicate", "unknown", None),
        ("movelinear", "command", "MoveLinear"),
    ]
    assert [(issue.variant, issue.param) for issue in model.signature_issues] == [
        ("missing_parameter", "force")
    ]
