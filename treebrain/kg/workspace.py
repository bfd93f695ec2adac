"""A kitchen on disk: its configuration and the knowledge graph the pipeline reads and updates.

The graph is loaded when the kitchen is opened (an empty one when its file does not exist yet) and
saved only when asked, atomically under the file's lock, so a test or a failed run never writes by
accident.
"""

from __future__ import annotations

from pathlib import Path
from typing import Self

from treebrain.errors import InputError
from treebrain.kg.config import KitchenConfig, load_kitchen_config
from treebrain.kg.graph import KitchenGraph
from treebrain.kg.persistence import load_graph, save_graph


class KitchenWorkspace:
    """The kitchen config and the graph, with where the graph is saved."""

    def __init__(
        self, config: KitchenConfig, kg: KitchenGraph, kg_path: Path | None, kitchen_file: Path
    ) -> None:
        self.config = config
        self.kg = kg
        self.kg_path = kg_path
        self.kitchen_file = kitchen_file
        self.load_warnings: list[str] = []

    @classmethod
    def open(
        cls,
        kitchen: Path,
        kg_path: Path | None,
        *,
        require_graph: bool = False,
        fresh: bool = False,
        dataset_classes: tuple[Path | None, Path | None] | None = None,
    ) -> Self:
        """Load the config, and the graph file when it exists (else start an empty graph).

        With `require_graph` a missing file is an error: a query of a graph that was never saved.
        With `fresh` the file is not read: an empty graph replaces it at the first save.
        `dataset_classes` (verb class file, noun class file) replaces the kitchen's own.
        """
        config = load_kitchen_config(kitchen, dataset_classes)
        if fresh or kg_path is None or not kg_path.exists():
            if require_graph:
                message = "no knowledge graph file here; run `treebrain kg ingest` first or pass --kg"
                raise InputError.single(message, kg_path or "<no graph file>")
            return cls(config, config.new_graph(), kg_path, kitchen)
        loaded = load_graph(kg_path, config.vocabulary.names)
        workspace = cls(config, loaded.kg, kg_path, kitchen)
        workspace.load_warnings = loaded.warnings
        return workspace

    def save(self) -> Path:
        """Write the graph to its file atomically under the file's lock (persistence.save_graph)."""
        if self.kg_path is None:
            raise InputError.single("no graph file to save to: set driver.params.kg or pass --kg", "<kg>")
        save_graph(self.kg, self.kg_path)
        return self.kg_path

    def close(self) -> None:
        """Nothing to release: saving is explicit, so a test or a failed run never writes by accident."""
