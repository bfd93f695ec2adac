"""Tree text is untrusted (LLM output): the server's JSON can never be read as markup, and what it
carries is exactly the original text for the page to show with textContent."""

from __future__ import annotations

import json

from treebrain.recording import Recording
from treebrain.viewer import ViewerApp, safe_json


def test_safe_json_has_no_markup_characters_and_reads_back_unchanged():
    data = {"text": '<script>alert(1)</script><img src=x onerror="alert(2)"> & \u2028 ok'}
    encoded = safe_json(data)
    for forbidden in (b"<", b">", b"&", "\u2028".encode()):
        assert forbidden not in encoded
    assert json.loads(encoded) == data


def test_feedback_messages_values_and_llm_text_are_served_as_escaped_json(hostile):
    with Recording(hostile.path) as recording:
        app = ViewerApp(recording)
        tree = app.handle("/api/tree", {"tick": ["2"]})
        node = app.handle("/api/node", {"path": ["root/say"], "tick": ["2"]})
        for response in (tree, node):
            assert b"<" not in response.body and b">" not in response.body
        snapshot = json.loads(tree.body)
        assert snapshot["behaviours"]["root/say"]["details"] == hostile.script
        assert snapshot["blackboard"]["data"]["/answer"] == hostile.value
        details = json.loads(node.body)
        assert details["feedback"] == hostile.script
        call = details["llm_calls"][0]
        assert (call["system"], call["messages"][0]["content"], call["response"]) == (
            hostile.script,
            hostile.image,
            hostile.image,
        )
