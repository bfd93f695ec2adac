"""The questions ``treebrain kg`` answers from a saved graph, each citing the narrations behind it:
``where``, ``history``, ``last``, ``open``, ``unattributed``, ``show`` and ``draw``."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from treebrain.behaviours.kg.service import KitchenGraphService, kitchen_paths
from treebrain.cli.common import EXIT_FAILURE, EXIT_OK
from treebrain.extras import require
from treebrain.kg.drawing import draw_graph
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.models import FoodView
from treebrain.kg.queries import (
    cite,
    find_foods,
    food_table,
    history_of,
    last_of,
    open_now,
    placed_by,
    unattributed,
)
from treebrain.sessions.kitchen import DEFAULT_ROBOT
from treebrain.trees import robot_settings


def open_saved_graph(args: argparse.Namespace) -> KitchenGraphService:
    """The saved graph of `--kg` (default: the robot's), read with the kitchen's vocabulary."""
    paths = kitchen_paths(robot_settings(args.robot))
    return KitchenGraphService.open(paths.kitchen, args.kg or paths.kg, require_graph=True)


def _where(food: FoodView) -> str:
    return food.location_text.removeprefix("at ")


def _no_match(graph: KitchenGraph, query: str) -> int:
    suggestions = find_foods(graph, query).suggestions
    hint = f"; did you mean: {', '.join(suggestions)}?" if suggestions else ""
    print(f"no object matches {query!r}{hint}")
    return EXIT_FAILURE


def cmd_where(args: argparse.Namespace) -> int:
    graph = open_saved_graph(args).kg
    found = find_foods(graph, args.food)
    if not found.matches:
        return _no_match(graph, args.food)
    if found.how not in ("id", "name"):
        print(f"no object is called {args.food!r}; matched by {found.how}:")
    for food in found.matches:
        print(
            f"{food.food_id} ({food.title}): {_where(food)}; state {food.state}; last seen {food.last_seen:g} s"
        )
        source = placed_by(graph, food.food_id)
        if source is not None:
            print(f"  from {cite(source)}")
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    graph = open_saved_graph(args).kg
    histories = history_of(graph, args.food)
    if not histories:
        return _no_match(graph, args.food)
    console = Console()
    for history in histories:
        food = history.food
        table = Table(
            title=f"{food.food_id} ({food.title}): {_where(food)}, {food.state}", title_justify="left"
        )
        for column in ("narration", "time (s)", "action", "text", "where", "outcome", "note"):
            table.add_column(column)
        for entry in history.interactions:
            note = entry.note + (" [low confidence]" if entry.confidence == "low" else "")
            table.add_row(
                entry.narration_id,
                f"{entry.start:g}-{entry.end:g}",
                entry.action,
                entry.narration,
                entry.location_context,
                entry.outcome.value,
                note,
            )
        console.print(table)
    return EXIT_OK


def cmd_last(args: argparse.Namespace) -> int:
    graph = open_saved_graph(args).kg
    found = last_of(graph, args.noun)
    if found is None:
        if find_foods(graph, args.noun).matches:
            print(f"nothing has happened to {args.noun!r} yet")
            return EXIT_OK
        return _no_match(graph, args.noun)
    node_id, entry = found
    print(f"{node_id}: {entry.action} ({entry.outcome.value}) by {cite(entry)}")
    return EXIT_OK


def cmd_open(args: argparse.Namespace) -> int:
    service = open_saved_graph(args)
    states = service.config.open_states
    found = open_now(service.kg, states)
    if not found:
        print(f"nothing is {' or '.join(states)}")
        return EXIT_OK
    for item in found:
        since = f" since {cite(item.since)}" if item.since else ""
        print(f"{item.node_id} ({item.name}): {item.state}{since}")
    return EXIT_OK


def cmd_unattributed(args: argparse.Namespace) -> int:
    graph = open_saved_graph(args).kg
    events = unattributed(graph)
    print(f"{len(events)} narration(s) not attributed to any object")
    for entry in events:
        print(f"{cite(entry)}: {entry.note}")
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    graph = open_saved_graph(args).kg
    foods = food_table(graph)
    table = Table(
        title=f"{len(foods)} object(s), {sum(1 for _ in graph.zone_ids())} zone(s), "
        f"{len(graph.events())} unattributed event(s), {graph.narration_count()} narration(s)",
        title_justify="left",
    )
    table.add_column("object", overflow="fold")
    for column in ("name", "where", "state", "quantity", "last seen (s)", "interactions"):
        table.add_column(column)
    for food in foods:
        table.add_row(
            food.food_id,
            food.title,
            _where(food),
            food.state,
            food.quantity,
            f"{food.last_seen:g}",
            str(len(graph.history(food.food_id))),
        )
    Console().print(table)
    return EXIT_OK


def cmd_draw(args: argparse.Namespace) -> int:
    require("draw", "treebrain kg draw")
    service = open_saved_graph(args)
    draw_graph(service.kg, args.out, title=f"Kitchen knowledge graph ({args.kg or service.kg_path})")
    print(f"wrote {args.out}")
    return EXIT_OK


def _graph_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--robot", type=Path, default=DEFAULT_ROBOT, help="robot file (default: the kitchen's)"
    )
    parser.add_argument("--kg", type=Path, help="graph file (default: the robot's driver.params.kg)")


def add_query_commands(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the query commands to ``treebrain kg``."""
    for name, handler, argument, summary in (
        (
            "where",
            cmd_where,
            "food",
            "where an object is (by id, name, synonym, shared words), and from which narration",
        ),
        ("history", cmd_history, "food", "everything that happened to an object, narration by narration"),
        ("last", cmd_last, "noun", "the last narration about an object or a zone"),
    ):
        query = actions.add_parser(name, help=summary)
        query.add_argument(argument)
        _graph_options(query)
        query.set_defaults(handler=handler)
    for name, handler, summary in (
        ("open", cmd_open, "what is open (or switched on) now, and since which narration"),
        ("unattributed", cmd_unattributed, "the narrations no object was found for, with the reasons"),
        ("show", cmd_show, "every object as a table"),
    ):
        command = actions.add_parser(name, help=summary)
        _graph_options(command)
        command.set_defaults(handler=handler)
    draw = actions.add_parser("draw", help="a picture of the zones, the hands and the objects in each")
    draw.add_argument("--out", type=Path, required=True, help="PNG file to write")
    _graph_options(draw)
    draw.set_defaults(handler=cmd_draw)
