"""Robot tasks for the labelled dataset: a task spec, random sampling per complexity, and its
natural-language instruction (English or Korean).

A :class:`TaskSpec` holds everything needed to write both the instruction and a correct TDL program
(:mod:`treebrain.tdl.programs`), so semantic errors are injected by changing the spec (swap the object,
the locations, the order, the speed) and re-rendering the program while keeping the instruction.
"""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import BaseModel, ConfigDict

from treebrain.tdl.robots import RobotSpec

Complexity = Literal["simple", "moderate", "complex", "edge_case"]
TaskKind = Literal[
    "move",
    "waypoints",
    "pick",
    "place",
    "gripper",
    "home",
    "transfer",
    "multi_transfer",
    "conditional",
    "loop",
]
Manner = Literal["normal", "slow", "gentle", "fast"]
EdgeFeature = Literal["korean", "near_reach", "percent_speed", "circular", "low_table", "positional_assign"]

COLORS = {"red": "빨간", "blue": "파란", "green": "초록색", "yellow": "노란", "black": "검은", "white": "흰"}
NOUNS = {
    "box": "상자",
    "cube": "큐브",
    "block": "블록",
    "cylinder": "원통",
    "part": "부품",
    "bottle": "병",
    "gear": "기어",
    "glass": "유리컵",
    "cup": "컵",
}
FRAGILE = ("glass", "cup", "bottle")
_MANNER_WORDS = {
    "en": {"slow": "Slowly", "gentle": "Gently", "fast": "Quickly"},
    "ko": {"slow": "천천히", "gentle": "조심스럽게", "fast": "빠르게"},
}
LOCATION_LABELS = ("A", "B", "C", "D", "E", "F")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class Place(_Frozen):
    """A work location: table centre (x, y) and the height objects are grasped or placed at."""

    label: str
    x: float
    y: float
    z: float


class Item(_Frozen):
    color: str | None
    noun: str

    def english(self) -> str:
        return f"{self.color} {self.noun}" if self.color else self.noun

    def korean(self) -> str:
        noun = NOUNS[self.noun]
        return f"{COLORS[self.color]} {noun}" if self.color else noun

    def identifier(self) -> str:
        parts = [self.color, self.noun] if self.color else [self.noun]
        return "_".join(part.capitalize() for part in parts if part)


class Transfer(_Frozen):
    item: Item
    source: str
    destination: str


class Speeds(_Frozen):
    """Velocities (mm/s, deg/s for joint moves), accelerations and the settle delay after gripping."""

    travel: float
    precision: float
    travel_acc: float
    precision_acc: float
    joint: float
    joint_acc: float
    delay: float


class ProgramStyle(_Frozen):
    """How the program is written; none of this changes what it does."""

    structure: Literal["main", "phases", "single"] = "main"
    poses: Literal["define", "assign", "inline"] = "define"
    keyword_args: bool = True
    comments: Literal["en", "ko", "none"] = "en"


class TaskSpec(_Frozen):
    kind: TaskKind
    complexity: Complexity
    places: tuple[Place, ...]
    safe_z: float
    transfers: tuple[Transfer, ...] = ()
    waypoints: tuple[str, ...] = ()
    manner: Manner = "normal"
    gripper_action: Literal["open", "close"] | None = None
    sensor_port: int | None = None
    repeat: int | None = None
    language: Literal["en", "ko"] = "en"
    edge: EdgeFeature | None = None
    template: int = 0
    style: ProgramStyle = ProgramStyle()
    speeds: Speeds
    home: tuple[float, ...]

    def place(self, label: str) -> Place:
        return next(place for place in self.places if place.label == label)

    @property
    def task_type(self) -> str:
        return (
            "pick_and_place"
            if self.kind in ("transfer", "multi_transfer", "conditional", "loop")
            else self.kind
        )

    def objects(self) -> list[str]:
        return [transfer.item.english() for transfer in self.transfers]

    def locations(self) -> list[str]:
        used = [label for transfer in self.transfers for label in (transfer.source, transfer.destination)]
        return list(dict.fromkeys([*used, *self.waypoints]))


# --- sampling ------------------------------------------------------------------------------------
def _places(
    rng: random.Random, robot: RobotSpec, count: int, near_reach: bool, low: bool
) -> tuple[tuple[Place, ...], float]:
    """Tables spread in front of the robot, all reachable with their safe approach height."""
    reach = robot.reach_mm
    z_values = [rng.uniform(15, 25) if low else rng.uniform(40, 110) for _ in range(count)]
    safe_z = round(max(z_values) + rng.uniform(140, 190))
    places = []
    angles = sorted(rng.sample(range(-70, 71, 10), count))
    for label, angle, z in zip(LOCATION_LABELS, angles, z_values, strict=False):
        share = rng.uniform(0.84, 0.9) if near_reach else rng.uniform(0.35, 0.7)
        horizontal = math.sqrt(max(0.0, (share * reach) ** 2 - safe_z**2))
        x = horizontal * math.cos(math.radians(angle))
        y = horizontal * math.sin(math.radians(angle))
        places.append(Place(label=label, x=round(x), y=round(y), z=round(z)))
    return tuple(places), safe_z


def _item(rng: random.Random, manner: Manner, used: set[str]) -> Item:
    nouns = list(FRAGILE) if manner == "gentle" else [noun for noun in NOUNS if noun not in FRAGILE]
    while True:
        item = Item(color=rng.choice([*COLORS, None]), noun=rng.choice(nouns))
        if item.english() not in used:
            used.add(item.english())
            return item


def _style(rng: random.Random, complexity: Complexity, edge: EdgeFeature | None) -> ProgramStyle:
    structure = rng.choices(["main", "phases", "single"], weights=[70, 20, 10])[0]
    poses = rng.choices(["define", "assign", "inline"], weights=[70, 15, 15])[0]
    comments = rng.choices(["en", "ko", "none"], weights=[60, 20, 20])[0]
    keyword_args = rng.random() < 0.75
    if edge == "positional_assign":
        poses, keyword_args = "assign", False
    if edge == "korean":
        comments = "ko"
    if complexity == "complex" and structure == "single":
        structure = "main"
    return ProgramStyle(structure=structure, poses=poses, keyword_args=keyword_args, comments=comments)


def _home(rng: random.Random, robot: RobotSpec) -> tuple[float, ...]:
    """The robot's home pose, its second joint varied a little within its range."""
    angles = list(robot.home_deg)
    low, high = robot.joint_limits_deg[1]
    shifted = angles[1] + rng.choice([-15, 0, 0, 15])
    angles[1] = shifted if low <= shifted <= high else angles[1]
    return tuple(angles)


def sample_speeds(rng: random.Random, manner: Manner) -> Speeds:
    """Speeds that suit the manner: 'slow'/'gentle' near the low end of the recommended band."""

    def pick(low: float, high: float, step: float) -> float:
        return round(rng.uniform(low, high) / step) * step

    if manner in ("slow", "gentle"):
        travel, precision, travel_acc, precision_acc, joint = (
            pick(50, 80, 5),
            pick(50, 60, 5),
            pick(30, 60, 5),
            pick(20, 40, 5),
            pick(10, 25, 5),
        )
    elif manner == "fast":
        travel, precision, travel_acc, precision_acc, joint = (
            pick(300, 450, 10),
            pick(80, 100, 5),
            pick(150, 200, 10),
            pick(60, 100, 5),
            pick(50, 80, 5),
        )
    else:
        travel, precision, travel_acc, precision_acc, joint = (
            pick(120, 250, 10),
            pick(60, 100, 5),
            pick(80, 150, 10),
            pick(40, 80, 5),
            pick(20, 60, 5),
        )
    return Speeds(
        travel=travel,
        precision=precision,
        travel_acc=travel_acc,
        precision_acc=precision_acc,
        joint=joint,
        joint_acc=pick(30, 80, 5),
        delay=rng.choice([0.5, 0.5, 0.8, 1.0]),
    )


_KINDS: dict[Complexity, tuple[TaskKind, ...]] = {
    "simple": ("move", "pick", "place", "gripper", "home"),
    "moderate": ("transfer", "transfer", "waypoints"),
    "complex": ("multi_transfer", "conditional", "loop"),
    "edge_case": ("transfer", "move", "transfer"),
}
_MANNERS: tuple[Manner, ...] = ("normal", "slow", "gentle", "fast")
_EDGES: tuple[EdgeFeature, ...] = (
    "korean",
    "near_reach",
    "percent_speed",
    "circular",
    "low_table",
    "positional_assign",
)


def sample_task(
    rng: random.Random,
    robot: RobotSpec,
    complexity: Complexity,
    kind: TaskKind | None = None,
    manner: Manner | None = None,
) -> TaskSpec:
    """A random, correct-by-construction task of the given complexity (optionally of a given kind)."""
    edge = rng.choice(_EDGES) if complexity == "edge_case" else None
    chosen: TaskKind = kind if kind is not None else rng.choice(_KINDS[complexity])
    if edge == "circular" and chosen not in ("transfer", "multi_transfer"):
        chosen = "transfer"
    if chosen in ("home", "gripper"):
        manner = "normal"
    elif manner is None:
        manner = rng.choices(_MANNERS, weights=[55, 15, 15, 15])[0]
    kind = chosen
    transfers_count = {"multi_transfer": rng.choice([2, 3])}.get(kind, 1)
    place_count = {"multi_transfer": 2 * transfers_count, "waypoints": rng.choice([2, 3]), "move": 1}.get(
        kind, 2
    )
    places, safe_z = _places(rng, robot, place_count, edge == "near_reach", edge == "low_table")
    labels = [place.label for place in places]
    rng.shuffle(labels)
    used: set[str] = set()
    transfers: tuple[Transfer, ...] = ()
    waypoints: tuple[str, ...] = ()
    if kind in ("transfer", "conditional", "loop", "pick", "place"):
        transfers = (Transfer(item=_item(rng, manner, used), source=labels[0], destination=labels[1]),)
    elif kind == "multi_transfer":
        transfers = tuple(
            Transfer(item=_item(rng, manner, used), source=labels[2 * i], destination=labels[2 * i + 1])
            for i in range(transfers_count)
        )
    elif kind in ("move", "waypoints"):
        waypoints = tuple(sorted(labels))
    return TaskSpec(
        kind=kind,
        complexity=complexity,
        places=places,
        safe_z=safe_z,
        transfers=transfers,
        waypoints=waypoints,
        manner=manner,
        gripper_action=rng.choice(["open", "close"]) if kind == "gripper" else None,
        sensor_port=rng.randint(2, 16) if kind == "conditional" else None,
        repeat=rng.randint(2, 5) if kind == "loop" else None,
        language="ko" if edge == "korean" or rng.random() < 0.05 else "en",
        edge=edge,
        template=rng.randrange(3),
        style=_style(rng, complexity, edge),
        speeds=sample_speeds(rng, manner),
        home=_home(rng, robot),
    )


# --- natural language ----------------------------------------------------------------------------
def _transfer_en(transfer: Transfer, template: int) -> str:
    item, source, destination = transfer.item.english(), transfer.source, transfer.destination
    return (
        f"move the {item} from position {source} to position {destination}",
        f"transfer the {item} from table {source} to table {destination}",
        f"pick up the {item} at {source} and place it at {destination}",
    )[template % 3]


def _transfer_ko(transfer: Transfer) -> str:
    return f"{transfer.item.korean()}을(를) {transfer.source}에서 {transfer.destination}(으)로 옮겨"


def instruction(task: TaskSpec) -> str:
    """The natural-language instruction the task's correct program implements."""
    text = _instruction_ko(task) if task.language == "ko" else _instruction_en(task)
    if task.manner != "normal" and task.kind not in ("home", "gripper"):
        word = _MANNER_WORDS[task.language][task.manner]
        if task.kind in ("conditional", "loop"):
            text += f". {word} 움직여" if task.language == "ko" else f". Move {word.lower()}"
        else:
            text = f"{word} {text}"
    return text[0].upper() + text[1:] if task.language == "en" else text


def _instruction_en(task: TaskSpec) -> str:
    first = task.transfers[0] if task.transfers else None
    if task.kind in ("transfer", "multi_transfer") and first:
        parts = [_transfer_en(transfer, task.template) for transfer in task.transfers]
        return ", then ".join(parts)
    if task.kind == "move":
        return f"move to position {task.waypoints[0]}"
    if task.kind == "waypoints":
        return "move to position " + ", then to position ".join(task.waypoints) + ", then return home"
    if task.kind == "pick" and first:
        return f"pick up the {first.item.english()} from position {first.source}"
    if task.kind == "place" and first:
        return f"place the {first.item.english()} you are holding at position {first.destination}"
    if task.kind == "gripper":
        return f"{task.gripper_action} the gripper"
    if task.kind == "home":
        return "return the robot to its home position"
    if task.kind == "conditional" and first:
        return f"if the part sensor on input {task.sensor_port} is on, {_transfer_en(first, task.template)}; otherwise return home"
    if task.kind == "loop" and first:
        return f"repeat {task.repeat} times: {_transfer_en(first, task.template)}"
    raise ValueError(f"task kind {task.kind} lacks what its instruction needs")


def _instruction_ko(task: TaskSpec) -> str:
    first = task.transfers[0] if task.transfers else None
    if task.kind in ("transfer", "multi_transfer") and first:
        return ", 그 다음 ".join(_transfer_ko(transfer) for transfer in task.transfers)
    if task.kind == "move":
        return f"{task.waypoints[0]} 위치로 이동해"
    if task.kind == "waypoints":
        return " 위치, 그 다음 ".join(task.waypoints) + " 위치로 이동한 후 홈으로 복귀해"
    if task.kind == "pick" and first:
        return f"{first.source} 위치에서 {first.item.korean()}을(를) 집어"
    if task.kind == "place" and first:
        return f"잡고 있는 {first.item.korean()}을(를) {first.destination} 위치에 놓아"
    if task.kind == "gripper":
        return "그리퍼를 열어" if task.gripper_action == "open" else "그리퍼를 닫아"
    if task.kind == "home":
        return "로봇을 홈 위치로 복귀시켜"
    if task.kind == "conditional" and first:
        return f"입력 {task.sensor_port}번 센서가 켜져 있으면 {_transfer_ko(first)}, 아니면 홈으로 복귀해"
    if task.kind == "loop" and first:
        return f"{task.repeat}번 반복: {_transfer_ko(first)}"
    raise ValueError(f"task kind {task.kind} lacks what its instruction needs")
