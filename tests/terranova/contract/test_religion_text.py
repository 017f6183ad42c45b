"""Religion as a player meets it: the ``tenet`` order (lenient names, the sparse JSON move, refused
when no named tenet can be taken), the text view's religion section, and a tenet order played
through the game manager, bad one first."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import hexarena
from hexarena.core.errors import MoveParseError
from hexarena.games.terranova.contract import moves, orders
from hexarena.games.terranova.contract.text.religion import next_stage, stage_cost, tenet_effects
from hexarena.games.terranova.engine.tables import load_tables

TB = load_tables()


@pytest.fixture(scope="module")
def game():
    return hexarena.make("terranova", seed=1, turn_cap=30)


def test_tenet_orders_are_read_leniently_and_become_the_tenet_scores():
    move = orders.parse_orders("Tenet God King, sun-god; research pottery")
    assert move["tenet"] == ["god_king", "sun_god"] and move["tech"] == ["pottery"]
    assert orders.parse_orders("religion tithe")["tenet"] == ["tithe"]
    dense = moves.to_dense({"tenet": move["tenet"]})
    assert np.argmax(dense[2]) == TB.tenet("god_king") and dense[2][TB.tenet("sun_god")] > 0
    with pytest.raises(MoveParseError, match="unknown tenet 'zen'"):
        orders.parse_orders("tenet zen")
    with pytest.raises(MoveParseError, match="which tenet"):
        orders.parse_orders("pantheon")


def test_stages_and_costs_in_words():
    mine = np.zeros(91, bool)
    assert next_stage(mine, False) == ("pantheon",)
    mine[TB.tenet("god_king")] = True
    assert next_stage(mine, False) == ("founder", "follower")
    mine[[TB.tenet("messiah"), TB.tenet("pagodas"), TB.tenet("mosques")]] = True
    obs = {"religious_tenets": np.stack([mine] + [np.zeros(91, bool)] * 5).astype(int)}
    assert next_stage(mine, False) == ("enhancer",) and stage_cost(obs, 0) == pytest.approx(150.75)
    mine[TB.tenet("dharma")] = True
    assert next_stage(mine, False) == () and next_stage(mine, True) == ("reformation",)
    effects = tenet_effects()
    assert effects[TB.tenet("tithe")] == "+1 gold per 4 followers"
    assert effects[TB.tenet("mithraea")] == "+1% gold per follower (at most 20)"
    assert (
        effects[TB.tenet("ceremonial_burial")]
        == "+1 happiness from each palace; +1 happiness per 2 cities following it"
    )
    assert effects[TB.tenet("pagodas")] == "buys pagoda with faith"
    assert effects[TB.tenet("sacred_waters")] == "+2 culture from each garden; +1 happiness in river cities"
    assert effects[TB.tenet("just_war")].startswith("no effect")


def test_religion_section_of_the_text_view(game):
    sim = game.environment.state
    pl = sim.players
    held = pl.tenets.at[0, TB.tenet("god_king")].set(True).at[3, TB.tenet("tithe")].set(True)
    players = pl._replace(tenets=held, faith=pl.faith.at[0].set(40.0))
    env = dataclasses.replace(game.environment, state=sim._replace(players=players))
    text = dataclasses.replace(game, environment=env).render_text("red")
    section = text[text.index("== Religion ==") : text.index("== Cities ==")]
    assert "Your tenets: god king (pantheon)." in section
    assert "Faith 40; next: founding a religion (a founder and two followers) at 134 faith." in section
    # 40 of 134 faith: nothing to act on yet, so the names, and their effects one command away
    assert (
        "Can choose later (31; 'help beliefs' gives their effects)." in section
    )  # 11 founders + 20 followers
    assert "tithe" not in section  # blue's
    beliefs = dataclasses.replace(game, environment=env).query_game("red").look("help beliefs")
    assert "Can choose (31; the 'tenet' order ranks them):" in beliefs
    assert "  church property: +1 gold, +1 faith per city following it" in beliefs and "tithe" not in beliefs
    assert "Followers in city" not in section  # nobody follows a religion yet
    assert "tenet T;" in text


def test_tenet_orders_through_the_manager(tmp_path):
    """A founder tenet before any pantheon is refused with the choices; a pantheon order plays."""
    from hexarena.core.config import parse_config
    from hexarena.core.manager import GameManager
    from hexarena.core.players import ScriptedPlayer

    roles = ("red", "blue", "green", "yellow", "purple", "orange")
    raw = {
        "game": {"name": "terranova", "seed": 1, "params": {"turn_cap": 1}},
        "players": [{"type": "random", "roles": [r], "seed": i} for i, r in enumerate(roles)],
        "output": {"dir": str(tmp_path)},
    }
    red = ScriptedPlayer(["tenet tithe", "tenet harvest festival, god king; unit 0 settle"], as_text=True)
    result = GameManager(parse_config(raw, "test"), raw_config=raw, players={"red": red}).start()
    assert result.invalid["red"] == 1
    events = [json.loads(line) for line in (tmp_path / "turns.jsonl").read_text().splitlines()]
    message = next(e["message"] for e in events if e.get("role") == "red" and e.get("message"))
    assert "tenet tithe (none can be taken now" in message and "god_king" in message
    accepted = next(e for e in events if e.get("event") == "move" and e.get("role") == "red")
    assert accepted["move"]["tenet"] == ["harvest_festival", "god_king"]
