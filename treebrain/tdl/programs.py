"""Write the correct TDL program for a :class:`~treebrain.tdl.tasks.TaskSpec`.

Programs follow the conventions the rules check (Initialize/Execute/Finalize GOALs, safe approach
heights, slow vertical moves, a delay after every gripper action, End() last) and vary in everything
the rules must not care about: with or without Main_Process, DEFINEd / assigned / inline poses,
keyword or positional arguments, English, Korean or no comments.
"""

from __future__ import annotations

import math

from treebrain.tdl.tasks import Item, TaskSpec, Transfer, instruction

_TOOL_DOWN = (180, 0, 180)
_COMMENTS = {
    "en": {
        "open": "open gripper",
        "close": "close gripper",
        "grip": "grip the {item}",
        "release": "release the {item}",
        "home": "go home",
        "task": "Task: {text}",
    },
    "ko": {
        "open": "그리퍼 열기",
        "close": "그리퍼 닫기",
        "grip": "{item} 잡기",
        "release": "{item} 놓기",
        "home": "홈 위치로 이동",
        "task": "작업: {text}",
    },
}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class _Writer:
    """Accumulates poses and statements for one program in the task's style."""

    def __init__(self, task: TaskSpec) -> None:
        self.task = task
        self.style = task.style
        self.poses: dict[str, tuple[str, tuple[float, ...]]] = {}

    # --- poses -----------------------------------------------------------------------------------
    def pose(self, name: str, kind: str, values: tuple[float, ...]) -> str:
        """Register a pose and return how commands refer to it (its name, or the literal inline)."""
        self.poses.setdefault(name, (kind, values))
        if self.style.poses == "inline":
            return self.literal(kind, values)
        return name

    @staticmethod
    def literal(kind: str, values: tuple[float, ...]) -> str:
        return f"{kind}({', '.join(_number(value) for value in values)})"

    def home(self) -> str:
        return self.pose("Home_Pose", "PosJ", self.task.home)

    def safe(self, label: str) -> str:
        place = self.task.place(label)
        return self.pose(f"{label}_Safe_Pose", "PosX", (place.x, place.y, self.task.safe_z, *_TOOL_DOWN))

    def work(self, label: str, item: Item, action: str) -> str:
        place = self.task.place(label)
        return self.pose(
            f"{label}_{item.identifier()}_{action}_Pose", "PosX", (place.x, place.y, place.z, *_TOOL_DOWN)
        )

    def waypoint(self, label: str) -> str:
        place = self.task.place(label)
        return self.pose(f"{label}_Pose", "PosX", (place.x, place.y, self.task.safe_z, *_TOOL_DOWN))

    def via(self, source: str, destination: str) -> str:
        a, b = self.task.place(source), self.task.place(destination)
        return self.pose(
            f"Via_{source}_{destination}_Pose",
            "PosX",
            ((a.x + b.x) / 2, (a.y + b.y) / 2, self.task.safe_z, *_TOOL_DOWN),
        )

    # --- statements ------------------------------------------------------------------------------
    def comment(self, key: str, **values: str) -> str:
        if self.style.comments == "none":
            return ""
        return "  // " + _COMMENTS[self.style.comments][key].format(**values)

    def spawn(self, command: str, args: list[tuple[str, str]], comment: str = "") -> str:
        inner = ", ".join(f"{name}={value}" if self.style.keyword_args else value for name, value in args)
        return f"SPAWN {command}({inner}) WITH WAIT;{comment}"

    def move(
        self, command: str, target: str, velocity: str, acceleration: str, via: str | None = None
    ) -> str:
        args = [("via_pose", via)] if via else []
        args += [
            ("target_pose", target),
            ("velocity", velocity),
            ("acceleration", acceleration),
            ("tool", "0"),
            ("blending_radius", "0"),
        ]
        return self.spawn(command, args)

    def linear(self, target: str, precise: bool) -> str:
        speeds = self.task.speeds
        velocity, acceleration = (
            (speeds.precision, speeds.precision_acc) if precise else (speeds.travel, speeds.travel_acc)
        )
        return self.move("MoveLinear", target, _number(velocity), _number(acceleration))

    def go_home(self) -> str:
        speeds = self.task.speeds
        if self.task.edge == "percent_speed":
            share = max(5, min(60, round(100 * speeds.joint / 120)))
            return self.move("MoveJoint", self.home(), f'"{share}%"', '"30%"') + self.comment("home")
        return self.move(
            "MoveJoint", self.home(), _number(speeds.joint), _number(speeds.joint_acc)
        ) + self.comment("home")

    def gripper(self, action: str, item: Item | None = None) -> list[str]:
        value = "1" if action == "close" else "0"
        key = ("grip" if action == "close" else "release") if item else action
        text = item.korean() if item and self.style.comments == "ko" else item.english() if item else ""
        return [
            self.spawn("SetDigitalOutput", [("port", "1"), ("value", value)], self.comment(key, item=text)),
            self.spawn("Delay", [("duration_sec", _number(self.task.speeds.delay))]),
        ]

    def transfer(self, transfer: Transfer) -> list[str]:
        source_safe = self.safe(transfer.source)
        destination_safe = self.safe(transfer.destination)
        steps = [
            self.linear(source_safe, precise=False),
            self.linear(self.work(transfer.source, transfer.item, "Grasp"), precise=True),
            *self.gripper("close", transfer.item),
            self.linear(source_safe, precise=True),
        ]
        if self.task.edge == "circular":
            speeds = self.task.speeds
            via = self.via(transfer.source, transfer.destination)
            steps.append(
                self.move(
                    "MoveCircular",
                    destination_safe,
                    _number(speeds.travel),
                    _number(speeds.travel_acc),
                    via=via,
                )
            )
        else:
            steps.append(self.linear(destination_safe, precise=False))
        return [
            *steps,
            self.linear(self.work(transfer.destination, transfer.item, "Place"), precise=True),
            *self.gripper("open", transfer.item),
            self.linear(destination_safe, precise=True),
        ]


def _execute(writer: _Writer, task: TaskSpec) -> list[str]:
    if task.kind == "move":
        return [writer.linear(writer.waypoint(task.waypoints[0]), precise=False)]
    if task.kind == "waypoints":
        return [
            *(writer.linear(writer.waypoint(label), precise=False) for label in task.waypoints),
            writer.go_home(),
        ]
    if task.kind == "home":
        return [writer.go_home()]
    if task.kind == "gripper":
        return writer.gripper(task.gripper_action or "open")
    first = task.transfers[0]
    if task.kind == "pick":
        safe = writer.safe(first.source)
        return [
            writer.linear(safe, precise=False),
            writer.linear(writer.work(first.source, first.item, "Grasp"), precise=True),
            *writer.gripper("close", first.item),
            writer.linear(safe, precise=True),
        ]
    if task.kind == "place":
        safe = writer.safe(first.destination)
        return [
            writer.linear(safe, precise=False),
            writer.linear(writer.work(first.destination, first.item, "Place"), precise=True),
            *writer.gripper("open", first.item),
            writer.linear(safe, precise=True),
        ]
    body = [line for transfer in task.transfers for line in writer.transfer(transfer)]
    if task.kind == "conditional":
        condition = f'"DI{task.sensor_port} == 1"'
        return [
            writer.spawn("If", [("condition", condition)]),
            *("    " + line for line in body),
            writer.spawn("Else", []),
            "    " + writer.go_home(),
            writer.spawn("EndIf", []),
        ]
    if task.kind == "loop":
        loop = writer.spawn("For", [("variable", '"i"'), ("start", "1"), ("end", str(task.repeat))])
        return [loop, *("    " + line for line in body), writer.spawn("Next", [])]
    return body


def _initialize(writer: _Writer, task: TaskSpec) -> list[str]:
    steps = [] if task.kind in ("home", "gripper") else [writer.go_home()]
    if task.kind not in ("move", "waypoints", "home", "gripper", "place"):
        steps += writer.gripper("open")
    return steps


def _finalize(writer: _Writer, task: TaskSpec) -> list[str]:
    ends_home = task.kind in ("waypoints", "home", "gripper")
    return ([] if ends_home else [writer.go_home()]) + [writer.spawn("End", [])]


def _goal(name: str, lines: list[str]) -> list[str]:
    return [f"GOAL {name}()", "{", *("    " + line for line in lines), "}", ""]


def render_program(task: TaskSpec) -> str:
    """The correct TDL program for `task` in the task's style."""
    writer = _Writer(task)
    initialize, execute = _initialize(writer, task), _execute(writer, task)
    finalize = _finalize(writer, task)
    assigns: list[str] = []
    defines: list[str] = []
    for name, (kind, values) in writer.poses.items():
        if task.style.poses == "define":
            defines.append(f"DEFINE {name} = {writer.literal(kind, values)};")
        elif task.style.poses == "assign":
            assigns.append(
                writer.spawn("Assign", [("destination", name), ("source", writer.literal(kind, values))])
            )
    header = []
    if task.style.comments != "none":
        header.append("//" + writer.comment("task", text=instruction(task))[4:])
    lines = [*header, *defines, *([""] if defines or header else [])]
    if task.style.structure == "single":
        lines += _goal("Execute_Process", [*assigns, *initialize, *execute, *finalize])
    else:
        if task.style.structure == "main":
            lines += _goal(
                "Main_Process",
                [
                    writer.spawn(goal, [])
                    for goal in ("Initialize_Process", "Execute_Process", "Finalize_Process")
                ],
            )
        lines += _goal("Initialize_Process", [*assigns, *initialize])
        lines += _goal("Execute_Process", execute)
        lines += _goal("Finalize_Process", finalize)
    return "\n".join(lines).rstrip() + "\n"


def max_distance(task: TaskSpec) -> float:
    """The farthest any pose of the task is from the robot base (for reach checks in tests)."""
    return max(math.hypot(place.x, place.y, task.safe_z) for place in task.places)
