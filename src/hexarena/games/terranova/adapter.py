"""Terra Nova through the hexarena game contract: one game, one player's turn per move.

A move is that player's full preference tuple, or the sparse form of :mod:`.moves` expanded to
it. The jitted single-game step resolves it; the executed indices (the spec's executed-action
tuple, -1 = none) go into the environment as feedback for the next view. Scores are the game
score. A view (``query_game(role)``) holds that role's observation only, never the full state.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import jax
import numpy as np

from hexarena.core.contract import GameState, Move, Outcome, OutcomeKind, new_setup
from hexarena.core.errors import IllegalMoveError, MoveParseError
from hexarena.core.frozen import FrozenMap, freeze, thaw
from hexarena.core.rng import derive_seed
from hexarena.games.terranova.bots.heuristic import default_orders
from hexarena.games.terranova.contract import compiled, orders
from hexarena.games.terranova.contract import moves as tn_moves
from hexarena.games.terranova.contract.judge import judge
from hexarena.games.terranova.contract.menu import default_text, legal_orders
from hexarena.games.terranova.contract.notation import move_text
from hexarena.games.terranova.contract.text.mapview import USAGE, is_map_command, map_command
from hexarena.games.terranova.contract.text.news import facts_of, news
from hexarena.games.terranova.contract.text.religion import religion_lines
from hexarena.games.terranova.contract.text.view import ORDERS_HELP, TextView, describe_executed
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.observe import Tracker
from hexarena.games.terranova.engine.rules.victory import VICTORIES
from hexarena.games.terranova.engine.state import GameState as SimState
from hexarena.games.terranova.engine.state import MapLayers, map_layers
from hexarena.games.terranova.engine.tables import ROLES, load_tables
from hexarena.games.terranova.view.recorder import frame_of
from hexarena.games.terranova.view.screens import new_sacks


def _to_lists(tree: Any) -> Any:
    if isinstance(tree, tuple):
        return [_to_lists(t) for t in tree]
    return np.asarray(tree).tolist()


def _scores(scores: Any) -> tuple[float, ...]:
    return tuple(float(x) for x in np.asarray(scores))


@lru_cache(maxsize=4)
def _layers(map_seed: int) -> MapLayers:
    """The map of ``map_seed`` as state layers, read-only and generated once per process (the
    CLI makes a game to learn its roles, then the manager makes it again: 0.3 s of start-up)."""
    layers = map_layers(generate(map_seed))
    for array in layers:
        array.flags.writeable = False
    return layers


@dataclass(frozen=True, slots=True)
class TerraNovaEnv:
    """The environment: the simulator state (None in a view), or a role's observation."""

    player: int
    turn: int
    done: bool
    winner: int
    turn_cap: int
    scores: tuple[float, ...]
    executed: Any = None  # the last move's executed indices (nested lists); in a view: the viewer's
    executed_by: tuple = (None,) * len(ROLES)  # each player's last executed indices, in the full state
    state: SimState | None = None  # one game, stepped by the simulator's step_game (compiled.py)
    tracker: Tracker | None = None
    view: dict[str, Any] | None = None  # a role's observation (numpy), in a redacted view
    viewer: int = -1
    facts: tuple = (None,) * len(ROLES)  # news.Facts per player at the end of its last move
    options: dict[str, Any] | None = None  # the viewer's options this turn (options.py), in a view
    news: tuple[str, ...] = ()  # what happened since the viewer's last turn, in a view
    victory: int = 0  # the kind of victory that ended the game (victory.VICTORIES), 0 none
    refused_by: tuple = ((),) * len(ROLES)  # each player's orders refused in its last move, with why
    defaulted_by: tuple = ((),) * len(ROLES)  # cities whose last build start the default chose
    refused: tuple[str, ...] = ()  # the viewer's, in a view
    defaulted: tuple[int, ...] = ()
    sacks: tuple = ()  # (round, player, whose capital) of every capital sacked, for the Victory screen


@dataclass(frozen=True, slots=True, kw_only=True)
class TerraNovaState(GameState):
    """Terra Nova (Civilization V-style 4X, the original's rules: the package docstring) for six players."""

    name: ClassVar[str] = "terranova"
    rules_summary: ClassVar[str] = (
        "Terra Nova, a Civilization V-style game for six players on a 42 x 66 hex map that wraps "
        "east-west. Each player starts with a settler and a warrior, founds cities, works tiles, "
        "grows, researches technologies, builds buildings, wonders and units, improves land with "
        "workers and fights with the Civ V combat formula. Write a move as text orders separated by "
        "';', e.g. 'research pottery; unit 0 settle; city 0 build warrior; unit 1 move 12,40' (the "
        "city a settle order founds takes orders in the same turn). Each order is judged on its own: "
        "a refused one is reported with why in your next view, and the move fails only if none could "
        "be carried out. What you leave out follows the default orders the view shows (the heuristic "
        "bot's); 'pass' (or {}) takes them all. JSON preferences work too, e.g. "
        '{"tech": ["pottery"], "units": {"0": {"category": "settle"}}}. '
        "Culture buys social policies, faith a pantheon and then a religion, caravans and deals trade "
        "with rivals and city states. Score: 0.6 per city, citizen and owned tile, 1 per world wonder "
        "and per technology beyond the first, 0.8 per social policy, 0.4 per religious tenet and 0.1 "
        "per great work. The game ends at the turn cap or by a victory: science (every spaceship part "
        "built), domination (every rival capital sacked), culture (tourism on each rival above its lifetime "
        "culture) or diplomatic (World Congress delegates plus allied city states >= 12 at a session)."
    )
    demo_params: ClassVar[dict[str, Any]] = {"turn_cap": 30}
    bots: ClassVar[dict[str, str]] = {
        "heuristic": "hexarena.games.terranova.bots.planner:StrategicPlayer",
        "easy": "hexarena.games.terranova.bots.heuristic:HeuristicPlayer",
        "uniform": "hexarena.games.terranova.bots.uniform:UniformPlayer",
    }
    move_syntax: ClassVar[str] = (
        "orders separated by ';', e.g. 'research writing; city 0 build granary; unit 3 move 12,40; "
        "unit 4 settle' (each order judged on its own; what you leave out, the default decides: "
        "'pass' or {} leaves it all to the default), or one JSON object of "
        'preferences, every key optional, e.g. {"tech": ["pottery"]}, '
        '{"units": {"0": {"category": "settle"}}}, {"build": {"0": ["warrior"]}}'
    )

    @classmethod
    def new(cls, seed: int = 0, turn_cap: int = 300, map_seed: int | None = None) -> TerraNovaState:
        if not isinstance(turn_cap, int) or turn_cap < 1:
            raise ValueError(f"turn_cap must be a positive int, got {turn_cap!r}")
        mseed = seed if map_seed is None else int(map_seed)
        setup = new_setup(cls.name, seed, {"turn_cap": turn_cap, "map_seed": mseed})
        key_seed = derive_seed(seed, "terranova") % (2**31)
        state, tracker, scores = compiled.start(_layers(mseed), key_seed, turn_cap)
        env = TerraNovaEnv(
            0,
            0,
            False,
            -1,
            turn_cap,
            _scores(scores),
            state=state,
            tracker=tracker,
        )
        return cls.start(env, setup)

    # -- rules -----------------------------------------------------------------------------
    def all_roles(self) -> tuple[str, ...]:
        return ROLES

    def roles_for(self, environment: TerraNovaEnv) -> tuple[str, ...]:
        p = environment.player
        return ROLES[p:] + ROLES[:p]

    def advance(self, move: Move) -> TerraNovaEnv:
        env: TerraNovaEnv = self.environment
        dense, refused, ordered = self._dense(move)
        state, tracker, executed, done, winner, scores = compiled.step(env.state, env.tracker, dense)
        turn = int(state.turn)
        facts = list(env.facts)
        # contacts the mover makes on its own move are news at its next turn: its row of who it has
        # met stays as it was before the move (taken after, they would never show)
        after = facts_of(state)
        after.met[env.player] = np.asarray(env.state.players.have_met)[env.player]
        facts[env.player] = after
        done_by = list(env.executed_by)
        done_by[env.player] = _to_lists(executed)
        refused_by, defaulted_by = list(env.refused_by), list(env.defaulted_by)
        started = done_by[env.player][5][1]
        if ordered is not None:  # an order-form move: say which builds the default chose
            names = tn_moves.buildable_names()
            for c, items in ordered.items():
                if started[c] >= 0 and names[started[c]] not in items:
                    refused.append(f"city {c} build {', '.join(items)} (none could be started there)")
            defaulted_by[env.player] = tuple(c for c, b in enumerate(started) if b >= 0 and c not in ordered)
        else:
            defaulted_by[env.player] = ()
        refused_by[env.player] = tuple(refused)
        return TerraNovaEnv(
            player=int(state.player),
            turn=int(state.turn),
            done=bool(done),
            winner=int(winner),
            turn_cap=env.turn_cap,
            scores=_scores(scores),
            executed=done_by[env.player],
            executed_by=tuple(done_by),
            state=state,
            tracker=tracker,
            facts=tuple(facts),
            victory=int(state.victory),
            refused_by=tuple(refused_by),
            defaulted_by=tuple(defaulted_by),
            sacks=(*env.sacks, *new_sacks(env.state.players.has_sacked, state.players.has_sacked, turn)),
        )

    def _dense(self, move: Move) -> tuple[tuple, list[str], dict[int, list[str]] | None]:
        """The preference tuple of a move, its refused orders and, for an order-form move, the
        build items it ordered per city. An order-form move (``"fill": "heuristic"``, and ``{}``,
        which passes) is judged order by order against the mover's options (:mod:`.judge`) and
        completed with the default's preferences; it fails only when it gave orders and every one
        was refused."""
        plain = thaw(move)
        if plain == {}:
            plain = {"fill": orders.FILL}
        if not (isinstance(plain, dict) and "fill" in plain):
            return tn_moves.to_dense(plain), [], None
        if plain["fill"] != orders.FILL:
            raise IllegalMoveError(f"unknown fill {plain['fill']!r}; the one default is {orders.FILL!r}")
        env: TerraNovaEnv = self.environment
        obs, opts = self._view_of(env.player)
        judged = judge(plain, obs, opts, env.player)
        kept = judged.move
        kept.pop("fill")
        if judged.refused and not kept:
            raise IllegalMoveError("no order could be carried out: " + "; ".join(judged.refused))
        default = default_orders(obs, env.player, opts)
        ordered = {int(c): list(items) for c, items in kept.get("build", {}).items()}
        return tn_moves.to_dense(orders.with_defaults(kept, default)), judged.refused, ordered

    def _view_of(self, me: int) -> tuple[dict[str, Any], dict[str, Any]]:
        env: TerraNovaEnv = self.environment
        obs, opts = compiled.view(env.state, env.tracker, me)
        return jax.tree_util.tree_map(np.asarray, obs), jax.tree_util.tree_map(np.asarray, opts)

    def _adoptable(self) -> list[str]:
        """The policies the player to move may adopt now (named in a bad policy order's error)."""
        if self.environment.state is None:
            return []
        _obs, opts = self._view_of(self.environment.player)
        return [load_tables().policy_names[p] for p in np.flatnonzero(opts["policies"])]

    def parse_move(self, text: str) -> Move:
        """JSON (the sparse or dense form, or a listed move) or text orders (:mod:`.orders`)."""
        if not isinstance(text, str):
            raise self.unreadable(text, f"expected text, got {type(text).__name__}")
        body = text.strip().strip("`").strip()
        if body.replace(" ", "") == "{}":
            return freeze({"fill": orders.FILL})  # the documented pass: the same move as 'pass'
        if body.startswith(("{", "[")) or not body or body == "null":
            move = GameState.parse_move(self, text)  # slots dataclass: no zero-argument super()
            if not isinstance(move, FrozenMap | tuple):
                raise self.unreadable(text, "a move is a JSON object, not a bare value")
            try:
                tn_moves.check_move(move)
            except IllegalMoveError as err:
                raise self.unreadable(text, str(err)) from None
            return move
        try:
            return freeze(orders.parse_orders(body, self._adoptable))
        except MoveParseError as err:
            raise self.unreadable(text, str(err)) from None

    def validate_game(self) -> Outcome | None:
        env: TerraNovaEnv = self.environment
        if not env.done:
            return None
        scores = self.get_scores()
        if env.winner >= 0:
            who = ROLES[env.winner]
            tiebreak = {r: (1.0 if r == who else 0.0) for r in ROLES}
            boosted = {r: s + (1e6 if r == who else 0.0) for r, s in scores.items()}
            how = f"{who} won a {VICTORIES[env.victory]} victory"
            out = Outcome.from_scores(OutcomeKind.WIN, how, boosted, tiebreak=tiebreak)
            return Outcome(out.kind, out.reason, FrozenMap(scores), out.ranking)
        return Outcome.from_scores(
            OutcomeKind.WIN, f"turn cap {env.turn_cap} reached; highest score wins", scores
        )

    def get_scores(self) -> dict[str, float]:
        return dict(zip(ROLES, self.environment.scores, strict=True))

    def rounds_played(self) -> int:
        return self.environment.turn

    # -- views -----------------------------------------------------------------------------
    def redact(self, role: str) -> TerraNovaEnv:
        env: TerraNovaEnv = self.environment
        if env.state is None:
            return env
        me = ROLES.index(role)
        view, opts = self._view_of(me)
        seen = view["visibility_map"].reshape(-1) > 0
        now = facts_of(env.state)
        executed = env.executed_by[me]  # what this player's own last move did
        return TerraNovaEnv(
            env.player,
            env.turn,
            env.done,
            env.winner,
            env.turn_cap,
            env.scores,
            executed,
            view=view,
            viewer=me,
            options=opts,
            news=tuple(news(env.facts[me], now, me, seen)),
            victory=env.victory,
            refused=env.refused_by[me],
            defaulted=env.defaulted_by[me],
        )

    def _view(self, role: str | None) -> TerraNovaEnv:
        env: TerraNovaEnv = self.environment
        if env.view is not None:
            return env
        return self.redact(role if role is not None else ROLES[env.player])

    def leave_move(self) -> Move | None:
        """A seat whose player left passes (``{}``: no preferences) every turn."""
        return FrozenMap()

    def legal_moves(self) -> tuple[Move, ...]:
        """Pass, then single orders of every kind the player may give now (:mod:`.menu`)."""
        if self.validate_game() is not None:
            return ()
        view = self._view(self.roles[0])
        ranked = TextView(view.view, view.options, view.viewer).reach_ranked
        return tuple(freeze(m) for m in legal_orders(view.view, view.options, view.viewer, ranked))

    def look(self, text: str) -> str | None:
        """``map R,C`` / ``map unit N`` / ``map city N`` (a local map) and ``help beliefs`` /
        ``help policies`` (what the view shows by name only until it can be acted on)."""
        words = text.strip().lower().split()
        if not words or self.validate_game() is not None:
            return None
        env: TerraNovaEnv = self._view(self.viewer or self.roles[0])
        if is_map_command(text):
            return map_command(text, env.view, env.viewer)
        if words[0] == "help" and len(words) == 2:
            view = TextView(env.view, env.options, env.viewer)
            if words[1] in ("beliefs", "tenets", "religion", "pantheons"):
                return "\n".join(religion_lines(env.view, env.viewer, ROLES, limit=200, full=True))
            if words[1] in ("policies", "policy"):
                return "\n".join(view.adoptable(full=True))
            if words[1] in ("map", "maps"):
                return USAGE
        return None

    def format_move(self, move: Move) -> str:
        """A move in the orders' notation (:mod:`.notation`): an order-form move reads back as
        itself; a preference move is summarised by its first choices."""
        return move_text(move)

    def describe_move(self, move: Move) -> str:
        """Other civilizations see the effects on the map, not the mover's choices."""
        return "took its turn"

    def render_text(self, role: str | None = None) -> str:
        env: TerraNovaEnv = self._view(role or self.viewer)
        me = env.viewer
        header = [
            f"Terra Nova, round {env.turn}; the game ends after round {env.turn_cap} (its turn cap) "
            f"unless a victory comes first. You are {ROLES[me]} (player {me}); {ROLES[env.player]} to move.",
            "Scores: " + ", ".join(f"{r} {s:.1f}" for r, s in zip(ROLES, env.scores, strict=True)) + ".",
        ]
        footer = []
        if env.executed is not None:
            did = describe_executed(env.executed, env.defaulted)
            refused = f" Refused: {'; '.join(env.refused)}." if env.refused else ""
            footer.append(f"Your last move did: {did}.{refused}")
        outcome = self.validate_game()
        if outcome is None and me == env.player:
            default = default_orders(env.view, me, env.options)
            footer.append(
                "Default orders (what 'pass' or {} does; any endpoint you leave out follows them): "
                + default_text(default, env.view, env.options, me)
                + "."
            )
        footer.append(f"Game over: {outcome.reason}." if outcome else f"To move: {self.roles[0]}.")
        footer.append(ORDERS_HELP)
        return TextView(env.view, env.options, me).render(header, list(env.news), footer)

    def frame(self) -> dict[str, Any] | None:
        env: TerraNovaEnv = self.environment
        if env.state is None:
            return None
        return frame_of(jax.tree_util.tree_map(np.asarray, env.state), np.asarray(env.scores), env.sacks)

    def environment_to_json(self) -> Any:
        env: TerraNovaEnv = self.environment
        digest = hashlib.sha256()
        if env.state is not None:
            for leaf in jax.tree_util.tree_leaves(env.state):
                digest.update(np.asarray(leaf).tobytes())
        return {
            "player": env.player,
            "turn": env.turn,
            "done": env.done,
            "winner": env.winner,
            "victory": VICTORIES[env.victory],
            "scores": list(env.scores),
            "executed": env.executed,
            "state_sha256": digest.hexdigest(),
        }
