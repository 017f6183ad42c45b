"""One OpenAI-compatible chat-completions endpoint, through the ``openai`` SDK.

The SDK does the HTTP (connection pool, TLS, auth header, JSON, typed answers) for OpenAI, vLLM,
Ollama, OpenRouter and any other server that speaks the chat-completions protocol. Its own
retries are switched off (``max_retries=0``): the manager retries, because its budget is per
match and every failed try is written to the record. This module only sorts failures:

* :class:`~hexarena.core.errors.TransportError` (retry may help): connection refused, DNS, TLS,
  a timeout, HTTP 408/409/425/429/5xx, an unreadable body; ``retry_after`` from the server;
* :class:`~hexarena.core.errors.ApiRequestError` (retry cannot help): HTTP 400/401/403/404 and
  the other 4xx, with the server's own message.

Each request runs on the client's private event loop under ``asyncio.wait_for``, so a deadline
really cancels it (the connection is closed, no thread is left behind).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from hexarena.core.errors import ApiRequestError, TransportError

#: HTTP statuses worth retrying: request timeout, conflict, too early, rate limit; and every 5xx.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


@dataclass(frozen=True, slots=True)
class Completion:
    """What one chat completion said: its text, a tool call's arguments, and the token counts."""

    text: str
    tool_arguments: str | None
    prompt_tokens: int
    completion_tokens: int


class ChatClient:
    """Talks to ``{base_url}/chat/completions``; :meth:`close` releases the connections."""

    def __init__(self, base_url: str, api_key: str | None) -> None:
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self._api_key = api_key
        self._client: Any = None
        self._runner: asyncio.Runner | None = None

    def complete(self, request: dict[str, Any], timeout_s: float) -> Completion:
        """One chat completion of ``request`` (the JSON body's fields), within ``timeout_s``."""
        try:
            return self._run(self._complete(request, timeout_s))
        except TimeoutError:
            raise TransportError(
                f"no answer from {self.url} within {timeout_s:g}s (request cancelled)"
            ) from None

    def close(self) -> None:
        if self._runner is not None:
            self._run(self._client.close())
            self._runner.close()
        self._client = self._runner = None

    # ------------------------------------------------------------------------- internals ---
    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        """Run on the private loop; from inside a running loop (a notebook), on a joined thread."""
        if self._runner is None:
            import openai  # imported on first use: the CLI starts faster without it

            self._runner = asyncio.Runner()
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url, api_key=self._api_key or "no-key", max_retries=0
            )
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self._runner.run(coro)
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = self._runner.run(coro)  # type: ignore[union-attr]
            except BaseException as exc:  # re-raised in the caller's thread
                box["error"] = exc

        thread = threading.Thread(target=target, name="hexarena-llm")
        thread.start()
        thread.join()
        if "error" in box:
            raise box["error"]
        return box["value"]

    async def _complete(self, request: dict[str, Any], timeout_s: float) -> Completion:
        import openai

        body = dict(request)
        known = {k: body.pop(k) for k in ("model", "messages") if k in body}
        try:
            answer = await asyncio.wait_for(
                self._client.chat.completions.create(**known, extra_body=body, timeout=timeout_s + 1.0),
                timeout_s,
            )
        except openai.APITimeoutError:
            raise TransportError(f"no answer from {self.url} within {timeout_s:g}s") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise TransportError(f"cannot reach {self.url}: {type(cause).__name__}: {cause}") from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            text = f"HTTP {status} from {self.url}: {_server_message(exc)}"
            if status in RETRYABLE_STATUS or status >= 500:
                raise TransportError(text, retry_after=_retry_after(exc.response.headers)) from None
            raise ApiRequestError(text, status) from None
        except (json.JSONDecodeError, openai.APIResponseValidationError, ValueError) as exc:
            raise TransportError(f"unreadable answer from {self.url}: {exc}") from None
        return _completion(answer, self.url)


def _completion(answer: Any, url: str) -> Completion:
    """The parts we use of a ChatCompletion; a shape that lacks them is an unreadable answer."""
    try:
        message = answer.choices[0].message
        calls = message.tool_calls or []
        arguments = calls[0].function.arguments if calls else None
        usage = answer.usage
        return Completion(
            text=message.content or "",
            tool_arguments=arguments,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        )
    except (AttributeError, IndexError, TypeError, ValueError) as exc:
        raise TransportError(f"unreadable answer from {url}: no choices[0].message ({exc})") from None


def _server_message(exc: Any) -> str:
    """The server's own words: ``error.message`` of an OpenAI-style body, else the body's text."""
    body = exc.body
    if isinstance(body, dict):
        body = body.get("message", body.get("error", body))
        if isinstance(body, dict):
            body = body.get("message", body)
    if body is None or body == "":
        body = exc.response.text or exc.response.reason_phrase
    text = body if isinstance(body, str) else json.dumps(body)
    return text.strip()[:300]


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date), if sent."""
    try:
        if "retry-after-ms" in headers:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
