"""An LLM player over any OpenAI-compatible chat-completions API (OpenAI, vLLM, Ollama, OpenRouter).

The prompt holds the game's rules summary, the rendered state of the player's role, the legal
moves (numbered, when the game lists them) and the last rejection message. The model answers
with a final line ``MOVE: <move>`` (or ``MOVE: #<number>`` for a listed move); the game parses
the move, so a malformed answer becomes a parse error with feedback rather than a crash.

Only the standard library is used. Network failures, timeouts, rate limits and 5xx answers
raise :class:`TransportError` (retried by the manager, not held against the player); other HTTP
errors raise :class:`PlayerError`.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

from hexarena.core.contract import GameState
from hexarena.core.errors import PlayerError, TransportError
from hexarena.core.players import Player, Reply

MAX_LISTED_MOVES = 300
_MOVE_LINE = re.compile(r"^\s*\**\s*MOVE\s*\**\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_NUMBERED = re.compile(r"^#\s*(\d+)$")


class LLMPlayer(Player):
    """Plays by asking a chat model. The API key is held in memory only, never recorded."""

    kind = "llm"

    def __init__(
        self,
        model: str,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        *,
        name: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        timeout_s: float = 60.0,
        show_legal_moves: bool = True,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(name or model)
        self.model = model
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.show_legal_moves = show_legal_moves
        self.extra_body = dict(extra_body or {})

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.kind, "model": self.model, "base_url": self.base_url}

    # -------------------------------------------------------------------------- prompt ---
    def build_messages(self, view: GameState) -> tuple[list[dict[str, str]], tuple[Any, ...]]:
        """The chat messages for this view, and the numbered moves they list."""
        role = view.viewer or view.roles[0]
        system = (
            f"You are playing the game {view.name} as {role}. {view.rules_summary}\n"
            "Think briefly if you like, then end your answer with one line of the form\n"
            "MOVE: <your move>\n"
            "If legal moves are listed with numbers, you may answer MOVE: #<number>."
        )
        parts = [view.render_text(role)]
        listed: tuple[Any, ...] = ()
        moves = view.legal_moves() if self.show_legal_moves else None
        if moves:
            listed = tuple(moves[:MAX_LISTED_MOVES])
            lines = [f"#{i + 1}: {view.format_move(m)}" for i, m in enumerate(listed)]
            more = f"\n(... and {len(moves) - len(listed)} more)" if len(moves) > len(listed) else ""
            parts.append("Legal moves:\n" + "\n".join(lines) + more)
        if view.message:
            parts.append(view.message)
        parts.append(f"Your move, {role}.")
        return [
            {"role": "system", "content": system},
            {"role": "user", "content": "\n\n".join(parts)},
        ], listed

    @staticmethod
    def extract_move(text: str, listed: tuple[Any, ...], view: GameState) -> str:
        """The move text from an answer: the last ``MOVE:`` line (a ``#n`` resolved), else all of it."""
        found = _MOVE_LINE.findall(text)
        move = found[-1].strip().strip("`") if found else text.strip()
        numbered = _NUMBERED.match(move)
        if numbered and listed:
            k = int(numbered.group(1))
            if 1 <= k <= len(listed):
                return view.format_move(listed[k - 1])
        return move

    # ---------------------------------------------------------------------------- call ---
    def act(self, view: GameState) -> Reply:
        messages, listed = self.build_messages(view)
        content, usage = self.complete(messages)
        return Reply(raw=self.extract_move(content, listed, view), meta={"reply": content, "usage": usage})

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, Any]]:
        """One chat-completions call: the answer's text and the token usage."""
        body = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            **self.extra_body,
        }
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers=headers,
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode(errors="replace")
            if exc.code == 429 or exc.code >= 500:
                raise TransportError(f"HTTP {exc.code} from {self.base_url}: {detail}") from None
            raise PlayerError(f"HTTP {exc.code} from {self.base_url}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            raise TransportError(f"cannot reach {self.base_url}: {exc}") from None
        try:
            data = json.loads(payload)
            content = data["choices"][0]["message"]["content"]
        except (json.JSONDecodeError, KeyError, IndexError, TypeError) as exc:
            raise TransportError(f"malformed answer from {self.base_url}: {exc!r}") from None
        return (content or ""), dict(data.get("usage") or {})
