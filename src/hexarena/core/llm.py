"""An LLM player over any OpenAI-compatible chat-completions API (OpenAI, vLLM, Ollama, OpenRouter).

The prompt holds the game's rules summary, the rendered state of the player's role, the legal
moves (numbered, when the game lists them), what the other roles did since this player's last
turn, and the last rejection message. Both prompts are templates (``system_prompt``,
``prompt_template``) with the placeholders of :data:`PLACEHOLDERS`.

The reply comes in one of three modes, each with exactly one place a move is read from:

``tool`` (default)
    the model is made to call a ``make_move(move)`` function: the move is the call's ``move``
    argument, nothing else (not the text around the call, not ``reasoning``);
``json``
    the model answers a JSON object ``{"move": ...}`` (``response_format: json_object``): the
    move is its ``move`` field;
``text``
    the model ends its answer with a line ``MOVE: <move>``: the move is the last such line, or
    the whole reply where it is nothing but a move (which the game's reader then decides).

Anything else (no tool call, arguments that are not a JSON object with ``move``, prose without
a ``MOVE:`` line) is a parse error with feedback, so a model is never credited with a move it
only quoted from the prompt or the harness's feedback. A ``#n`` move picks the n-th listed move.
A server that refuses tools or JSON mode (HTTP 400/422) is asked again in text mode, for the
rest of the match.
Transport failures are raised for the manager to retry (see :mod:`hexarena.core.llm_client`).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from hexarena.core.contract import GameState
from hexarena.core.errors import ApiRequestError, MoveParseError
from hexarena.core.llm_client import ChatClient, Completion
from hexarena.core.players import Player, Reply

MAX_LISTED_MOVES = 300
#: The host ``$OPENAI_API_KEY`` is meant for; sending it elsewhere is said out loud.
OPENAI_HOST = "api.openai.com"
log = logging.getLogger(__name__)
ReplyMode = Literal["tool", "json", "text"]
REPLY_MODES: tuple[str, ...] = ("tool", "json", "text")

#: The placeholders a prompt template may use, written ``{name}``; other braces stay as they are.
PLACEHOLDERS = {
    "game": "the game's name",
    "role": "the role to move",
    "rules": "the game's rules summary",
    "reply_instructions": "how to answer, for the reply mode in use",
    "state": "the board as the role sees it",
    "legal_moves": "the numbered legal moves (empty where the game does not list them)",
    "since_last_turn": "the other roles' moves since this role last moved",
    "feedback": "the manager's message: who you play, or why the last move was rejected",
}
DEFAULT_SYSTEM_PROMPT = "You are playing the game {game} as {role}. {rules}\n{reply_instructions}"
DEFAULT_PROMPT_TEMPLATE = "{state}\n\n{legal_moves}\n\n{since_last_turn}\n\n{feedback}\n\nYour move, {role}."

_NUMBERS = "If legal moves are listed with numbers, you may answer #<number>."
REPLY_INSTRUCTIONS = {
    "tool": f"Call the function make_move with your move. {_NUMBERS}",
    "json": 'Answer with one JSON object {"move": "<your move>"}; you may add "reasoning". ' + _NUMBERS,
    "text": "Think briefly if you like, then end your answer with one line of the form\n"
    "MOVE: <your move>\n" + _NUMBERS,
}
MOVE_TOOL = {
    "type": "function",
    "function": {
        "name": "make_move",
        "description": "Play one move in the game.",
        "parameters": {
            "type": "object",
            "properties": {
                "move": {"type": "string", "description": "the move, as the game writes it, or #<number>"},
                "reasoning": {"type": "string", "description": "optional: why"},
            },
            "required": ["move"],
        },
    },
}

_PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)\}")
_MOVE_LINE = re.compile(r"^\s*\**\s*MOVE\s*\**\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
_NUMBERED = re.compile(r"^#\s*(\d+)$")


def check_template(template: str) -> str:
    """The template, if every ``{name}`` in it is a known placeholder; else a ValueError naming it."""
    unknown = sorted({m for m in _PLACEHOLDER.findall(template) if m not in PLACEHOLDERS})
    if unknown:
        names = ", ".join("{" + u + "}" for u in unknown)
        known = ", ".join("{" + k + "}" for k in PLACEHOLDERS)
        raise ValueError(f"unknown placeholder(s) {names}; known: {known}")
    return template


def fill(template: str, values: Mapping[str, str]) -> str:
    """Substitute the placeholders; sections left empty do not leave runs of blank lines."""
    text = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


class LLMPlayer(Player):
    """Plays by asking a chat model. The API key is held in memory only, never recorded.

    ``price`` is USD per million tokens, ``{"prompt": p, "completion": c}``; with it each reply's
    cost goes into the record and the summary.
    """

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
        system_prompt: str | None = None,
        prompt_template: str | None = None,
        reply_mode: ReplyMode = "tool",
        price: Mapping[str, float] | None = None,
    ) -> None:
        super().__init__(name or model)
        if reply_mode not in REPLY_MODES:
            raise ValueError(f"reply_mode must be one of {', '.join(REPLY_MODES)}, got {reply_mode!r}")
        self.model = model
        self.client = ChatClient(base_url, api_key)
        self.base_url = self.client.base_url
        host = urlsplit(self.base_url).hostname
        if api_key and api_key == os.environ.get("OPENAI_API_KEY") and host != OPENAI_HOST:
            log.warning(  # a config from someone else may name any server: say which key goes where
                "warning: llm player %r sends your $OPENAI_API_KEY to %s, not to %s; give it its own "
                "key (api_key: ${VAR}) unless that host should have your OpenAI key",
                self.name,
                host,
                OPENAI_HOST,
            )
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout_s = timeout_s
        self.show_legal_moves = show_legal_moves
        self.extra_body = dict(extra_body or {})
        self.system_prompt = check_template(system_prompt or DEFAULT_SYSTEM_PROMPT)
        self.prompt_template = check_template(prompt_template or DEFAULT_PROMPT_TEMPLATE)
        self.reply_mode: ReplyMode = reply_mode
        self.mode: ReplyMode = reply_mode  # falls back to "text" if the server refuses the mode
        self.price = dict(price or {})

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.kind,
            "model": self.model,
            "base_url": self.base_url,
            "reply_mode": self.mode,
        }

    def reset(self, roles: tuple[str, ...], seed: int) -> None:
        self.mode = self.reply_mode

    # -------------------------------------------------------------------------- prompt ---
    def build_messages(self, view: GameState) -> tuple[list[dict[str, str]], tuple[Any, ...]]:
        """The chat messages for this view (in the current reply mode), and the moves they number."""
        role = view.viewer or view.roles[0]
        listed: tuple[Any, ...] = ()
        legal = ""
        moves = view.legal_moves() if self.show_legal_moves else None
        if moves:
            listed = tuple(moves[:MAX_LISTED_MOVES])
            lines = [f"#{i + 1}: {view.format_move(m)}{view.move_note(m)}" for i, m in enumerate(listed)]
            more = f"\n(... and {len(moves) - len(listed)} more)" if len(moves) > len(listed) else ""
            legal = "Legal moves:\n" + "\n".join(lines) + more
        values = {
            "game": view.name,
            "role": role,
            "rules": view.rules_summary,
            "reply_instructions": REPLY_INSTRUCTIONS[self.mode],
            "state": view.render_text(role),
            "legal_moves": legal,
            "since_last_turn": since_last_turn_text(view),
            "feedback": view.message or "",
        }
        return [
            {"role": "system", "content": fill(self.system_prompt, values)},
            {"role": "user", "content": fill(self.prompt_template, values)},
        ], listed

    def request_body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        """The chat-completions request for these messages in the current reply mode."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.mode == "tool":
            body["tools"] = [MOVE_TOOL]
            body["tool_choice"] = {"type": "function", "function": {"name": "make_move"}}
        elif self.mode == "json":
            body["response_format"] = {"type": "json_object"}
        return {**body, **self.extra_body}

    def extract_move(self, answer: Completion, listed: tuple[Any, ...], view: GameState) -> str:
        """The move text of an answer in the current reply mode (see the module docstring); a
        listed ``#n`` is resolved to its move. Raises :class:`MoveParseError` saying what the
        mode wanted where the answer has no move in its place."""
        if self.mode == "tool":
            if answer.tool_arguments is None:
                raise MoveParseError("no make_move call in the reply; call make_move with your move")
            move = _json_move(answer.tool_arguments)
            if move is None:
                raise MoveParseError('the make_move arguments are not a JSON object with a "move"')
        elif self.mode == "json":
            move = _json_move(answer.text)
            if move is None:
                raise MoveParseError('the reply is not one JSON object with a "move" field')
        else:
            found = _MOVE_LINE.findall(answer.text)
            move = found[-1].strip().strip("`").strip() if found else _unfenced(answer.text)
        numbered = _NUMBERED.match(move)
        if numbered and listed:
            k = int(numbered.group(1))
            if 1 <= k <= len(listed):
                return view.format_move(listed[k - 1])
        return move

    # ---------------------------------------------------------------------------- call ---
    def act(self, view: GameState) -> Reply:
        return self.act_within(view, self.timeout_s)

    def act_within(self, view: GameState, timeout_s: float) -> Reply:
        """Ask the model; the request is cancelled after ``timeout_s`` (capped by ``timeout_s``
        of the player's config) and raises a :class:`TransportError`."""
        meta: dict[str, Any] = {}
        while True:
            messages, listed = self.build_messages(view)
            try:
                answer = self.client.complete(self.request_body(messages), min(timeout_s, self.timeout_s))
                break
            except ApiRequestError as exc:
                if self.mode == "text" or exc.status not in (400, 422):
                    raise
                meta["fallback"] = f"{self.mode} mode refused, using text mode: {exc}"
                self.mode = "text"
        reply = answer.tool_arguments if answer.tool_arguments is not None else answer.text
        meta.update(mode=self.mode, usage=self._usage(answer))
        unreadable = None
        try:
            raw = self.extract_move(answer, listed, view)
        except MoveParseError as exc:
            raw, unreadable = reply or "", str(exc)
        # each text stored once: the model's words and a tool call's arguments where they are
        # more than the move read from them (the record's ``raw``; the viewer shows all three)
        if answer.text and answer.text != raw:
            meta["reply"] = answer.text
        if answer.tool_arguments is not None and answer.tool_arguments != raw:
            meta["tool_arguments"] = answer.tool_arguments
        return Reply(raw=raw, meta=meta, unreadable=unreadable)

    def complete(self, messages: list[dict[str, str]]) -> tuple[str, dict[str, Any]]:
        """One plain chat-completions call: the answer's text and its token usage."""
        answer = self.client.complete(self.request_body(messages), self.timeout_s)
        return answer.text, self._usage(answer)

    def _usage(self, answer: Completion) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
        }
        if self.price:
            cost = answer.prompt_tokens * self.price.get("prompt", 0.0)
            cost += answer.completion_tokens * self.price.get("completion", 0.0)
            usage["cost_usd"] = cost / 1e6
        return usage


def since_last_turn_text(view: GameState) -> str:
    """The ``since_last_turn`` events the manager put in the view's context, as prompt lines."""
    events = view.context.get("since_last_turn") or ()
    if not events:
        return ""
    lines = [f"- {e['role']}: {e['text']}" for e in events]
    omitted = view.context.get("since_last_turn_omitted") or 0
    head = f"({omitted} earlier moves omitted)\n" if omitted else ""
    return "Since your last turn:\n" + head + "\n".join(lines)


def _unfenced(text: str) -> str:
    """A reply without the code fence or backticks a model may wrap it in."""
    return text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip().strip("`")


def _json_move(text: str) -> str | None:
    """``move`` of a JSON object answer (a tool call's arguments, or JSON mode), else None."""
    stripped = _unfenced(text)
    if not stripped.startswith("{"):
        return None
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or "move" not in data:
        return None
    move = data["move"]
    return move.strip() if isinstance(move, str) else json.dumps(move)
