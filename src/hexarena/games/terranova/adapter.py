"""Terra Nova through the hexarena game contract: one game, one player's turn per move.

A move is that player's full preference tuple, or the sparse form of :mod:`.moves` expanded to
it. The jitted single-game step resolves it; the executed indices (the spec's executed-action
tuple, -1 = none) go into the environment as feedback for the next view. Scores are the game
score. A view (``query_game(role)``) holds that role's observation only, never the full state.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, ClassVar

import jax
import numpy as np

from hexarena.core.contract import GameState, Move, Outcome, OutcomeKind, new_setup
from hexarena.core.frozen import FrozenMap
from hexarena.core.rng import derive_seed
from hexarena.games.terranova import compiled
from hexarena.games.terranova import moves as tn_moves
from hexarena.games.terranova.mapgen import generate
from hexarena.games.terranova.observe import Tracker
from hexarena.games.terranova.recorder import ROLES, frame_of
from hexarena.games.terranova.state import GameState as SimState
from hexarena.games.terranova.state import map_layers
from hexarena.games.terranova.tables import load_tables
from hexarena.games.terranova.text import surroundings


def _to_lists(tree: Any) -> Any:
    if isinstance(tree, tuple):
        return [_to_lists(t) for t in tree]
    return np.asarray(tree).tolist()


def _scores(scores: Any) -> tuple[float, ...]:
    return tuple(float(x) for x in np.asarray(scores))


@dataclass(frozen=True, slots=True)
class TerraNovaEnv:
    """The environment: the simulator state (None in a view), or a role's observation."""

    player: int
    turn: int
    done: bool
    winner: int
    turn_cap: int
    scores: tuple[float, ...]
    executed: Any = None  # the last move's executed indices (nested lists)
    state: SimState | None = None  # one game, stepped by the simulator's step_game (compiled.py)
    tracker: Tracker | None = None
    view: dict[str, Any] | None = None  # a role's observation (numpy), in a redacted view
    viewer: int = -1


@dataclass(frozen=True, slots=True, kw_only=True)
class TerraNovaState(GameState):
    """Terra Nova (Civilization V-style 4X, stage 1) for six players."""

    name: ClassVar[str] = "terranova"
    rules_summary: ClassVar[str] = (
        "Terra Nova, a Civilization V-style game for six players on a 42 x 66 hex map that wraps "
        "east-west. Each player starts with a settler and a warrior, founds cities, works tiles, "
        "grows, researches technologies, builds buildings, wonders and units, improves land with "
        "workers and fights with the Civ V combat formula. A move is a preference order: for each "
        "endpoint the best legal option is executed (technology, each unit's action and target, each "
        "city's worked tiles and build). Write moves as JSON, e.g. "
        '{"tech": ["pottery"], "units": {"0": {"category": "settle"}}, "build": {"0": ["warrior"]}}. '
        "Score: 0.6 per city, citizen and owned tile, 1 per world wonder and per technology beyond the "
        "first. The game ends at the turn cap or when one player has sacked every rival capital."
    )
    demo_params: ClassVar[dict[str, Any]] = {"turn_cap": 30}
    bots: ClassVar[dict[str, str]] = {"heuristic": "hexarena.games.terranova.bot:HeuristicPlayer"}

    @classmethod
    def new(cls, seed: int = 0, turn_cap: int = 300, map_seed: int | None = None) -> TerraNovaState:
        if not isinstance(turn_cap, int) or turn_cap < 1:
            raise ValueError(f"turn_cap must be a positive int, got {turn_cap!r}")
        mseed = seed if map_seed is None else int(map_seed)
        setup = new_setup(cls.name, seed, {"turn_cap": turn_cap, "map_seed": mseed})
        key = jax.random.split(jax.random.PRNGKey(derive_seed(seed, "terranova") % (2**31)), 1)[0]
        state, tracker, scores = compiled.start(map_layers(generate(mseed)), key, turn_cap)
        env = TerraNovaEnv(0, 0, False, -1, turn_cap, _scores(scores), state=state, tracker=tracker)
        return cls.start(env, setup)

    # -- rules -----------------------------------------------------------------------------
    def all_roles(self) -> tuple[str, ...]:
        return ROLES

    def roles_for(self, environment: TerraNovaEnv) -> tuple[str, ...]:
        p = environment.player
        return ROLES[p:] + ROLES[:p]

    def advance(self, move: Move) -> TerraNovaEnv:
        env: TerraNovaEnv = self.environment
        dense = tn_moves.to_dense(move)
        state, tracker, executed, done, winner, scores = compiled.step(env.state, env.tracker, dense)
        return TerraNovaEnv(
            player=int(state.player),
            turn=int(state.turn),
            done=bool(done),
            winner=int(winner),
            turn_cap=env.turn_cap,
            scores=_scores(scores),
            executed=_to_lists(executed),
            state=state,
            tracker=tracker,
        )

    def validate_game(self) -> Outcome | None:
        env: TerraNovaEnv = self.environment
        if not env.done:
            return None
        scores = self.get_scores()
        if env.winner >= 0:
            who = ROLES[env.winner]
            tiebreak = {r: (1.0 if r == who else 0.0) for r in ROLES}
            boosted = {r: s + (1e6 if r == who else 0.0) for r, s in scores.items()}
            out = Outcome.from_scores(OutcomeKind.WIN, f"{who} won by domination", boosted, tiebreak=tiebreak)
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
        view = jax.tree_util.tree_map(np.asarray, compiled.observation(env.state, env.tracker, me))
        executed = env.executed if me == (env.player - 1) % len(ROLES) else None
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
        )

    def _obs(self, role: str | None) -> tuple[dict[str, Any], int]:
        env: TerraNovaEnv = self.environment
        if env.view is not None:
            return env.view, env.viewer
        me = ROLES.index(role) if role is not None else env.player
        return self.redact(ROLES[me]).view, me

    def legal_moves(self) -> tuple[Move, ...]:
        if self.validate_game() is not None:
            return ()
        obs, me = self._obs(self.roles[0])
        return tuple(FrozenMap(m) if isinstance(m, dict) else m for m in tn_moves.menu(obs, me))

    def render_text(self, role: str | None = None) -> str:
        tb = load_tables()
        env: TerraNovaEnv = self.environment
        obs, me = self._obs(role or self.viewer)
        lines = [
            f"Terra Nova, round {env.turn} of {env.turn_cap}; {ROLES[env.player]} to move; you: {ROLES[me]}.",
            "Scores: " + ", ".join(f"{r} {s:.1f}" for r, s in zip(ROLES, env.scores, strict=True)),
            f"Gold {float(obs['treasury']):.0f}, happiness {float(obs['happiness']):.0f}, "
            f"science stored {float(obs['science_reserves']):.0f}.",
        ]
        known = [tb.tech_names[t] for t in np.flatnonzero(obs["technologies"])]
        r = int(obs["is_researching"])
        lines.append(
            f"Technologies: {', '.join(known)}; researching {tb.tech_names[r] if r >= 0 else 'nothing'}."
        )
        pc = obs["player_cities"]
        names = tn_moves.buildable_names()
        for c in np.flatnonzero(pc["city_ids"][me] > 0):
            row, col = pc["city_rowcols"][me, c]
            build = int(pc["is_constructing"][c])
            lines.append(
                f"City {c} at tile {row * 66 + col} (row {row}, col {col}): pop {pc['population'][me, c]}, "
                f"building {names[build] if build >= 0 else 'nothing'}, hp {pc['hp'][me, c]:.2f}."
            )
        units = obs["units"]
        for p in range(len(ROLES)):
            for s in np.flatnonzero(units["unit_type"][p] > 0):
                row, col = units["unit_rowcol"][p, s]
                owner = "your" if p == me else f"{ROLES[p]}'s"
                lines.append(
                    f"{owner} {tb.unit_names[units['unit_type'][p, s]]} (slot {s}) at tile {row * 66 + col}, "
                    f"hp {units['health'][p, s]:.2f}."
                )
        lines.extend(surroundings(obs, tb, me))
        if env.executed is not None and env.view is not None:
            lines.append(f"Your last move executed: {env.executed}.")
        outcome = self.validate_game()
        lines.append(f"Game over: {outcome.reason}." if outcome else f"To move: {self.roles[0]}.")
        return "\n".join(lines)

    def frame(self) -> dict[str, Any] | None:
        env: TerraNovaEnv = self.environment
        if env.state is None:
            return None
        return frame_of(jax.tree_util.tree_map(np.asarray, env.state), np.asarray(env.scores))

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
            "scores": list(env.scores),
            "executed": env.executed,
            "state_sha256": digest.hexdigest(),
        }
