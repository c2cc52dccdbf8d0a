"""ChatModel.ask, the HTTP edge of the natural-language tools, against a real local fake endpoint."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest
from tests.fake_model import FakeModel, Scripted, fake_model

from tabmcp.config import Settings
from tabmcp.nl.model import ChatModel, ModelError

MESSAGES = [{"role": "system", "content": "Reply with JSON."}, {"role": "user", "content": "Which element?"}]


@pytest.fixture
def fm() -> Iterator[FakeModel]:
    with fake_model() as model:
        yield model


def completion(content: object) -> str:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


async def test_ask_posts_the_messages_and_returns_the_reply(fm: FakeModel) -> None:
    fm.answer('{"ref": "e1"}')
    model = ChatModel(fm.url, "gpt-test", api_key="sk-secret")
    assert model.endpoint == fm.url + "/chat/completions"  # the only path the fake answers
    assert await model.ask(MESSAGES) == '{"ref": "e1"}'
    assert fm.requests == [{"model": "gpt-test", "messages": MESSAGES, "temperature": 0}]
    assert fm.auth == ["Bearer sk-secret"]


async def test_no_api_key_sends_no_authorization(fm: FakeModel) -> None:
    fm.answer("ok")
    assert await ChatModel(fm.url + "/", "local").ask(MESSAGES) == "ok"  # a trailing slash is fine too
    assert fm.auth == [None]


async def test_content_given_as_parts_is_joined(fm: FakeModel) -> None:
    parts = [{"type": "text", "text": '{"pass": '}, {"type": "text", "text": "true}"}, "stray"]
    fm.answer(Scripted(raw=completion(parts)))
    assert await ChatModel(fm.url, "m").ask(MESSAGES) == '{"pass": true}'


async def test_an_http_error_is_a_model_error_naming_the_status(fm: FakeModel) -> None:
    fm.answer(Scripted(status=500, raw='{"error": "overloaded"}'))
    with pytest.raises(ModelError) as caught:
        await ChatModel(fm.url, "m").ask(MESSAGES)
    assert caught.value.code == "MODEL_ERROR"
    assert "HTTP 500" in caught.value.message and "overloaded" in caught.value.message


@pytest.mark.parametrize("raw", ['{"hello": "world"}', "not json at all", '{"choices": []}'])
async def test_a_body_that_is_not_a_chat_completion_is_a_model_error(fm: FakeModel, raw: str) -> None:
    fm.answer(Scripted(raw=raw))
    with pytest.raises(ModelError, match="did not answer with a chat completion") as caught:
        await ChatModel(fm.url, "m").ask(MESSAGES)
    assert caught.value.code == "MODEL_ERROR"


@pytest.mark.parametrize("reply", ["", "   \n", Scripted(raw=completion(None))])
async def test_an_empty_answer_is_a_model_error(fm: FakeModel, reply: str | Scripted) -> None:
    fm.answer(reply)
    with pytest.raises(ModelError, match="answered with no text") as caught:
        await ChatModel(fm.url, "m").ask(MESSAGES)
    assert caught.value.code == "MODEL_ERROR"


async def test_a_late_answer_is_a_timeout_and_the_call_does_not_wait_for_it(fm: FakeModel) -> None:
    fm.answer(Scripted('{"ref": "e1"}', delay=60.0))
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"did not answer within 0.5 s") as caught:
        await ChatModel(fm.url, "m", timeout=0.5).ask(MESSAGES)
    elapsed = time.monotonic() - started
    assert caught.value.code == "MODEL_TIMEOUT"
    assert 0.4 < elapsed < 20  # bounded by the timeout (generously), not the 60 s reply


async def test_an_unreachable_endpoint_is_a_model_error() -> None:
    with socket.socket() as held:  # bound and not listening: connections to it are refused
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        with pytest.raises(ModelError, match="could not be reached") as caught:
            await ChatModel(f"http://127.0.0.1:{port}/v1", "m", timeout=5).ask(MESSAGES)
    assert caught.value.code == "MODEL_ERROR"


@pytest.fixture
def no_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TABMCP_NL_TOOLS", "TABMCP_NL_MODEL_BASE_URL", "TABMCP_NL_MODEL", "TABMCP_NL_MODEL_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("no_model_env")
def test_from_settings_needs_the_switch_an_endpoint_and_a_model_name() -> None:
    full = {"nl_tools": True, "nl_model_base_url": "http://127.0.0.1:11434/v1", "nl_model": "llama3"}
    model = ChatModel.from_settings(Settings(**full, nl_model_api_key="k", nl_model_timeout=7.5))
    assert model == ChatModel("http://127.0.0.1:11434/v1", "llama3", "k", 7.5)
    for missing in ("nl_tools", "nl_model_base_url", "nl_model"):
        assert ChatModel.from_settings(Settings(**{k: v for k, v in full.items() if k != missing})) is None, missing
    assert ChatModel.from_settings(Settings(**{**full, "nl_model": ""})) is None
