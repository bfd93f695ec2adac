"""The web viewer: a page that draws a run's tree live or from its recording, with node details,
the blackboard and a timeline. Standard library server; the front end ships in ``static/``."""

from treebrain.viewer.payloads import (
    definition_payload,
    node_payload,
    safe_json,
    timeline_payload,
    tree_snapshot,
)
from treebrain.viewer.server import ViewerApp, ViewerServer

__all__ = [
    "ViewerApp",
    "ViewerServer",
    "definition_payload",
    "node_payload",
    "safe_json",
    "timeline_payload",
    "tree_snapshot",
]
