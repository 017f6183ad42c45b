"""Trade deals between players: offers, accept/deny, the 15-turn ledger, peace and embassies.

The trade endpoint, as the original plays it (``step_trade_between_players``), first thing in a
player's turn:

1. The player's own ledger slots count down; a deal whose slot reaches 0 ends on its side: what it
   gave comes back, what it received goes (the partner's side ends on the partner's turn).
2. Each incoming offer (one per other player, made on that player's last turn) is accepted or denied:
   the best of the two scores ``(deny, accept)`` (index 1 = accept; ties deny, so all-zero scores
   trade nothing). An offer can only be accepted when both ledgers have a free slot and each side
   still has what it gives; an accepted deal is written into both ledgers for 15 turns.
3. The player makes at most one offer: the best legal counterparty (met, not itself, a free ledger
   slot on both sides), the best item to ask that the counterparty can give, the best item to offer
   that the player can give. Asking or offering "none" makes no offer. At war, the only deal is
   peace for peace.

Items (56): 0 none, 1 embassy, 2 gold per turn (5 gold each turn of the deal, only from an empire
earning at least 5), 3 peace, 3 + r resource r. Effects: a resource counts as owned by the receiver
and not by the giver (``cities.resources_owned``: luxury happiness, strategic prerequisites); an
embassy lets the receiver see the giver's capital territory (``embassy_sight``); peace ends a war
(both sides' units in the other's territory go home: ``_go_home``) and the player giving peace
may not attack the receiver while the deal runs (``peace_protected``). A declaration of war cancels
every deal between the two players and returns what was exchanged (``after_wars``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from hexarena.games.terranova.engine.state import MAX_UNITS, N_PLAYERS, GameState, Trade
from hexarena.games.terranova.engine.tables import GOLD, load_tables
from hexarena.games.terranova.engine.world import (
    IMPASSABLE,
    Occupancy,
    distance_from,
    enter_cost,
    gather,
    is_military,
    masked_argmax,
    occupancy,
    player_resource_sources,
)

NONE, EMBASSY, GOLD_PER_TURN, PEACE, FIRST_RESOURCE = 0, 1, 2, 3, 4
N_RESOURCES = 52
N_ITEMS = FIRST_RESOURCE + N_RESOURCES
ACCEPT = 1  # index of "accept" in an incoming offer's (deny, accept) scores


def item_names() -> tuple[str, ...]:
    """The 56 tradeables in index order (resources by their data names)."""
    return ("none", "embassy", "gold_per_turn", "peace", *load_tables().resource_names[1:])


class TradeExecuted(NamedTuple):
    """The endpoint's executed actions (the spec's shapes), -1 where nothing happened."""

    decisions: jax.Array  # (6,) per sender: 1 accepted, 0 denied, -1 no offer that could be taken
    ask: jax.Array  # () item asked
    offer: jax.Array  # () item offered
    counterparty: jax.Array  # ()


def _resource_onehot(items: jax.Array) -> jax.Array:
    """(..., 52) one-hot of resource items (zeros for the other items)."""
    return jax.nn.one_hot(items.astype(jnp.int32) - FIRST_RESOURCE, N_RESOURCES, dtype=jnp.int32)


def _exchange(items_given: jax.Array, items_received: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Gold per turn and (52,) resources a side gains from giving/receiving these items (summed
    over every axis but the last of the resources)."""
    amount = load_tables().rules["trade_gpt_amount"]
    gpt = amount * ((items_received == GOLD_PER_TURN).sum() - (items_given == GOLD_PER_TURN).sum())
    res = _resource_onehot(items_received) - _resource_onehot(items_given)
    return gpt.astype(jnp.float32), res.reshape(-1, N_RESOURCES).sum(0)


def resource_tile_counts(state: GameState) -> jax.Array:
    """(6, 52) the resource sources each player's cities have (before trades: ``world.city_resources``)."""
    return player_resource_sources(state)[:, 1:]


def gold_income(state: GameState) -> jax.Array:
    """(6,) each empire's gold per turn from its cities (last turn) plus its deals."""
    return state.cities.yields[..., GOLD].sum(1) + state.trade.gpt


def giveable(tr: Trade, income: jax.Array, tiles: jax.Array) -> jax.Array:
    """(6, 6, 56) bool: [g, r, item] ``g`` can give ``item`` to ``r`` now (item 0 = none: always)."""
    giving = tr.ledger[..., 0]  # (6, 6, 10)
    have = (tiles + tr.resources) > 0  # (6, 52)
    basic = jnp.stack(
        [
            jnp.ones((N_PLAYERS, N_PLAYERS), bool),
            ~(giving == EMBASSY).any(-1),
            jnp.broadcast_to((income >= load_tables().rules["trade_gpt_amount"])[:, None], (N_PLAYERS,) * 2),
            ~(giving == PEACE).any(-1),
        ],
        axis=-1,
    )
    ok = jnp.concatenate([basic, jnp.broadcast_to(have[:, None, :], (N_PLAYERS, N_PLAYERS, N_RESOURCES))], -1)
    return ok & ~jnp.eye(N_PLAYERS, dtype=bool)[..., None]


def expire_deals(state: GameState, p: jax.Array) -> GameState:
    """``p``'s ledger slots count down; a slot reaching 0 ends its deal on ``p``'s side."""
    tr = state.trade
    left = tr.length[p].astype(jnp.int32)
    ended = left == 1
    mine = tr.ledger[p]  # (6, 10, 2)
    gone = jnp.where(ended[None, :, None], mine, 0)
    gpt, res = _exchange(gone[..., 1], gone[..., 0])  # undo: receive back what was given
    trade = tr._replace(
        length=tr.length.at[p].set(jnp.maximum(left - 1, 0).astype(tr.length.dtype)),
        ledger=tr.ledger.at[p].set(jnp.where(ended[None, :, None], 0, mine)),
        gpt=tr.gpt.at[p].add(gpt),
        resources=tr.resources.at[p].add(res),
    )
    return state._replace(trade=trade)


def _send_home(state: GameState, a: jax.Array, b: jax.Array, go: jax.Array) -> GameState:
    """Units of ``a`` inside ``b``'s borders, and of ``b`` inside ``a``'s, go home."""
    return _go_home(_go_home(state, a, b, go), b, a, go)


def _go_home(state: GameState, p: jax.Array, q: jax.Array, go: jax.Array) -> GameState:
    """Where ``go``: ``p``'s units inside ``q``'s borders leave them. The original teleports them
    all onto the capital's tile; here, so that a tile still holds one military and one civilian
    unit, each goes to the free tile of ``p``'s territory nearest the capital that it may stand on
    (in slot order); a unit finding none stays where it is."""
    tb = load_tables()
    u, c, t = state.units, state.cities, state.tiles
    cap = c.exists[p] & c.capital[p]
    pos = u.pos[p]
    there = (u.kind[p] > 0) & (gather(t.owner, pos, -1) == q) & cap.any() & go
    occ = occupancy(state)
    dist = distance_from(c.pos[p, jnp.argmax(cap)]).astype(jnp.float32)
    stand = (t.owner == p) & (enter_cost(state, state.players.techs[p, tb.tech("sailing")]) < IMPASSABLE)
    for ids in (occ.military, occ.civilian):
        stand &= (ids < 0) | (ids // MAX_UNITS == p)  # no foreign unit there
    military = is_military(u.kind[p])
    for cls, taken in ((True, occ.military), (False, occ.civilian)):
        free = stand & (taken < 0)
        _, nearest = jax.lax.top_k(jnp.where(free, -dist, -jnp.inf), MAX_UNITS)
        moving = there & (military == cls)
        rank = jnp.cumsum(moving) - 1
        pos = jnp.where(moving & (rank < free.sum()), nearest[jnp.clip(rank, 0, MAX_UNITS - 1)], pos)
    return state._replace(units=u._replace(pos=u.pos.at[p].set(pos)))


def settle_offers(
    state: GameState, p: jax.Array, accept_deny: jax.Array, tiles: jax.Array | None = None
) -> tuple[GameState, jax.Array]:
    """``p`` answers the offer of each other player in turn; returns (6,) 1/0/-1 per sender.
    ``tiles``: :func:`resource_tile_counts` (deals do not change it)."""
    tiles = resource_tile_counts(state) if tiles is None else tiles

    def answer(st: GameState, q: jax.Array) -> tuple[GameState, jax.Array]:
        tr = st.trade
        offered, asked = tr.offers[q, p, 0], tr.offers[q, p, 1]
        ok = giveable(tr, gold_income(st), tiles)
        free = (tr.length == 0).any(1)
        valid = (q != p) & (offered > 0) & (asked > 0) & free[p] & free[q]
        valid &= ok[p, q, asked] & ok[q, p, offered]
        take = valid & (jnp.argmax(accept_deny[q]) == ACCEPT)
        slot_p, slot_q = jnp.argmin(tr.length[p]), jnp.argmin(tr.length[q])
        deal_p, deal_q = jnp.stack([asked, offered]), jnp.stack([offered, asked])
        ledger = tr.ledger.at[p, q, slot_p].set(jnp.where(take, deal_p, tr.ledger[p, q, slot_p]))
        ledger = ledger.at[q, p, slot_q].set(jnp.where(take, deal_q, ledger[q, p, slot_q]))
        weeks = jnp.asarray(load_tables().rules["trade_deal_turns"], tr.length.dtype)
        length = tr.length.at[p, slot_p].set(jnp.where(take, weeks, tr.length[p, slot_p]))
        length = length.at[q, slot_q].set(jnp.where(take, weeks, length[q, slot_q]))
        gpt, res = _exchange(asked, offered)
        tr = tr._replace(
            ledger=ledger,
            length=length,
            gpt=tr.gpt.at[p].add(jnp.where(take, gpt, 0.0)).at[q].add(jnp.where(take, -gpt, 0.0)),
            resources=tr.resources.at[p].add(jnp.where(take, res, 0)).at[q].add(jnp.where(take, -res, 0)),
        )
        peace = take & ((asked == PEACE) | (offered == PEACE))
        at_war = st.players.at_war
        at_war = at_war.at[p, q].set(at_war[p, q] & ~peace).at[q, p].set(at_war[q, p] & ~peace)
        st = _send_home(st, p, q, peace & st.players.at_war[p, q])
        st = st._replace(trade=tr, players=st.players._replace(at_war=at_war))
        return st, jnp.where(valid, take.astype(jnp.int32), -1)

    return jax.lax.scan(answer, state, jnp.arange(N_PLAYERS))


class OfferOptions(NamedTuple):
    """What player ``p`` may offer this turn (the resolver's masks; also the text view's and orders')."""

    partners: jax.Array  # (6,) players it may make an offer to
    ask: jax.Array  # (6, 56) items it may ask of each of them
    offer: jax.Array  # (6, 56) items it may give each of them


def offer_options(state: GameState, p: jax.Array, tiles: jax.Array | None = None) -> OfferOptions:
    """The legal parts of ``p``'s offer: a met player (not itself) with a free ledger slot on both
    sides, items that player can give, items ``p`` can give; at war, peace only. ``tiles`` is
    :func:`resource_tile_counts` when the caller has it."""
    tr = state.trade
    tiles = resource_tile_counts(state) if tiles is None else tiles
    ok = giveable(tr, gold_income(state), tiles)
    war = state.players.at_war[p]  # (6,)
    peace_only = (jnp.arange(N_ITEMS) == NONE) | (jnp.arange(N_ITEMS) == PEACE)
    allowed = ~war[:, None] | peace_only[None, :]
    can_ask = ok[:, p, :] & allowed  # (6 givers, 56)
    free = (tr.length == 0).any(1)
    met = state.players.have_met[p, :N_PLAYERS]
    partners = met & free & free[p] & (jnp.arange(N_PLAYERS) != p) & can_ask[:, 1:].any(1)
    return OfferOptions(partners, can_ask, ok[p] & allowed)


def make_offer(
    state: GameState,
    p: jax.Array,
    ask: jax.Array,
    offer: jax.Array,
    counterparty: jax.Array,
    tiles: jax.Array | None = None,
) -> tuple[GameState, jax.Array, jax.Array, jax.Array]:
    """``p``'s one offer this turn (replacing any it had out); returns executed (ask, offer, to)."""
    tr = state.trade
    opts = offer_options(state, p, tiles)
    to = masked_argmax(counterparty, opts.partners)
    q = jnp.maximum(to, 0)
    asked = masked_argmax(ask[q], opts.ask[q])
    offered = masked_argmax(offer, opts.offer[q])
    made = (to >= 0) & (asked > 0) & (offered > 0)
    offers = tr.offers.at[p].set(0).at[:, p].set(0)
    pair = jnp.stack([offered, asked]).astype(offers.dtype)
    offers = offers.at[p, q].set(jnp.where(made, pair, offers[p, q]))
    state = state._replace(trade=tr._replace(offers=offers))
    none = jnp.int32(-1)
    return state, jnp.where(made, asked, none), jnp.where(made, offered, none), jnp.where(made, to, none)


def trade_phase(state: GameState, p: jax.Array, actions: tuple) -> tuple[GameState, TradeExecuted]:
    """The trade endpoint for player ``p``: expiry, answers to incoming offers, one new offer."""
    accept_deny, ask, offer, counterparty = actions
    state = expire_deals(state, p)
    tiles = resource_tile_counts(state)
    state, decisions = settle_offers(state, p, accept_deny, tiles)
    state, asked, offered, to = make_offer(state, p, ask, offer, counterparty, tiles)
    return state, TradeExecuted(decisions, asked, offered, to)


def peace_protected(state: GameState, p: jax.Array) -> jax.Array:
    """(6,) players ``p`` is giving peace to under a running deal: it may not attack them."""
    return (state.trade.ledger[p, :, :, 0] == PEACE).any(-1)


def peace_blocked(state: GameState, p: jax.Array, occ: Occupancy) -> jax.Array:
    """(H,) tiles ``p`` may not attack or invade: whoever an attack there would hit (a unit, a city, or
    the tile's owner) is a player ``p`` gives peace to."""
    unit_of = lambda flat: jnp.where(flat >= 0, flat // MAX_UNITS, -1)  # noqa: E731
    victim = jnp.where(occ.military >= 0, unit_of(occ.military), occ.city_owner)
    victim = jnp.where(victim >= 0, victim, unit_of(occ.civilian))
    victim = jnp.where(victim >= 0, victim, state.tiles.owner.astype(jnp.int32))
    return (victim >= 0) & peace_protected(state, p)[jnp.maximum(victim, 0)]


def after_wars(state: GameState, at_war_before: jax.Array) -> GameState:
    """Wars declared since ``at_war_before`` cancel every deal between the two players (both ledgers;
    what was exchanged goes back)."""
    tr = state.trade
    new = state.players.at_war & ~at_war_before  # (6, 6)
    kill = new[:, :, None] & (tr.ledger != 0).any(-1)  # (6, 6, 10)
    gone = jnp.where(kill[..., None], tr.ledger, 0)
    gpt, res = jax.vmap(lambda g: _exchange(g[..., 1], g[..., 0]))(gone)
    trade = tr._replace(
        ledger=jnp.where(kill[..., None], 0, tr.ledger),
        length=jnp.where(kill.any(1), 0, tr.length).astype(tr.length.dtype),
        gpt=tr.gpt + gpt,
        resources=tr.resources + res,
    )
    return state._replace(trade=trade)


def embassies(state: GameState) -> jax.Array:
    """(6, 6) bool: [p, q] ``p`` has an embassy in ``q``'s capital (``q`` gave one, deal running)."""
    return (state.trade.ledger[..., 1] == EMBASSY).any(-1)


def embassy_sight(state: GameState) -> jax.Array:
    """(6, H) bool: tiles of a capital's territory seen through an embassy there."""
    c, t = state.cities, state.tiles
    cap = c.exists & c.capital
    cap_slot = jnp.where(cap.any(1), jnp.argmax(cap, 1), -1)  # (6,)
    owner = t.owner.astype(jnp.int32)
    of_capital = (owner >= 0) & (t.owner_city == cap_slot[jnp.maximum(owner, 0)])
    # ``embassies`` as a scatter over the ledger, which XLA writes out once: as a reduction it was
    # fused into the per-tile read and redone for each of the 6 x 2772 tiles (a tenth of the step)
    given = (state.trade.ledger[..., 1] == EMBASSY).astype(jnp.int8)  # (6, 6, 10)
    p, q, _ = jnp.indices(given.shape)
    embassy = jnp.zeros((N_PLAYERS, N_PLAYERS), jnp.int8).at[p, q].max(given) > 0
    return embassy[:, jnp.maximum(owner, 0)] & of_capital[None, :]


def observed(state: GameState, o: jax.Array) -> dict[str, jax.Array]:
    """The spec's trade fields for player ``o`` (items as above; -1 where there is none)."""
    tr = state.trade
    incoming = tr.offers[:, o].astype(jnp.int32)  # (6, 2) (offered to o, asked of o)
    ask_offer = jnp.stack([incoming[:, 1], incoming[:, 0]], -1)
    ledger = tr.ledger[o].astype(jnp.int32)
    return {
        "trade_offers": jnp.where(ask_offer > 0, ask_offer, -1),
        "trade_ledger": jnp.where((tr.length[o] > 0)[None, :, None] & (ledger > 0), ledger, -1),
        "trade_length_ledger": tr.length[o].astype(jnp.int32),
        "trade_gpt_adjustment": tr.gpt[o],
        "trade_resource_adjustment": tr.resources[o].astype(jnp.float32),
    }
