"""The text view of Terra Nova for one player: a summary first, then details for what is in reach.

Everything comes from the player's own observation (fog of war applies) and its options this turn
(:mod:`.options`). Places are ``(row, col)``; units and cities are named by their slot numbers,
which the orders (:mod:`.orders`) use. Sections of mechanics that hold no data (deals and
trade) are left out rather than shown empty; they appear as the simulator fills those observation
fields. Culture and social policies have their own section, and so do religion
(:mod:`.religion_text`), great people, great works and tourism (:mod:`.great_people_text`), and
city states and victory progress (:mod:`.citystate_text`).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from hexarena.games.terranova.contract.text.citystates import citystate_section
from hexarena.games.terranova.contract.text.great_people import great_people_lines
from hexarena.games.terranova.contract.text.policies import policy_effects, tree_eras
from hexarena.games.terranova.contract.text.religion import religion_lines
from hexarena.games.terranova.contract.text.trade import item_text, trade_section
from hexarena.games.terranova.engine import formulas
from hexarena.games.terranova.engine.geometry import COLS, tile_text, work_area
from hexarena.games.terranova.engine.tables import (
    CULTURE,
    FEATURE_KEYS,
    FOOD,
    GOLD,
    PROD,
    ROLES,
    SCIENCE,
    TERRAIN_KEYS,
    Tables,
    load_tables,
)

YIELD_LETTERS = ("food", "prod", "gold", "faith", "culture", "science", "happy")
MAX_TILES = 6  # free tiles listed per city (the best first)
BEST_SHOWN = 2  # reachable tiles described in full per unit (all are listed by direction)
DIRECTIONS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
# unit categories the text names apart from worker builds (move, attack and caravans have targets)
NOT_BUILDS = ("move", "settle", "combat", "move_caravan", "send_caravan")
ORDERS_HELP = (
    "Orders, separated by ';': research TECH; city N build ITEM; city N work R,C[, R,C]; "
    "unit N move|attack|send|relocate R,C (a move to its own tile holds it); unit N settle; "
    "unit N build IMPROVEMENT; policy P; tenet T; offer PLAYER: X for Y; accept PLAYER; "
    "deny PLAYER. Each is judged on its own (a "
    "refused one is reported next turn with why); what you leave out follows the default orders "
    "above ('pass' takes them all). At a terminal: 'map R,C' / 'map unit N' / 'map city N', "
    "'help beliefs', 'help policies' (they do not spend the turn)."
)


def direction(row: int, col: int, tile: int) -> str:
    """The compass direction of ``tile`` from ``(row, col)`` on the odd-r cylinder (north is up:
    row 0), one of :data:`DIRECTIONS`."""
    r, c = divmod(tile, COLS)
    dx = (c + 0.5 * (r & 1)) - (col + 0.5 * (row & 1))
    dx = (dx + COLS / 2) % COLS - COLS / 2
    angle = np.degrees(np.arctan2(-(r - row) * 0.866, dx))  # rows are 0.866 columns apart
    return DIRECTIONS[int(((90 - angle) % 360 + 22.5) // 45) % 8]


def yields_text(y: np.ndarray) -> str:
    parts = [f"{v:g} {YIELD_LETTERS[i]}" for i, v in enumerate(np.round(y[:7], 1)) if v > 0]
    return ", ".join(parts) if parts else "no yield"


def _turns(need: float, per_turn: float) -> str:
    if need <= 0:
        return "done next turn"
    if per_turn <= 0:
        return "never at this rate"
    n = int(np.ceil(need / per_turn))
    return f"{n} turn{'s' if n != 1 else ''}"


class TextView:
    """One player's view as text: ``TextView(obs, opts, me, tables).render(header, news)``."""

    def __init__(self, obs: dict[str, Any], opts: dict[str, Any], me: int, tb: Tables | None = None) -> None:
        self.obs, self.opts, self.me = obs, opts, me
        self.tb = tb or load_tables()
        self.units = obs["units"]
        self.pc = obs["player_cities"]
        self.vis = np.asarray(obs["visibility_map"]).reshape(-1)
        self.yields = np.asarray(obs["yield_map_players"]).reshape(-1, obs["yield_map_players"].shape[-1])
        self.units_at = self._units_by_tile()

    # -- tiles -------------------------------------------------------------------------------
    def _units_by_tile(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for p in range(len(ROLES)):
            for slot in np.flatnonzero(self.units["unit_type"][p] > 0):
                row, col = self.units["unit_rowcol"][p, slot]
                who = "your" if p == self.me else f"{ROLES[p]}'s"
                name = self.tb.unit_names[self.units["unit_type"][p, slot]]
                out.setdefault(int(row) * COLS + int(col), []).append(f"{who} {name}")
        return out

    def tile(self, tile: int, with_yields: bool = True) -> str:
        """A tile as the player knows it: terrain, feature, resource, improvement, owner, units."""
        o = self.obs
        row, col = divmod(tile, COLS)
        if self.vis[tile] <= 0:
            return f"{tile_text(tile)} unexplored"
        terrain = int(o["terrain_map"][row, col])
        name = "lake" if o["lake_map"][row, col] > 0 else TERRAIN_KEYS[terrain] if terrain >= 0 else "?"
        parts = [{2: f"{name} hill", 3: "mountain"}.get(int(o["elevation_map"][row, col]), name)]
        feature = int(o["feature_map"][row, col])
        if feature > 0:
            parts.append(FEATURE_KEYS[feature])
        if o["edge_river_map"][row, col].max() > 0:
            parts.append("river")
        resource = int(o["visible_resources_map_players"][row, col])
        if resource > 0:
            parts.append(self.tb.resource_names[resource])
        improvement = int(o["improvement_map"][row, col])
        if improvement > 0:
            parts.append(self.tb.improvement_names[improvement])
        if o["road_map"][row, col] > 0:
            parts.append("road")
        owners = np.flatnonzero(self.pc["ownership_map"][:, :, row, col].max(axis=1) >= 2)
        if len(owners):
            parts.append("your land" if owners[0] == self.me else f"{ROLES[owners[0]]}'s land")
        if int(o["cs_ownership_map"][row, col]) > 0:
            parts.append("city-state land")
        if self.vis[tile] == 1:
            parts.append("not in sight now")
        elif tile in self.units_at:
            parts.append("with " + ", ".join(self.units_at[tile]))
        text = (
            f"{tile_text(tile)} {' '.join(parts[:1])}{', ' if len(parts) > 1 else ''}{', '.join(parts[1:])}"
        )
        return f"{text} [{yields_text(self.yields[tile])}]" if with_yields else text

    def tile_value(self, tiles: np.ndarray) -> np.ndarray:
        y = self.yields[tiles]
        return np.where(self.vis[tiles] > 0, 2 * y[:, FOOD] + 1.5 * y[:, PROD] + y[:, GOLD], -1.0)

    # -- sections ----------------------------------------------------------------------------
    def empire(self, turn: int) -> list[str]:
        o, tb, me, pc = self.obs, self.tb, self.me, self.pc
        mine = np.flatnonzero(pc["city_ids"][me] > 0)
        city_y = np.asarray(pc["yields"])[mine]
        n_units = int((self.units["unit_type"][me] > 0).sum())
        income = float(city_y[:, GOLD].sum()) if len(mine) else 0.0
        upkeep_b = float(np.asarray(pc["bldg_maintenance"])[mine].sum())
        upkeep_u = float(formulas.unit_upkeep(np.float32(n_units), np.float32(turn)))
        gpt = income - upkeep_b - upkeep_u
        science = float(city_y[:, SCIENCE].sum()) if len(mine) else 0.0
        lines = [
            f"Treasury {float(o['treasury']):.0f} gold, about {gpt:+.1f} per turn (cities +{income:.1f}, "
            f"buildings -{upkeep_b:.1f}, units -{upkeep_u:.1f}; roads and city connections not counted).",
        ]
        r = int(o["is_researching"])
        stored = float(o["science_reserves"])
        if r >= 0:
            cost = float(tb.tech_cost[r])
            lines.append(
                f"Science {science:.1f} per turn; researching {tb.tech_names[r]} {stored:.0f}/{cost:.0f} "
                f"({_turns(cost - stored, science)} left)."
            )
        else:
            lines.append(f"Science {science:.1f} per turn, {stored:.0f} stored; not researching: order one.")
        happy = float(o["happiness"])
        mood = " (unhappy: cities grow at a quarter of the rate)" if happy < 0 else ""
        pop = int(np.asarray(pc["population"])[me][mine].sum()) if len(mine) else 0
        eras = era_names()
        era = eras[int(o["era"])] if 0 <= int(o.get("era", 0)) < len(eras) else "?"
        lines.append(
            f"Happiness {happy:.0f}{mood}. {len(mine)} cities, population {pop}, {n_units} units, era {era}."
        )
        lines.extend(self.diplomacy())
        lines.extend(self.live_sections())
        return lines

    def diplomacy(self) -> list[str]:
        o, me = self.obs, self.me
        met = np.asarray(o["have_met"])
        war = np.asarray(o["at_war"])
        rows = []
        for q, role in enumerate(ROLES):
            if q == me:
                continue
            status = "at war" if war[me, q] else "at peace" if met[q] else "not met"
            rows.append(f"{role} {status}")
        lines = ["Diplomacy: " + "; ".join(rows) + "."]
        sites = np.asarray(o["citystate_info"]["city_rowcols"])
        known = [f"#{k} at ({r}, {c})" for k, (r, c) in enumerate(sites) if r >= 0]
        if known:
            lines.append(f"City states met ({len(known)} of {len(sites)}): " + ", ".join(known) + ".")
        return lines

    def city_at(self, tile: int) -> str:
        """Whose city stands on ``tile``, in words: 'your city 1', 'blue city', 'city state #3'."""
        rc = (tile // COLS, tile % COLS)
        ids, rowcols = np.asarray(self.pc["city_ids"]), np.asarray(self.pc["city_rowcols"])
        for p, c in zip(*np.nonzero(ids > 0), strict=True):
            if tuple(rowcols[p, c]) == rc:
                return f"your city {c}" if p == self.me else f"{ROLES[p]} city"
        sites = np.asarray(self.obs["citystate_info"]["city_rowcols"])
        k = [i for i, site in enumerate(sites) if tuple(site) == rc]
        return f"city state #{k[0]}" if k else "a city"

    def live_sections(self) -> list[str]:
        """Trade: only where data is live."""
        o = self.obs
        lines = []
        lines.extend(trade_section(o, self.opts, self.me))
        return lines

    def policies(self) -> list[str]:
        """Culture toward the next policy, golden age, adopted policies by tree, and what may be
        adopted now with its effects (the ``policy`` order picks among those)."""
        o, tb, pc = self.obs, self.tb, self.pc
        mine = np.flatnonzero(pc["city_ids"][self.me] > 0)
        per_turn = float(np.asarray(pc["yields"])[mine, CULTURE].sum()) if len(mine) else 0.0
        stored, cost = float(o["culture_reserves"]), float(o["culture_threshold"])
        total = float(np.asarray(o["culture_total"])[self.me])
        lines = [
            f"Culture {stored:.0f}/{cost:.0f} toward the next policy (+{per_turn:.1f} per turn, "
            f"{_turns(cost - stored, per_turn)}); {total:.0f} culture in all."
        ]
        free = int(o["free_policies"])
        if free:
            lines.append(f"Free policies pending: {free} (one is adopted each turn, your first choice).")
        if int(o["golden_age_turns"]) > 0:
            lines.append(f"Golden age: {int(o['golden_age_turns'])} turns left.")
        have = np.asarray(o["policies"]) > 0
        trees = [
            f"{tree}: {', '.join(tb.policy_names[i] for i in np.flatnonzero(have & (tb.policy_tree == t)))}"
            + (" (finished)" if have[tb.policy_tree == t].all() else "")
            for t, tree in enumerate(tb.tree_names)
            if (have & (tb.policy_tree == t)).any()
        ]
        lines.append(f"Adopted ({int(have.sum())}): {'; '.join(trees) or 'none yet'}.")
        # a policy is adopted the turn this turn's culture brings the reserve to the cost (as the
        # original): the choice is made now, so the list is full from that turn on
        lines += self.adoptable(full=stored + per_turn >= cost or free > 0)
        eras, top = era_names(), int(o["era"])
        closed = [
            f"{tree} ({era} era)"
            for tree, era in zip(tb.tree_names, tree_eras(), strict=True)
            if eras.index(era) > top
        ]
        if closed:
            lines.append(f"Trees opening later: {', '.join(closed)}.")
        return lines

    def adoptable(self, full: bool) -> list[str]:
        """The policies adoptable now: with their effects when culture allows one now or ``full``
        (``help policies``), else by name."""
        tb = self.tb
        legal = np.flatnonzero(self.opts["policies"])
        if not len(legal):
            return ["Can adopt now: none."]
        if not full:
            named = ", ".join(tb.policy_names[i] for i in legal)
            return [f"Can adopt when culture allows ({len(legal)}; 'help policies' gives effects): {named}."]
        effects = policy_effects()
        return [f"Can adopt now ({len(legal)}):"] + [
            f"  {tb.policy_names[i]} ({tb.tree_names[tb.policy_tree[i]]}): {effects[i]}." for i in legal
        ]

    def techs(self) -> list[str]:
        tb = self.tb
        known = [tb.tech_names[t] for t in np.flatnonzero(self.obs["technologies"])]
        legal = np.flatnonzero(self.opts["techs"])
        legal = legal[np.argsort(tb.tech_cost[legal], kind="stable")]
        science = float(np.asarray(self.pc["yields"])[:, SCIENCE].sum())
        now, stored = int(self.obs["is_researching"]), float(self.obs["science_reserves"])

        def offer(t: int) -> str:
            if t == now:  # the progress made counts: the same figure as the Empire line
                left = _turns(tb.tech_cost[t] - stored, science)
                return (
                    f"{tb.tech_names[t]} {tb.tech_cost[t]:.0f} (researching: {stored:.0f} done, {left} left)"
                )
            return f"{tb.tech_names[t]} {tb.tech_cost[t]:.0f} ({_turns(tb.tech_cost[t], science)})"

        offers = [offer(int(t)) for t in legal]
        return [
            f"Known technologies ({len(known)}): {', '.join(known)}.",
            f"Can research: {', '.join(offers)}.",
        ]

    def cities(self) -> list[str]:
        from hexarena.games.terranova.contract.moves import buildable_names

        tb, pc, me = self.tb, self.pc, self.me
        names = buildable_names()
        costs = np.concatenate([tb.building_cost, tb.unit_cost[1:]])
        lines = []
        for c in np.flatnonzero(pc["city_ids"][me] > 0):
            tile = int(pc["city_rowcols"][me, c, 0]) * COLS + int(pc["city_rowcols"][me, c, 1])
            y = np.asarray(pc["yields"])[c]
            pop = int(pc["population"][me, c])
            food = float(pc["food_reserves"][c])
            need = float(formulas.growth_threshold(np.float32(pop)))
            surplus = float(y[FOOD]) - 2 * pop
            growth = f"grows in {_turns(need - food, surplus)}" if surplus > 0 else "not growing"
            kind = "capital" if pc["city_ids"][me, c] == 1 else "city"
            lines.append(
                f"City {c} ({kind}) at {tile_text(tile)}: population {pop}, food {food:.0f}/{need:.0f} "
                f"({surplus:+.1f} per turn, {growth}), hit points {100 * float(pc['hp'][me, c]):.0f}, "
                f"defence {float(pc['defense'][me, c]):.1f}."
            )
            lines.append(f"  Yields per turn: {yields_text(y)}.")
            built = [tb.building_names[b] for b in np.flatnonzero(pc["buildings_owned"][c])]
            lines.append(f"  Buildings: {', '.join(built) or 'none'}.")
            item = int(pc["is_constructing"][c])
            prod = float(y[PROD])
            stock = float(pc["prod_reserves"][c])
            if item >= 0:
                lines.append(
                    f"  Building {names[item]} {stock:.0f}/{costs[item]:.0f} "
                    f"({_turns(costs[item] - stock, prod)}); a started build cannot be changed."
                )
            else:
                lines.append("  Building nothing: order one (city production turns into gold meanwhile).")
            if prod <= 0:
                lines.append(
                    "  No production: every build waits until the city works a tile with production "
                    "(order 'city N work R,C' with a tile below that gives prod)."
                )
            options = np.flatnonzero(self.opts["build"][c])
            options = options[np.argsort(costs[options], kind="stable")]
            if item < 0:  # the stock goes to the build ordered now
                when = [f"{names[b]} {costs[b]:.0f} ({_turns(costs[b] - stock, prod)})" for b in options]
                lines.append("  Can build: " + ", ".join(when) + ".")
            else:  # after the locked build: its own turns to go come first
                when = [f"{names[b]} {costs[b]:.0f} ({_turns(costs[b], prod)} more)" for b in options]
                lines.append(f"  Can build after the {names[item]}: " + ", ".join(when) + ".")
            ring = work_area()[tile, 1:]
            worked = np.asarray(pc["worked_slots"][c]) > 0
            owned = np.asarray(pc["ownership_map"][me, c]).reshape(-1)[np.maximum(ring, 0)] == 2
            owned &= ring >= 0
            if worked.any():
                lines.append("  Worked: " + "; ".join(self.tile(int(t)) for t in ring[worked & owned]) + ".")
            free = ring[owned & ~worked]
            if len(free):
                best = free[np.argsort(-self.tile_value(free), kind="stable")][:MAX_TILES]
                lines.append(
                    f"  Free tiles to work ({len(free)}, best first): "
                    + "; ".join(self.tile(int(t)) for t in best)
                    + "."
                )
            culture = float(pc["culture_reserves_for_border"][c])
            lines.append(
                f"  Culture toward the next border tile: {culture:.1f} (+{float(y[CULTURE]):.1f} per turn)."
            )
        return lines or ["You have no cities."]

    def my_units(self) -> list[str]:
        tb, u, me, opts = self.tb, self.units, self.me, self.opts
        lines = []
        for s in np.flatnonzero(u["unit_type"][me] > 0):
            kind = int(u["unit_type"][me, s])
            tile = int(u["unit_rowcol"][me, s, 0]) * COLS + int(u["unit_rowcol"][me, s, 1])
            hp = float(u["health"][me, s]) * 100
            lines.append(f"Unit {s} {tb.unit_names[kind]} at {self.tile(tile)}, health {hp:.0f}%.")
            engaged = int(u["engaged_for_n_turns"][s])
            if engaged > 0:
                cat = tb.category_names[int(u["engaged_action_id"][s])]
                lines.append(f"  Busy: {cat}, {engaged} turn{'s' if engaged != 1 else ''} left.")
                continue
            cats = np.flatnonzero(opts["categories"][s])
            builds = [tb.category_names[c] for c in cats if tb.category_names[c] not in NOT_BUILDS]
            can = []
            if opts["categories"][s][1]:
                can.append("settle here")
            if builds:
                can.append("build " + ", ".join(builds))
            reach = self.reach_ranked(int(s))
            if opts["reach"][s][tile]:
                can.append(f"stay (move to its own tile {tile_text(tile)})")
            if len(reach):
                can.append(f"move to {len(reach)} tiles")
            attack = np.flatnonzero(opts["attack"][s])
            if len(attack):
                can.append("attack " + ", ".join(tile_text(int(t)) for t in attack))
            for key, verb in (("send", "send a trade route to"), ("relocate", "relocate to")):
                cities = np.flatnonzero(opts[key][s])
                if len(cities):
                    can.append(
                        f"{verb} " + ", ".join(f"{self.city_at(int(t))} {tile_text(int(t))}" for t in cities)
                    )
            lines.append("  Can: " + ("; ".join(can) if can else "nothing this turn") + ".")
            if len(reach):
                lines.append(self.reach_line(int(s)))
        return lines or ["You have no units."]

    def reach_ranked(self, slot: int) -> list[int]:
        """The tiles unit ``slot`` can move on to, best first: good land for settlers, the unknown
        for others (the order the menu's move orders and the Reach line's first tiles follow).
        Its own tile and those of its own units of its class are left out: a move onto one is a
        stay (the Can line offers it)."""
        u, me = self.units, self.me
        kinds = np.asarray(u["unit_type"][me])
        tiles = np.asarray(u["unit_rowcol"][me, :, 0]) * COLS + np.asarray(u["unit_rowcol"][me, :, 1])
        military = self.tb.unit_strength[np.maximum(kinds, 0)] > 0
        held = tiles[(kinds > 0) & (military == military[slot])]
        reach = np.flatnonzero(self.opts["reach"][slot])
        reach = reach[~np.isin(reach, held)]
        value = self.tile_value(reach)
        if self.tb.unit_names[int(self.units["unit_type"][self.me, slot])] != "settler":
            nb = work_area()[reach, 1:7]
            value = value + 3.0 * ((nb >= 0) & (self.vis[np.maximum(nb, 0)] == 0)).sum(1)
        return [int(t) for t in reach[np.argsort(-value, kind="stable")]]

    def reach_line(self, slot: int) -> str:
        """Every tile unit ``slot`` may move to: the best few described, then all of them grouped
        by direction from the unit (nearest first), each group's tiles best first."""
        ranked = self.reach_ranked(slot)
        row, col = (int(v) for v in self.units["unit_rowcol"][self.me, slot])
        groups: dict[str, list[int]] = {}
        for t in ranked:
            groups.setdefault(direction(row, col, t), []).append(t)
        best = "; ".join(self.tile(t) for t in ranked[:BEST_SHOWN])
        by_dir = "; ".join(
            f"{d} {' '.join(tile_text(t) for t in groups[d])}" for d in DIRECTIONS if d in groups
        )
        return f"  Reach ({len(ranked)} tiles, best first): {best}. All, by direction: {by_dir}."

    def foreign(self) -> list[str]:
        u, pc, me = self.units, self.pc, self.me
        seen = []
        for p in range(len(ROLES)):
            if p == me:
                continue
            for s in np.flatnonzero(u["unit_type"][p] > 0):
                tile = int(u["unit_rowcol"][p, s, 0]) * COLS + int(u["unit_rowcol"][p, s, 1])
                hp = float(u["health"][p, s]) * 100
                seen.append(
                    f"{ROLES[p]} {self.tb.unit_names[u['unit_type'][p, s]]} at {tile_text(tile)} ({hp:.0f}%)"
                )
            for c in np.flatnonzero(pc["city_ids"][p] > 0):
                tile = int(pc["city_rowcols"][p, c, 0]) * COLS + int(pc["city_rowcols"][p, c, 1])
                seen.append(
                    f"{ROLES[p]} city at {tile_text(tile)} (population {int(pc['population'][p, c])})"
                )
        return ["Others in sight or known: " + "; ".join(seen) + "."] if seen else []

    def render(self, header: list[str], news: list[str], footer: list[str]) -> str:
        turn = int(self.obs["current_turn"])
        parts = [*header]
        if news:
            parts += ["", "Since your last turn:", *(f"- {n}" for n in news)]
        parts += ["", "== Empire ==", *self.empire(turn)]
        parts += ["", "== Technologies ==", *self.techs()]
        parts += ["", "== Social policies ==", *self.policies()]
        parts += ["", "== Religion ==", *religion_lines(self.obs, self.me, ROLES)]
        parts += ["", "== Great people and tourism ==", *great_people_lines(self.obs, self.me)]
        parts += ["", "== Cities ==", *self.cities()]
        parts += ["", "== Units ==", *self.my_units(), *self.foreign()]
        parts += ["", "== City states and victory ==", *citystate_section(self.obs, self.me)]
        parts += ["", *footer]
        return "\n".join(parts)


@cache
def era_names() -> tuple[str, ...]:
    doc = resources.files("hexarena.games.terranova").joinpath("data", "technologies.json").read_text()
    return tuple(json.loads(doc)["eras"])


# unit categories with a target tile, as the orders write them
TARGETED = {"move": "move", "combat": "attack", "send_caravan": "send", "move_caravan": "relocate"}


def describe_executed(executed: list, defaulted: tuple[int, ...] = ()) -> str:
    """The executed-action lists of a move (the spec's executed tuple) in words; builds started
    in the cities of ``defaulted`` are marked as the default's choice."""
    from hexarena.games.terranova.contract.moves import buildable_names

    tb = load_tables()
    (decisions, ask, offer, to), policy, _tenet, tech, (cats, targets), (_worked, built) = executed
    parts = [f"{('denied', 'accepted')[d]} {ROLES[q]}'s offer" for q, d in enumerate(decisions) if d >= 0]
    if to >= 0:
        parts.append(f"offered {ROLES[to]} {item_text(offer)} for {item_text(ask)}")
    parts += [f"adopted {tb.policy_names[p]}{' (free)' if i else ''}" for i, p in enumerate(policy) if p >= 0]
    if tech[0] >= 0:
        parts.append(f"started researching {tb.tech_names[tech[0]]}")
    for slot, (cat, target) in enumerate(zip(cats, targets, strict=True)):
        if cat < 0:
            continue
        name = tb.category_names[cat]
        where = f" {tile_text(target)}" if name in TARGETED and target >= 0 else ""
        parts.append(f"unit {slot} {TARGETED.get(name, name)}{where}")
    names = buildable_names()
    chose = " (the default's choice: no build order of yours applied there; locked until done)"
    parts += [
        f"city {c} started {names[b]}{chose if c in defaulted else ''}" for c, b in enumerate(built) if b >= 0
    ]
    return "; ".join(parts) or "nothing new (units busy, builds under way)"
