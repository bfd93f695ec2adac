"""What a run leaves behind: one SQLite recording per run, read back for the viewer, and re-run
deterministically to check that a tree still does what it did."""

from treebrain.recording.capture import TickCapture, TickClock, TickRecord
from treebrain.recording.definition import NodeInfo, TreeDefinition, describe_tree
from treebrain.recording.reader import EventRow, Frame, Recording
from treebrain.recording.recorder import Recorder, TracingLLMService, default_recording_path
from treebrain.recording.rerun import Divergence, RerunReport, rerun
from treebrain.recording.schema import RunInfo
from treebrain.recording.writer import DEFAULT_MAX_BYTES, RecordingWriter

__all__ = [
    "DEFAULT_MAX_BYTES",
    "Divergence",
    "EventRow",
    "Frame",
    "NodeInfo",
    "Recorder",
    "Recording",
    "RecordingWriter",
    "RerunReport",
    "RunInfo",
    "TickCapture",
    "TickClock",
    "TickRecord",
    "TracingLLMService",
    "TreeDefinition",
    "default_recording_path",
    "describe_tree",
    "rerun",
]
