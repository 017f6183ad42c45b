"""The four victories, each reached from a constructed state: through ``step_game`` (the adapter's
compiled copy), through the
game-contract adapter (``validate_game`` names the kind and the winner) and through the manager."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.adapter import TerraNovaState
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.rules.units import found_city
from hexarena.games.terranova.engine.rules.victory import VICTORIES, decide, qualifiers
from hexarena.games.terranova.engine.spaces import random_actions
from hexarena.games.terranova.engine.state import map_layers
from hexarena.games.terranova.engine.step import new_game
from hexarena.games.terranova.engine.tables import citystate_rules, load_tables

from ..tn_helpers import contract_step

TB = load_tables()
PARTS = citystate_rules()["spaceship_parts"]


def fresh(seed: int = 3, auto_reset: bool = False):
    layers = jax.tree_util.tree_map(jnp.asarray, map_layers(generate(seed)))
    return new_game(layers, jax.random.PRNGKey(seed), 300, auto_reset)


def science(s, player: int = 2, parts=PARTS):
    s = found_city(s, jnp.int32(player), s.units.pos[player, 0])
    b = s.cities.buildings.at[player, 0, TB.building("apollo_program")].set(True)
    for name in parts:
        b = b.at[player, 0, TB.building(name)].set(True)
    return s._replace(cities=s.cities._replace(buildings=b))


def domination(s, player: int = 1, rivals=(0, 2, 3, 4, 5)):
    pl = s.players
    sacked = pl.has_sacked
    for q in rivals:
        sacked = sacked.at[player, q].set(True)
    return s._replace(
        players=pl._replace(has_sacked=sacked, ever_settled=pl.ever_settled.at[player].set(True))
    )


LIFETIME = jnp.asarray([5, 10, 3, 0, 7, 2], jnp.float32)


def culture(s, player: int = 4, margin: float = 1.0):
    tourism = jnp.zeros((6, 6), jnp.float32).at[player].set(LIFETIME + margin)
    return s._replace(players=s.players._replace(tourism=tourism, culture_total=LIFETIME))


def diplomatic(s, player: int = 5, allies: int = 12, turn: int = 29, press: bool = True):
    """Round ``turn`` is ending (player 5 to move); ``player`` has ``allies`` city-state allies and
    has seen every player's first city."""
    for q in range(6):
        s = found_city(s, jnp.int32(q), s.units.pos[q, 0])
    techs = s.players.techs.at[player, TB.tech("printing_press")].set(press)
    vis = s.tiles.visibility.at[player].set(2)
    inf = s.citystates.influence.at[:allies, player].set(100.0)
    return s._replace(
        players=s.players._replace(techs=techs, have_met=s.players.have_met.at[player].set(True)),
        tiles=s.tiles._replace(visibility=vis),
        citystates=s.citystates._replace(influence=inf),
        turn=jnp.int32(turn),
        player=jnp.int32(5),
    )


SCENES = {
    "science": (science, 2),
    "domination": (domination, 1),
    # a margin above one turn's culture: the mover's lifetime culture grows in the turn played
    "culture": (lambda s: culture(s, margin=25.0), 4),
    "diplomatic": (diplomatic, 5),
}


@pytest.fixture(scope="module")
def start():
    return fresh()


def pass_actions():
    return jax.tree_util.tree_map(jnp.zeros_like, random_actions(jax.random.PRNGKey(0), ()))


@pytest.mark.parametrize("kind", list(SCENES))
def test_each_victory_ends_the_game_through_step_game(start, kind):
    scene, winner = SCENES[kind]
    s = scene(start)
    out, _ex, done, who = contract_step(s, pass_actions())
    assert bool(done) and int(who) == winner and VICTORIES[int(out.victory)] == kind
    assert bool(out.done) and int(out.winner) == winner


def test_near_misses_do_not_end_the_game(start):
    misses = [
        science(start, parts=PARTS[:-1]),  # no stasis chamber
        domination(start, rivals=(0, 2, 3, 4)),  # player 5's capital stands
        culture(start, margin=0.0),  # tourism equal to lifetime culture is not above it
        diplomatic(start, allies=11),  # 11 votes
        diplomatic(start, turn=28),  # no session this round
        diplomatic(start, press=False),  # no Congress without Printing Press
    ]
    for s in misses:
        out, _ex, done, who = contract_step(s, pass_actions())
        assert not bool(done) and int(who) == -1 and int(out.victory) == 0


def test_the_first_kind_in_order_and_the_lowest_player_win_ties(start):
    both = culture(science(start, player=2), player=4)
    kinds = np.asarray(qualifiers(both, jnp.int32(-1), jnp.bool_(False)))
    assert kinds[VICTORIES.index("science") - 1, 2] and kinds[VICTORIES.index("culture") - 1, 4]
    kind, who = decide(both, jnp.int32(-1), jnp.bool_(False))
    assert VICTORIES[int(kind)] == "science" and int(who) == 2
    two = science(science(start, player=4), player=2)
    assert int(decide(two, jnp.int32(-1), jnp.bool_(False))[1]) == 2


def test_a_batched_game_restarts_after_a_victory():
    s = culture(fresh(auto_reset=True))
    out, _ex, done, who = contract_step(s, pass_actions())
    assert bool(done) and int(who) == 4 and int(out.turn) == 0 and int(out.victory) == 0
    assert float(out.players.tourism.sum()) == 0


def _adapter_game(kind: str) -> TerraNovaState:
    game = TerraNovaState.new(seed=3, turn_cap=300)
    scene, _ = SCENES[kind]
    env = dataclasses.replace(game.environment, state=scene(game.environment.state))
    env = dataclasses.replace(env, player=int(env.state.player), turn=int(env.state.turn))
    return dataclasses.replace(game, environment=env, roles=game.roles_for(env))


@pytest.mark.parametrize("kind", list(SCENES))
def test_the_adapter_names_the_victory_and_the_winner(kind):
    game = _adapter_game(kind)
    assert game.validate_game() is None
    after = game.apply({})
    assert after.message is None
    outcome = after.validate_game()
    _, winner = SCENES[kind]
    who = after.all_roles()[winner]
    assert outcome is not None and outcome.reason == f"{who} won a {kind} victory"
    assert outcome.ranking[0] == (who,)
    assert after.environment_to_json()["victory"] == kind
    assert f"{kind} victory" in after.render_text(who)


def test_the_manager_records_the_victory(tmp_path):
    from hexarena.core.config import parse_config
    from hexarena.core.manager import GameManager
    from hexarena.games.terranova.engine.tables import ROLES as roles

    raw = {
        "game": {"name": "terranova", "seed": 3, "params": {"turn_cap": 300}},
        "players": [{"type": "random", "roles": [r], "seed": i} for i, r in enumerate(roles)],
        "output": {"dir": str(tmp_path)},
    }
    manager = GameManager(parse_config(raw, "test"), raw_config=raw)
    manager.games[-1] = manager._state = _adapter_game("domination")
    result = manager.start()
    assert result.outcome.kind == "win" and result.outcome.reason == "blue won a domination victory"
    assert result.outcome.ranking[0] == ("blue",)
