"""A position where every viewer screen has content: a religion and a pantheon with followers, a
deal and an offer, caravan routes to a rival and to a city state, city-state influence with a
friend and an ally, a city with specialists and great works. Built by hand on any state where red
and blue each have a city in slot 0 (faster than playing until all of this happens)."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.rules.trade import EMBASSY, FIRST_RESOURCE, GOLD_PER_TURN, PEACE
from hexarena.games.terranova.engine.tables import load_tables

from ..religion_helpers import follow, take

TB = load_tables()
RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
RED_TENETS = ("god_of_the_sea", "tithe", "choral_music", "feed_the_world")
BLUE_PANTHEON = "ancestor_worship"
SILK = FIRST_RESOURCE + TB.resource("silk") - 1
CARAVAN_SLOTS = (28, 29)  # red's caravans: to blue's city 0, to city state 3


def screens_state(s):
    """``s`` (red and blue each with a city in slot 0) with content on every screen."""
    s = jax.tree_util.tree_map(jnp.asarray, s)
    s = s._replace(cities=s.cities._replace(pop=s.cities.pop.at[RED, 0].set(4).at[BLUE, 0].set(3)))
    s = take(s, *RED_TENETS, player=RED)
    s = take(s, BLUE_PANTHEON, player=BLUE)
    s = follow(follow(s, RED, 0, RED, 3), BLUE, 0, RED, 1)
    s = follow(s, BLUE, 0, BLUE, 1)
    cs_pressure = s.religion.cs_pressure.at[RED, 0, 5].set(250.0)  # two followers in city state 5
    s = s._replace(religion=s.religion._replace(cs_pressure=cs_pressure))
    pl = s.players
    s = s._replace(players=pl._replace(faith=pl.faith.at[RED].set(151.5).at[BLUE].set(20.0)))

    # A deal: red gives blue an embassy for 5 gold a turn (12 turns left on red's side, 11 on blue's);
    # green has offered yellow peace for silk.
    tr = s.trade
    ledger = tr.ledger.at[RED, BLUE, 0].set(jnp.array([EMBASSY, GOLD_PER_TURN], jnp.int8))
    ledger = ledger.at[BLUE, RED, 3].set(jnp.array([GOLD_PER_TURN, EMBASSY], jnp.int8))
    length = tr.length.at[RED, 0].set(12).at[BLUE, 3].set(11)
    offers = tr.offers.at[GREEN, YELLOW].set(jnp.array([PEACE, SILK], jnp.int8))
    gpt = tr.gpt.at[RED].set(5.0).at[BLUE].set(-5.0)

    # Two caravans of red's, from its city 0: to blue's city 0 and to city state 3.
    foreign, to_cs = CARAVAN_SLOTS
    u = s.units
    caravan = TB.unit("caravan")
    home = s.cities.pos[RED, 0]
    units = u._replace(
        kind=u.kind.at[RED, foreign].set(caravan).at[RED, to_cs].set(caravan),
        pos=u.pos.at[RED, foreign].set(home).at[RED, to_cs].set(home),
        hp=u.hp.at[RED, foreign].set(1.0).at[RED, to_cs].set(1.0),
        engaged_turns=u.engaged_turns.at[RED, foreign].set(9).at[RED, to_cs].set(14),
    )
    yields = tr.route_yields.at[RED, foreign, 0, 2].set(4.0).at[RED, foreign, 1, 2].set(2.0)
    yields = yields.at[RED, foreign, 1, 7].set(0.25).at[RED, to_cs, 0, 2].set(1.5)
    yields = yields.at[RED, to_cs, 1, 8].set(1.5)
    trade = tr._replace(
        ledger=ledger,
        length=length,
        offers=offers,
        gpt=gpt,
        route_to_player=tr.route_to_player.at[RED, foreign].set(BLUE).at[RED, to_cs].set(6 + 3),
        route_to_city=tr.route_to_city.at[RED, foreign].set(0).at[RED, to_cs].set(0),
        route_from_city=tr.route_from_city.at[RED, foreign].set(0).at[RED, to_cs].set(0),
        route_yields=yields,
    )

    # City state 0: red its ally (65), blue a friend (35); city state 3's quest (culture) led by blue.
    cst = s.citystates
    influence = cst.influence.at[0, RED].set(65.0).at[0, BLUE].set(35.0).at[3, GREEN].set(12.0)
    relationship = cst.relationship.at[0, RED].set(2).at[0, BLUE].set(1)
    met = s.players.have_met.at[RED, 6].set(True).at[BLUE, 6].set(True).at[GREEN, 6 + 3].set(True)
    citystates = cst._replace(
        influence=influence,
        relationship=relationship,
        quest=cst.quest.at[3].set(1),
        culture_tracker=cst.culture_tracker.at[BLUE].set(40.0).at[RED].set(25.0),
    )

    # Red's city 0: a university (2 scientist slots) and a museum (2 art slots, one filled).
    b = s.cities.buildings.at[RED, 0, TB.building("university")].set(True)
    b = b.at[RED, 0, TB.building("museum")].set(True)
    works = s.great.works.at[RED, 0, 1].set(1)
    return s._replace(
        players=s.players._replace(have_met=met),
        units=units,
        trade=trade,
        citystates=citystates,
        cities=s.cities._replace(buildings=b),
        great=s.great._replace(works=works),
    )
