"""One OpenAI-compatible chat-completions endpoint, through the ``openai`` SDK.

The SDK does the HTTP (connection pool, TLS, auth header, JSON, typed answers) for OpenAI, vLLM,
Ollama, OpenRouter and any other server that speaks the chat-completions protocol. Its own
retries are switched off (``max_retries=0``): the manager retries, because its budget is per
match and every failed try is written to the record. This module only sorts failures:

* :class:`~hexarena.core.errors.TransportError` (retry may help): connection refused, DNS, TLS,
  a timeout, HTTP 408/409/425/429/5xx, an unreadable body; ``retry_after`` from the server;
* :class:`~hexarena.core.errors.ApiRequestError` (retry cannot help): HTTP 400/401/403/404 and
  the other 4xx, with the server's own message.

No answer is read past :data:`MAX_ANSWER_BYTES`: a longer one (a model writing on and on, a
server ignoring ``max_tokens``) is the player's failed attempt (:class:`AnswerTooLargeError`),
and nothing of it is kept.

Each request runs on an event loop of the calling thread under ``asyncio.wait_for``, so a
deadline really cancels it (the connection is closed, no thread is left behind). The SDK client
of an endpoint is made once per thread and kept (making one costs ~100 ms: TLS context, headers),
so its connections are reused across moves and matches; all are closed at exit.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import json
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from contextlib import suppress
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from hexarena.core.errors import ApiRequestError, ConfigError, PlayerError, TransportError
from hexarena.core.untrusted import redact_url, redact_urls

#: HTTP statuses worth retrying: request timeout, conflict, too early, rate limit; and every 5xx.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
#: The most bytes of an answer that are read (a few thousand tokens of text are ~20 KB).
MAX_ANSWER_BYTES = 4 * 2**20


class AnswerTooLargeError(PlayerError):
    """An answer longer than :data:`MAX_ANSWER_BYTES`: the player's attempt fails."""


@dataclass(frozen=True, slots=True)
class Completion:
    """What one chat completion said: its text, a tool call's arguments, and the token counts."""

    text: str
    tool_arguments: str | None
    prompt_tokens: int
    completion_tokens: int


class _Session(threading.local):
    """One event loop per thread and, on it, one SDK client per (base_url, api_key)."""

    runner: asyncio.Runner | None = None
    clients: dict[tuple[str, str], Any]

    def client(self, base_url: str, api_key: str) -> tuple[asyncio.Runner, Any]:
        if self.runner is None:
            self.runner, self.clients = asyncio.Runner(), {}
            atexit.register(_close, self.runner, self.clients)
        if (base_url, api_key) not in self.clients:
            import openai  # imported on first use: the CLI starts faster without it

            http = openai.DefaultAsyncHttpxClient(event_hooks={"response": [_cap_answer]})
            self.clients[base_url, api_key] = openai.AsyncOpenAI(
                base_url=base_url, api_key=api_key, max_retries=0, http_client=http
            )
        return self.runner, self.clients[base_url, api_key]

    def discard(self) -> None:
        """Drop this thread's loop and clients after a Ctrl-C cut a request short: the loop still
        holds that request's task, which would raise the interrupt again in the next request."""
        runner, clients = self.runner, self.clients
        self.runner, self.clients = None, {}
        clients.clear()  # the exit hook of this loop has nothing left to close
        if runner is None:
            return
        with suppress(BaseException):
            loop = runner.get_loop()
            loop.set_exception_handler(lambda loop, context: None)  # the cut request
            if loop.is_running():  # on a helper thread (see ChatClient._run), which closes it
                loop.call_soon_threadsafe(_cancel_tasks, loop)
            else:
                runner.close()


async def _cap_answer(response: Any) -> None:
    """Read an answer's body through :func:`_capped` (a response hook of the SDK's HTTP client)."""
    response.stream = _capped(
        response.stream, redact_url(str(response.request.url)), type(response).__module__
    )


def _capped(inner: Any, url: str, module: str) -> Any:
    """``inner`` (an async byte stream) that raises :class:`AnswerTooLargeError` past the limit.
    Its class derives from the HTTP library the SDK uses (httpx or its successor), which reads
    only streams of its own kind."""
    http = sys.modules[module.split(".")[0]]

    class Capped(http.AsyncByteStream):  # type: ignore[name-defined, misc]
        async def __aiter__(self) -> Any:
            read = 0
            async for chunk in inner:
                read += len(chunk)
                if read > MAX_ANSWER_BYTES:
                    raise AnswerTooLargeError(
                        f"the answer from {url} is longer than {MAX_ANSWER_BYTES // 2**20} MiB, the most "
                        "hexarena reads; nothing of it is kept (set max_tokens)"
                    )
                yield chunk

        async def aclose(self) -> None:
            await inner.aclose()

    return Capped()


def _cancel_tasks(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel every task of ``loop`` (called on the thread running it)."""
    for task in asyncio.all_tasks(loop):
        task.cancel()


def _close(runner: asyncio.Runner, clients: dict[tuple[str, str], Any]) -> None:
    """At exit: close one thread's clients (their connections) and its loop."""
    try:
        for client in clients.values():
            runner.run(client.close())
        runner.close()
    except RuntimeError:  # that thread is still inside a request (a daemon thread at exit)
        pass


_SESSION = _Session()


class ChatClient:
    """Talks to ``{base_url}/chat/completions`` (the connections are shared, see above)."""

    def __init__(self, base_url: str, api_key: str | None) -> None:
        if importlib.util.find_spec("openai") is None:
            raise ConfigError("the llm player needs the openai package: pip install 'hexarena[llm]'")
        self.base_url = base_url.rstrip("/")
        #: the endpoint as messages name it: credentials in the URL are masked (user:****@)
        self.url = redact_url(f"{self.base_url}/chat/completions")
        self._api_key = api_key or "no-key"

    def complete(self, request: dict[str, Any], timeout_s: float) -> Completion:
        """One chat completion of ``request`` (the JSON body's fields), within ``timeout_s``."""
        try:
            return self._run(lambda client: self._complete(client, request, timeout_s))
        except TimeoutError:
            raise TransportError(
                f"no answer from {self.url} within {timeout_s:g}s (request cancelled)"
            ) from None

    # ------------------------------------------------------------------------- internals ---
    def _run(self, make: Callable[[Any], Coroutine[Any, Any, Any]]) -> Any:
        """Run ``make(client)`` on this thread's loop; inside a running loop (a notebook, or a
        program driving another event loop from this thread), the loop runs on a helper thread
        that is joined (this thread waits, as it would anyway).

        A Ctrl-C in this thread drops the loop either way (:meth:`_Session.discard`): the next
        request gets a fresh one instead of the one still holding the cut request."""
        runner, client = _SESSION.client(self.base_url, self._api_key)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            try:
                return runner.run(make(client))
            except KeyboardInterrupt:
                _SESSION.discard()
                raise
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = runner.run(make(client))
            except BaseException as exc:  # re-raised in the caller's thread
                box["error"] = exc
            finally:
                if box.get("cut"):  # the caller was interrupted and dropped this loop
                    with suppress(BaseException):
                        runner.close()

        thread = threading.Thread(target=target, name="hexarena-llm", daemon=True)
        try:  # the start too: a Ctrl-C can land as soon as the request is out, before the join
            thread.start()
            thread.join()
        except KeyboardInterrupt:
            box["cut"] = True
            _SESSION.discard()
            raise
        if "error" in box:
            raise box["error"]
        return box["value"]

    async def _complete(self, client: Any, request: dict[str, Any], timeout_s: float) -> Completion:
        import openai
        from openai.types.chat import ChatCompletion

        options = {"timeout": timeout_s + 1.0}  # the wait_for deadline comes first
        try:  # client.post rather than chat.completions.create: our body needs no typed-parameter
            # walk (it costs ~1 ms of CPU per request), and any server-specific field passes through
            answer = await asyncio.wait_for(
                client.post("/chat/completions", cast_to=ChatCompletion, body=request, options=options),
                timeout_s,
            )
        except openai.APITimeoutError:
            raise TransportError(f"no answer from {self.url} within {timeout_s:g}s") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise TransportError(
                f"cannot reach {self.url}: {type(cause).__name__}: {redact_urls(str(cause))}"
            ) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            text = f"HTTP {status} from {self.url}: {_server_message(exc)}"
            if status in RETRYABLE_STATUS or status >= 500:
                raise TransportError(text, retry_after=_retry_after(exc.response.headers)) from None
            raise ApiRequestError(text, status) from None
        except (json.JSONDecodeError, openai.APIResponseValidationError, ValueError) as exc:
            raise TransportError(f"unreadable answer from {self.url}: {redact_urls(str(exc))}") from None
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
    return redact_urls(text.strip()[:300])  # a server may echo the URL it was asked


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
