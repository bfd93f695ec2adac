"""Request/response models and the request hash that record/replay keys on."""

from __future__ import annotations

import base64

import pytest
from pydantic import ValidationError

from treebrain.llm.types import Image, LLMRequest, Message, ToolSpec, canonical_request, request_hash

PNG = base64.b64encode(b"\x89PNG fake bytes").decode()


def _request(**changes) -> LLMRequest:
    base = {
        "system": "be brief",
        "messages": [Message(role="user", content="hello")],
        "json_schema": {"type": "object"},
    }
    return LLMRequest(**(base | changes))


def test_hash_is_stable_and_ignores_the_timeout():
    assert request_hash(_request()) == request_hash(_request(timeout_s=3))
    assert len(request_hash(_request())) == 64


@pytest.mark.parametrize(
    "change",
    [
        {"system": "be long"},
        {"messages": [Message(role="user", content="hello!")]},
        {"json_schema": None},
        {"temperature": 0.5},
        {"max_tokens": 12},
        {"tools": [ToolSpec(name="stop", description="stop the robot")]},
    ],
)
def test_hash_changes_with_anything_that_changes_the_answer(change):
    assert request_hash(_request(**change)) != request_hash(_request())


def test_images_by_path_and_inline_hash_the_same(tmp_path):
    path = tmp_path / "cam.png"
    path.write_bytes(b"\x89PNG fake bytes")
    inline = _request(
        messages=[Message(role="user", content="see", images=[Image(data=PNG, media_type="image/png")])]
    )
    by_path = _request(messages=[Message(role="user", content="see", images=[Image(path=str(path))])])
    assert request_hash(inline) == request_hash(by_path)
    images = canonical_request(by_path)["messages"][0]["images"]
    assert images == [{"sha256": Image(data=PNG, media_type="image/png").digest(), "media_type": "image/png"}]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "an image needs exactly one of 'data' (base64) or 'path'"),
        ({"data": PNG, "path": "x.png"}, "an image needs exactly one of 'data' (base64) or 'path'"),
        ({"data": PNG}, "an inline image needs its 'media_type' (e.g. image/png)"),
    ],
)
def test_image_validation(fields, message):
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Image(**fields)


def test_requests_are_frozen_and_strict():
    request = _request()
    with pytest.raises(ValidationError):
        request.system = "changed"
    with pytest.raises(ValidationError):
        LLMRequest(messages=[], unknown=1)
    with pytest.raises(ValidationError):
        ToolSpec(name="has space", description="")


def test_prompt_text_joins_system_and_messages():
    request = _request(messages=[Message(role="user", content="a"), Message(role="assistant", content="b")])
    assert request.prompt_text() == "be brief\na\nb"
