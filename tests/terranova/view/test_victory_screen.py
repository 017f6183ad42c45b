"""The Victory screen of a finished game says who won, which victory, in which round and how: for
a domination victory, whose capitals the winner sacked and in which rounds (the state keeps only
whether; the recorder and the adapter keep the rounds as the game goes); for a diplomatic one,
the winner's delegates and allies."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from hexarena.games.terranova.adapter import TerraNovaState
from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.rules.victory import VICTORIES
from hexarena.games.terranova.engine.state import map_layers
from hexarena.games.terranova.engine.step import new_game
from hexarena.games.terranova.view.recorder import Recorder, read_replay
from hexarena.games.terranova.view.screens import new_sacks

BLUE = 1


def _sacked(s, rivals, turn: int, won: bool = False):
    """``s`` with blue having sacked the capitals of ``rivals`` by round ``turn`` (``won``: and the
    game over on its domination victory)."""
    pl = s.players
    sacked = np.asarray(pl.has_sacked).copy()
    sacked[BLUE, list(rivals)] = True
    s = s._replace(players=pl._replace(has_sacked=sacked), turn=np.int32(turn))
    if won:
        s = s._replace(victory=np.int32(VICTORIES.index("domination")), winner=np.int32(BLUE))
    return s


def test_the_victory_screen_tells_who_won_which_victory_when_and_how(tmp_path):
    s0 = jax.tree_util.tree_map(
        np.asarray,
        jax.jit(new_game)(
            jax.tree_util.tree_map(jnp.asarray, map_layers(generate(4))), jax.random.PRNGKey(0)
        ),
    )
    states = [
        s0,
        _sacked(s0, [4], 138),
        _sacked(s0, [4, 3], 194),
        _sacked(s0, [4, 3, 0, 2, 5], 251, won=True),
    ]
    path = tmp_path / "won.jsonl.gz"
    with Recorder(path) as rec:
        for s in states:
            rec.record_state(s)
    _, frames = read_replay(path)
    middle, last = frames[2]["screen_victory"], frames[-1]["screen_victory"]
    assert middle["note"] == "round 194 of 300"
    assert middle["rows"][BLUE]["domination"].endswith("sacked; purple's in round 138; yellow's in round 194")
    note = last["note"]
    assert note.startswith("round 251 of 300; blue won a domination victory in round 251, 5 of 5 rival")
    for who, when in (("purple", 138), ("yellow", 194), ("red", 251), ("green", 251), ("orange", 251)):
        assert f"{who}'s in round {when}" in note
    assert new_sacks(s0.players.has_sacked, states[1].players.has_sacked, 138) == ((138, BLUE, 4),)


def test_a_diplomatic_victory_screen_counts_the_winners_delegates_and_allies():
    from hexarena.games.terranova.engine.tables import load_tables
    from hexarena.games.terranova.view.screens import screens

    tb = load_tables()
    s = jax.tree_util.tree_map(np.asarray, TerraNovaState.new(seed=3, turn_cap=300).environment.state)
    buildings, policies = s.cities.buildings.copy(), s.players.policies.copy()
    buildings[BLUE, 0, tb.building("forbidden_palace")] = True  # 2 delegates
    policies[BLUE, list(tb.policy_names).index("consulates")] = True  # 1 more
    relationship = s.citystates.relationship.copy()
    relationship[:9, BLUE] = 2  # allied to nine city states
    s = s._replace(
        cities=s.cities._replace(buildings=buildings),
        players=s.players._replace(policies=policies),
        citystates=s.citystates._replace(relationship=relationship),
        victory=np.int32(VICTORIES.index("diplomatic")),
        winner=np.int32(BLUE),
        turn=np.int32(269),
    )
    victory = screens(s)["screen_victory"]
    assert victory["rows"][BLUE]["diplomatic"] == "3 delegates + 9 allied city states = 12 of 12 votes"
    assert victory["note"] == (
        "round 269 of 300; blue won a diplomatic victory in round 269, "
        "3 delegates + 9 allied city states = 12 of 12 votes"
    )


def test_the_adapters_frames_carry_the_rounds_of_the_sacks():
    game = TerraNovaState.new(seed=3, turn_cap=300)
    env = dataclasses.replace(game.environment, sacks=((120, BLUE, 0),))
    frame = dataclasses.replace(game, environment=env).frame()
    assert frame["screen_victory"]["rows"][BLUE]["domination"].endswith("; red's in round 120")


def _last_note(name: str) -> str:
    """The Victory screen's note in the last frame of ``docs/terranova/<name>``."""
    import gzip
    import json
    from pathlib import Path

    with gzip.open(Path(__file__).parents[3] / "docs" / "terranova" / name, "rt") as f:
        *_, last = f
    return json.loads(last)["delta"]["screen_victory"]["note"]


def test_the_committed_domination_game_ends_on_its_victory_screen():
    """docs/terranova/domination-six-s7.frames.jsonl.gz: six ``heuristic`` bots, seed 7, recorded by
    ``hexarena play`` (benchmarks/README.md "Eighth pass"), a six-bot game to the 300-round cap
    that ended in a victory."""
    note = _last_note("domination-six-s7.frames.jsonl.gz")
    assert "purple won a domination victory in round 206, 5 of 5 rival capitals sacked" in note


def test_the_committed_diplomatic_game_ends_on_its_victory_screen():
    """docs/terranova/diplomatic-six-s2.frames.jsonl.gz: six ``heuristic`` bots, seed 2, recorded by
    ``hexarena play`` (benchmarks/README.md "Ninth pass"), won at the Congress of round 240."""
    assert _last_note("diplomatic-six-s2.frames.jsonl.gz") == (
        "round 240 of 300; green won a diplomatic victory in round 240, "
        "3 delegates + 9 allied city states = 12 of 12 votes"
    )
