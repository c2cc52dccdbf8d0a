"""The model the natural-language tools ask when the page alone cannot answer: any OpenAI-compatible
chat completions endpoint (OpenAI, Azure's compatible endpoint, OpenRouter, a local Ollama, vLLM or
llama.cpp server), configured by ``TABMCP_NL_MODEL_BASE_URL``, ``TABMCP_NL_MODEL_API_KEY`` and
``TABMCP_NL_MODEL`` (docs/nl-tools.md).

This is the edge: one POST to ``{base_url}/chat/completions`` per question, bounded by
``nl_model_timeout``. Whatever goes wrong (no answer in time, an HTTP error, a body that is not a
chat completion) is a :class:`ModelError` the tool turns into an ``isError`` result; what the model
says is checked by the caller (``prompts.py``), never trusted.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import anyio
import httpx2

if TYPE_CHECKING:
    from tabmcp.config import Settings

log = logging.getLogger(__name__)
MAX_ANSWER_CHARS = 200_000
Message = dict[str, Any]


class ModelError(Exception):
    """``code``: MODEL_TIMEOUT (no answer in time) or MODEL_ERROR (anything else)."""

    def __init__(self, code: Literal["MODEL_ERROR", "MODEL_TIMEOUT"], message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ChatModel:
    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 30.0

    @classmethod
    def from_settings(cls, settings: Settings) -> ChatModel | None:
        """The configured model, or None when the natural-language tools have none."""
        if not settings.nl_model_configured:
            return None
        assert settings.nl_model_base_url is not None and settings.nl_model is not None
        return cls(settings.nl_model_base_url, settings.nl_model, settings.nl_model_api_key, settings.nl_model_timeout)

    @property
    def endpoint(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    async def ask(self, messages: Sequence[Message]) -> str:
        """The model's reply to ``messages`` (its text). Raises ModelError."""
        body = {"model": self.model, "messages": list(messages), "temperature": 0}
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        try:
            with anyio.fail_after(self.timeout):
                async with httpx2.AsyncClient(timeout=self.timeout, trust_env=False) as http:
                    response = await http.post(self.endpoint, json=body, headers=headers)
        except TimeoutError:
            raise ModelError(
                "MODEL_TIMEOUT", f"the model at {self.endpoint} did not answer within {self.timeout:g} s"
            ) from None
        except httpx2.TimeoutException:
            raise ModelError(
                "MODEL_TIMEOUT", f"the model at {self.endpoint} did not answer within {self.timeout:g} s"
            ) from None
        except httpx2.HTTPError as exc:
            raise ModelError("MODEL_ERROR", f"the model at {self.endpoint} could not be reached: {exc}") from None
        if response.status_code != 200:
            detail = response.text[:300].strip()
            raise ModelError(
                "MODEL_ERROR", f"the model at {self.endpoint} answered HTTP {response.status_code}: {detail}"
            )
        return _reply_text(response, self.endpoint)


def _reply_text(response: httpx2.Response, endpoint: str) -> str:
    try:
        data = response.json()
        content = data["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelError("MODEL_ERROR", f"the model at {endpoint} did not answer with a chat completion") from None
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if not isinstance(content, str) or not content.strip():
        raise ModelError("MODEL_ERROR", f"the model at {endpoint} answered with no text")
    return content[:MAX_ANSWER_CHARS]
