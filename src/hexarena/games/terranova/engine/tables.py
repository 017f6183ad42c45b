"""The game content (JSON under ``data/``) loaded once into dense numpy arrays.

Every prerequisite becomes a boolean matrix (item x tech, item x building, item x resource), so a
legality mask is one reduction such as ``all(~prereq | owned)`` instead of a switch over closures.
Index conventions: technologies 0..80; unit types 1..37 (0 = no unit); resources 1..52 (0 = none);
improvements 1..14 (0 = none); buildings 0..147 (the original's order); policies 0..53; buildables are
buildings 0..147 followed by the unit types, ``148 + type - 1``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

N_YIELDS = 7  # food, production, gold, faith, culture, science, happiness
N_BUILDING_YIELDS = 8  # the same plus tourism
BUILDING_SLOTS = 148
N_BUILDABLES = 185
N_CATEGORIES = 19
FOOD, PROD, GOLD, FAITH, CULTURE, SCIENCE, HAPPY = range(7)
TOURISM = 7
# The six seats' names (player index order), and the names of the terrain and feature indices.
ROLES = ("red", "blue", "green", "yellow", "purple", "orange")
TERRAIN_KEYS = ("ocean", "grassland", "plains", "desert", "tundra", "snow")
FEATURE_KEYS = ("", "forest", "jungle", "marsh", "oasis", "floodplains", "ice")
BUILDING_CATEGORIES = (
    "regular",
    "military",
    "religious",
    "culture",
    "economic",
    "sea",
    "science",
    "national_wonder",
    "world_wonder",
    "spaceship",
)
TENET_KINDS = ("pantheon", "founder", "follower", "enhancer", "reformation")
# What a tenet's ``count_yields`` count: followers of the tenet's religion in the world, cities with
# any, foreign cities where it is the majority, and national / world wonders in the city itself.
TENET_COUNTS = (
    "followers",
    "following_cities",
    "foreign_majority_cities",
    "national_wonders",
    "world_wonders",
)
SPECIALISTS = ("artist", "musician", "writer", "engineer", "merchant", "scientist")
GREAT_WORKS = ("writing", "art", "music", "artifact")
SITE_NEEDS = ("coast", "river", "fresh_water", "mountain", "nearby_mountain", "hill", "flat", "holy_city")
# Improvements a tile-yield effect can name (tiles carrying that improvement).
IMPROVEMENT_TILE_CLASSES = ("pasture", "camp", "fishing_boat", "plantation", "quarry", "lumber_mill")
# Tile classes a tile-yield effect can name: the 52 resources (class = resource id - 1), then these.
EXTRA_TILE_CLASSES = (
    "luxury",
    "sea_resource",
    "ocean",
    "water",
    "lake",
    "river",
    "oasis",
    "jungle",
    "tundra",
    "desert_dry",
    "bare_ocean",
    "desert",
    "forest",
    "natural_wonder",
    *IMPROVEMENT_TILE_CLASSES,
)
# Modifier kinds: the columns of every modifier table (buildings now; policies and tenets reuse them).
MODIFIERS = (
    "growth_carryover",
    "building_production_pct",
    "military_production_pct",
    "mounted_production_pct",
    "land_production_pct",
    "ranged_production_pct",
    "armored_production_pct",
    "spaceship_production_pct",
    "great_person_pct",
    "religious_pressure",
    "religious_pressure_pct",
    "hp",
    "spy_defence_pct",
    "tourism_from_culture_pct",
    "great_work_tourism_pct",
    "landmark_tourism_pct",
    "trade_gold_origin",
    "trade_gold_destination",
    "border_cost_pct",
    "improvement_time_pct",
    "golden_age_length_pct",
    "connection_gold_pct",
    "unhappiness_pct",
    "delegates",
    "policy_cost_pct",
    "culture_pct_all_cities",
    "great_person_pct_all_cities",
    "defence_pct_all_cities",
    "happiness_per_policy",
    "combat_pct",
    "gold_purchase_pct",
    "faith_purchase_pct",
    "spies",
    "spy_defence_pct_all",
    "missionary_spreads",
    "science_bulb_pct",
    "trade_routes",
    "upkeep_pct",
    "policy_cost_per_city_pct",
    "happiness_per_luxury",
    "free_units",
    "free_units_per_city",
    "settler_production_pct",
    "science_pct_when_happy",
    "new_city_population",
    "new_city_happiness",
    "artist_gp_pct",
    "musician_gp_pct",
    "writer_gp_pct",
    "merchant_gp_pct",
    "scientist_gp_pct",
    "science_per_specialist",
    "great_work_culture",
    "great_work_science",
    "great_work_tourism",
    "culture_building_tourism_pct",
    "theming_pct",
    "culture_per_kill",
    "gold_per_kill",
    "science_per_kill",
    "xp_pct",
    "unit_xp",
    "naval_combat_pct",
    "holy_site_food",
    "holy_site_culture",
    "holy_site_gold",
    "reformation_belief",
    "caravan_gold",
    "trading_post_food",
    "cs_resting_influence",
    "cs_trade_food",
    "cs_trade_production",
    "cs_trade_influence",
    "cs_science_pct",
    "cs_yield_pct",
    "cs_strategic_pct",
    "cs_luxury_happiness_pct",
    "cs_gift_influence_pct",
    "cs_decay_pct",
    "cs_gift_yield_pct",
    "city_ranged_strength_pct",
    "prophet_faith_pct",
    "own_city_pressure_pct",
    "city_state_pressure_pct",
    "tourism_pct",
    "great_merchant_gold_pct",
    "gold_per_great_person",
    "trade_range_pct",  # caravan range from this city (caravansary, harbor)
    "trade_food",  # routes between own cities carry food (granary)
    "trade_production",  # ... and production (workshop)
)
# One-time grants on completion (buildings) or adoption (policies).
GRANTS = (
    "free_techs",
    "free_policies",
    "free_great_people",
    "golden_age",
    "population",
    *(f"great_person_{k}" for k in (*SPECIALISTS, "prophet")),
)


def _load(name: str) -> dict[str, Any]:
    text = resources.files("hexarena.games.terranova").joinpath("data", f"{name}.json").read_text()
    return json.loads(text)


@cache
def citystate_rules() -> dict[str, Any]:
    """``data/citystates.json``: city states, spies, the World Congress and the victories."""
    return _load("citystates")


@dataclass(frozen=True)
class Tables:
    """Dense views of the data files. Arrays are numpy; the step closes over them as constants."""

    rules: dict[str, Any]
    tech_names: tuple[str, ...]
    tech_cost: np.ndarray  # (81,) float32
    tech_era: np.ndarray  # (81,) int32
    tech_prereq: np.ndarray  # (81, 81) bool: [t, p] = p is needed for t
    unit_names: tuple[str, ...]  # index 0 = "none"
    unit_cost: np.ndarray  # (38,) float32, Quick speed
    unit_strength: np.ndarray  # (38,) float32
    unit_ranged: np.ndarray  # (38,) float32
    unit_range: np.ndarray  # (38,) int32
    unit_moves: np.ndarray  # (38,) int32
    unit_class: np.ndarray  # (38,) int32
    unit_tech: np.ndarray  # (38, 81) bool
    unit_obsolete: np.ndarray  # (38, 81) bool
    unit_resource: np.ndarray  # (38, 53) bool
    unit_categories: np.ndarray  # (38, 19) bool
    category_names: tuple[str, ...]
    class_names: tuple[str, ...]
    counter: np.ndarray  # (7, 7) float32 attacker class x defender class multiplier
    resource_names: tuple[str, ...]  # index 0 = "none"
    resource_kind: np.ndarray  # (53,) int32: 0 none, 1 bonus, 2 strategic, 3 luxury
    resource_yields: np.ndarray  # (53, 7)
    resource_improved: np.ndarray  # (53, 7)
    resource_reveal: np.ndarray  # (53,) int32 tech index (-1 for none)
    resource_improvement: np.ndarray  # (53,) int32 improvement id
    resource_habitat: tuple[tuple[str, ...], ...]
    improvement_names: tuple[str, ...]  # index 0 = "none"
    improvement_tech: np.ndarray  # (15,) int32
    improvement_turns: np.ndarray  # (15,) int32, Quick speed
    improvement_yields: np.ndarray  # (15, 7)
    improvement_flags: dict[str, np.ndarray]  # flag -> (15,) bool
    improvement_feature: np.ndarray  # (15,) int32 feature required (-1 any)
    improvement_defence: np.ndarray  # (15,) float32
    category_improvement: np.ndarray  # (19,) int32 improvement id of a worker category, 0 otherwise
    terrain_yields: np.ndarray  # (6, 7)
    elevation_yields: np.ndarray  # (4, 7)
    elevation_sets: np.ndarray  # (4,) bool: elevation replaces the terrain yield
    feature_yields: np.ndarray  # (7, 7)
    feature_sets: np.ndarray  # (7,) bool
    terrain_cost: np.ndarray  # (6,)
    elevation_cost: np.ndarray  # (4,)
    feature_cost: np.ndarray  # (7,)
    elevation_defence: np.ndarray  # (4,)
    feature_defence: np.ndarray  # (7,)
    wonder_yields: np.ndarray  # (18, 7) natural wonders, row 0 = none
    lake_yields: np.ndarray  # (7,)
    river_yields: np.ndarray  # (7,)
    building_names: tuple[str, ...]  # 148 names, ids in the original's order
    building_exists: np.ndarray  # (148,) bool
    building_kind: np.ndarray  # (148,) int32: 0 other, 1 world wonder, 2 national wonder
    building_category: np.ndarray  # (148,) int32 index into BUILDING_CATEGORIES
    building_cost: np.ndarray  # (148,) Quick speed
    building_upkeep: np.ndarray  # (148,)
    building_tech: np.ndarray  # (148, 81) bool
    building_req: np.ndarray  # (148, 148) bool: every marked building is needed
    building_empire_wide: np.ndarray  # (148,) bool: built in one city, counts as built in every city
    building_resource: np.ndarray  # (148, 53) bool: one marked resource suffices
    building_policy: np.ndarray  # (148, 54) bool: every marked policy is needed
    building_needs: np.ndarray  # (148, len(SITE_NEEDS)) bool: site conditions
    building_yields: np.ndarray  # (148, 8)
    building_per_pop: np.ndarray  # (148, 8)
    building_per_religion: np.ndarray  # (148, 8) per religion with followers in the city (Gurdwara)
    building_percent: np.ndarray  # (148, 8)
    building_tile_bonus: np.ndarray  # (148, len(TILE_CLASSES), 7) yields added to worked tiles of a class
    building_city_mods: np.ndarray  # (148, len(MODIFIERS)) acting on the owning city
    building_empire_mods: np.ndarray  # (148, len(MODIFIERS)) acting on the whole empire
    building_grants: np.ndarray  # (148, len(GRANTS)) one-time grants on completion
    building_free_here: np.ndarray  # (148, 148) bool: completing row gives column in the same city
    building_free_all: np.ndarray  # (148, 148) bool: ... in every city of the owner
    building_specialists: np.ndarray  # (148, 6) specialist slots (SPECIALISTS order)
    building_gw_slots: np.ndarray  # (148, 4) great-work slots (GREAT_WORKS order)
    building_gpp: np.ndarray  # (148, 6) great person points per turn (SPECIALISTS order)
    building_free_units: np.ndarray  # (148, 38) units of each type given on completion
    building_defence: np.ndarray  # (148,) strength x 100
    building_hp: np.ndarray  # (148,) extra HP (100 = one unit's worth)
    building_carryover: np.ndarray  # (148,)
    building_needs_river: np.ndarray  # (148,) bool
    building_needs_coast: np.ndarray  # (148,) bool
    buildable: np.ndarray  # (148,) bool: can be chosen with production (not the palace, not faith-only)
    production_mods: np.ndarray  # (185, len(MODIFIERS)) 1 where a production modifier applies to a buildable
    policy_names: tuple[str, ...]  # 54
    policy_tree: np.ndarray  # (54,) int32 tree index
    policy_req: np.ndarray  # (54, 54) bool: every marked policy is needed
    policy_era: np.ndarray  # (54,) int32 era that opens the policy's tree
    tree_names: tuple[str, ...]  # 9
    policy_tree_onehot: np.ndarray  # (54, 9) float32
    # Policy effect rows: the 54 policies, then the 9 tree finishers (54 + tree index).
    # Civic effect rows (154): the 54 policies, the 9 tree finishers, then the 91 tenets.
    policy_capital_yields: np.ndarray  # (154, 8)
    policy_city_yields: np.ndarray  # (154, 8)
    policy_coastal_yields: np.ndarray  # (154, 8)
    policy_capital_per_pop: np.ndarray  # (154, 8)
    policy_city_per_pop: np.ndarray  # (154, 8)
    policy_capital_percent: np.ndarray  # (154, 8)
    policy_city_percent: np.ndarray  # (154, 8)
    policy_building_yields: np.ndarray  # (154, 148, 8) added per building owned
    policy_building_percent: np.ndarray  # (154, 148, 8) percent per building owned
    policy_production: np.ndarray  # (154, 185) production percent toward each buildable
    policy_tile_bonus: np.ndarray  # (154, C, 7)
    policy_empire_mods: np.ndarray  # (154, len(MODIFIERS))
    policy_grants: np.ndarray  # (154, len(GRANTS)) on adoption
    policy_free_buildings: np.ndarray  # (154, 148) bool given on adoption ...
    policy_free_cities: np.ndarray  # (154,) int32 ... in the first this-many city slots
    policy_free_units: np.ndarray  # (154, 38) units of each type given on adoption
    policy_pop_yields: np.ndarray  # (154, 8) in each city of at least ``policy_pop_min`` citizens
    policy_pop_min: np.ndarray  # (154,) float32
    policy_connected_yields: np.ndarray  # (154, 8) in each city connected to the capital
    tenet_names: tuple[str, ...]  # 91
    tenet_kind: np.ndarray  # (91,) int32 index into TENET_KINDS
    # Tenet-only effect columns (the rest are the tenets' civic rows above), applied in each city
    # where the tenet acts (``beliefs.city_tenets``):
    tenet_city_mods: np.ndarray  # (91, len(MODIFIERS)) modifiers of the city
    tenet_count_yields: np.ndarray  # (91, len(TENET_COUNTS), 8) yields per unit of a count
    tenet_count_percent: np.ndarray  # (91, len(TENET_COUNTS), 8) percent per unit of a count
    tenet_count_per: np.ndarray  # (91, len(TENET_COUNTS)) a unit is this many of the count
    tenet_count_max: np.ndarray  # (91, len(TENET_COUNTS)) at most this many units
    tenet_site_yields: np.ndarray  # (91, len(SITE_NEEDS), 8) in cities meeting a site condition
    tenet_purchase: np.ndarray  # (91, 148) bool: buildings the holder buys with faith, together
    specialist_yields: np.ndarray  # (6, 8) yields of one specialist of each kind (SPECIALISTS order)

    @property
    def n_techs(self) -> int:
        return len(self.tech_names)

    def tech(self, name: str) -> int:
        return self.tech_names.index(name)

    def unit(self, name: str) -> int:
        return self.unit_names.index(name)

    def building(self, name: str) -> int:
        return self.building_names.index(name)

    def resource(self, name: str) -> int:
        return self.resource_names.index(name)

    def tenet(self, name: str) -> int:
        return self.tenet_names.index(name)

    def policy(self, name: str) -> int:
        return self.policy_names.index(name)

    def modifier(self, name: str) -> int:
        return MODIFIERS.index(name)


def _quick(cost: float, factor: float) -> float:
    return float(round(cost * factor))


def _free_units(names: list[str], unit_ix: dict[str, int]) -> np.ndarray:
    """(38,) how many units of each type a ``free_units`` list gives."""
    row = np.zeros(len(unit_ix) + 1, np.float32)
    for name in names:
        row[unit_ix[name]] += 1
    return row


def _building_tables(
    bdoc: dict[str, Any],
    tix: dict[str, int],
    rix: dict[str, int],
    pdoc: dict[str, Any],
    unit_ix: dict[str, int],
) -> dict[str, Any]:
    """Every building row -> dense columns: prerequisite matrices, yield rows, modifier rows, grants."""
    quick = float(_load("rules")["speed_factor"])
    slots = int(bdoc["slots"])
    bld = bdoc["buildings"]
    bix = {b["name"]: b["id"] for b in bld}
    pix = {p["name"]: p["id"] for p in pdoc["policies"]}
    classes = tile_classes()
    n_t, n_r, n_p = len(tix), len(rix), len(pix)

    def zeros(*shape: int, dtype: Any = np.float32) -> np.ndarray:
        return np.zeros(shape, dtype)

    names = [""] * slots
    out: dict[str, np.ndarray] = {
        "building_exists": zeros(slots, dtype=bool),
        "building_kind": zeros(slots, dtype=np.int32),
        "building_category": zeros(slots, dtype=np.int32),
        "building_cost": zeros(slots),
        "building_upkeep": zeros(slots),
        "building_tech": zeros(slots, n_t, dtype=bool),
        "building_req": zeros(slots, slots, dtype=bool),
        "building_empire_wide": zeros(slots, dtype=bool),
        "building_resource": zeros(slots, n_r, dtype=bool),
        "building_policy": zeros(slots, n_p, dtype=bool),
        "building_needs": zeros(slots, len(SITE_NEEDS), dtype=bool),
        "building_yields": zeros(slots, N_BUILDING_YIELDS),
        "building_per_pop": zeros(slots, N_BUILDING_YIELDS),
        "building_per_religion": zeros(slots, N_BUILDING_YIELDS),
        "building_percent": zeros(slots, N_BUILDING_YIELDS),
        "building_tile_bonus": zeros(slots, len(classes), N_YIELDS),
        "building_city_mods": zeros(slots, len(MODIFIERS)),
        "building_empire_mods": zeros(slots, len(MODIFIERS)),
        "building_grants": zeros(slots, len(GRANTS)),
        "building_free_here": zeros(slots, slots, dtype=bool),
        "building_free_all": zeros(slots, slots, dtype=bool),
        "building_specialists": zeros(slots, len(SPECIALISTS)),
        "building_gw_slots": zeros(slots, len(GREAT_WORKS)),
        "building_gpp": zeros(slots, len(SPECIALISTS)),
        "building_free_units": zeros(slots, len(unit_ix) + 1),
        "building_defence": zeros(slots),
        "buildable": zeros(slots, dtype=bool),
    }
    city_keys = (
        "religious_pressure",
        "trade_gold_origin",
        "trade_gold_destination",
        "landmark_tourism_pct",
        "great_work_tourism_pct",
        "trade_range_pct",
        "trade_food",
        "trade_production",
    )
    empire_keys = ("trade_routes", "spies")
    grant_keys = ("free_techs", "free_policies", "free_great_people")
    for b in bld:
        i = b["id"]
        names[i] = b["name"]
        out["building_exists"][i] = True
        out["building_kind"][i] = {"world_wonder": 1, "national_wonder": 2}.get(b["kind"], 0)
        out["building_category"][i] = BUILDING_CATEGORIES.index(b["kind"])
        out["building_cost"][i] = _quick(b["cost"], quick)
        out["building_upkeep"][i] = b["upkeep"]
        out["building_tech"][i, tix[b["tech"]]] = True
        for r in b.get("buildings", ()):
            out["building_req"][i, bix[r]] = True
        out["building_empire_wide"][i] = bool(b.get("empire_wide"))
        for r in b.get("resources_any", ()):
            out["building_resource"][i, rix[r]] = True
        for r in b.get("policies", ()):
            out["building_policy"][i, pix[r]] = True
        for j, need in enumerate(SITE_NEEDS):
            out["building_needs"][i, j] = bool(
                b.get(f"needs_{need}") or (need == "holy_city" and b.get("holy_city_only"))
            )
        out["building_yields"][i] = b["yields"]
        out["building_per_pop"][i] = b.get("per_pop", [0] * N_BUILDING_YIELDS)
        out["building_per_religion"][i] = b.get("yields_per_religion", [0] * N_BUILDING_YIELDS)
        out["building_percent"][i] = b.get("percent", [0] * N_BUILDING_YIELDS)
        for effect in b.get("tile_yields", ()):
            for cls in effect["tiles"]:
                out["building_tile_bonus"][i, classes.index(cls)] += effect["yields"]
        for key, value in b.get("city_modifiers", {}).items():
            out["building_city_mods"][i, MODIFIERS.index(key)] = value
        for key in city_keys:
            out["building_city_mods"][i, MODIFIERS.index(key)] += b.get(key, 0)
        for key, value in b.get("empire_modifiers", {}).items():
            out["building_empire_mods"][i, MODIFIERS.index(key)] = value
        for key in empire_keys:
            out["building_empire_mods"][i, MODIFIERS.index(key)] += b.get(key, 0)
        grants = b.get("on_complete", {})
        for key in grant_keys:
            out["building_grants"][i, GRANTS.index(key)] = b.get(key, 0)
        for key in ("golden_age", "population"):
            out["building_grants"][i, GRANTS.index(key)] = grants.get(key, 0)
        if "great_person" in grants:
            out["building_grants"][i, GRANTS.index(f"great_person_{grants['great_person']}")] += 1
        if "free_building" in grants:
            out["building_free_here"][i, bix[grants["free_building"]]] = True
        out["building_free_units"][i] = _free_units(grants.get("free_units", []), unit_ix)
        if "free_building_all_cities" in grants:
            out["building_free_all"][i, bix[grants["free_building_all_cities"]]] = True
        for kind, n in b.get("specialists", {}).items():
            out["building_specialists"][i, SPECIALISTS.index(kind)] = n
        for kind, n in b.get("great_work_slots", {}).items():
            out["building_gw_slots"][i, GREAT_WORKS.index(kind)] = n
        for kind, n in b.get("great_person_points", {}).items():
            out["building_gpp"][i, SPECIALISTS.index(kind)] = n
        out["building_defence"][i] = b.get("defence", 0)
        out["buildable"][i] = b.get("production_buildable", True)
    mods = out["building_city_mods"]
    needs = out["building_needs"]
    return {
        "building_names": tuple(names),
        **out,
        "building_hp": mods[:, MODIFIERS.index("hp")].copy(),
        "building_carryover": mods[:, MODIFIERS.index("growth_carryover")].copy(),
        "building_needs_river": needs[:, SITE_NEEDS.index("river")].copy(),
        "building_needs_coast": needs[:, SITE_NEEDS.index("coast")].copy(),
    }


def _policy_tables(
    pdoc: dict[str, Any],
    tdoc: dict[str, Any],
    era_names: list[str],
    bdoc: dict[str, Any],
    techs: list,
    unit_ix: dict[str, int],
) -> dict[str, Any]:
    """Policies -> tree structure (prerequisite matrix, era gates); policies, tree finishers and
    tenets -> civic effect rows, in the same columns as the buildings' rows."""
    pols = pdoc["policies"]
    trees = tuple(t["name"] for t in pdoc["trees"])
    tree_era = {t["name"]: era_names.index(t["era"]) for t in pdoc["trees"]}
    pix = {p["name"]: p["id"] for p in pols}
    req = np.zeros((len(pols), len(pols)), bool)
    for p in pols:
        for r in p["prerequisites"]:
            req[p["id"], pix[r]] = True
    tree = np.array([trees.index(p["tree"]) for p in pols], np.int32)
    tenets = tdoc["tenets"]
    effects = [p["effects"] for p in pols] + [t["finisher"] for t in pdoc["trees"]]
    effects += [t.get("effects", {}) for t in tenets]
    tech_era = {t["name"]: era_names.index(t["era"]) for t in techs}
    bld = bdoc["buildings"]
    n_b = len(bld)
    bix = {b["name"]: b["id"] for b in bld}
    kinds = {b["name"]: b["kind"] for b in bld}
    b_era = {b["name"]: tech_era.get(b.get("tech", ""), -1) for b in bld}
    classes = tile_classes()
    rows = len(effects)
    y8 = N_BUILDING_YIELDS
    out = {
        name: np.zeros((rows, y8), np.float32)
        for name in (
            "capital_yields",
            "city_yields",
            "coastal_city_yields",
            "capital_per_pop",
            "city_per_pop",
            "capital_percent",
            "city_percent",
        )
    }
    b_yields = np.zeros((rows, n_b, y8), np.float32)
    b_percent = np.zeros((rows, n_b, y8), np.float32)
    production = np.zeros((rows, n_b + len(unit_ix)), np.float32)
    free_units = np.zeros((rows, len(unit_ix) + 1), np.float32)
    tile_bonus = np.zeros((rows, len(classes), N_YIELDS), np.float32)
    mods = np.zeros((rows, len(MODIFIERS)), np.float32)
    grants = np.zeros((rows, len(GRANTS)), np.float32)
    free = np.zeros((rows, n_b), bool)
    free_cities = np.zeros(rows, np.int32)
    pop_yields = np.zeros((rows, y8), np.float32)
    pop_min = np.zeros(rows, np.float32)
    connected = np.zeros((rows, y8), np.float32)

    def targets(entry: dict[str, Any]) -> list[int]:
        named = [bix[n] for n in entry.get("buildings", ())]
        for k in entry.get("kinds", ()):
            named += [bix[n] for n in bix if k == "all" or kinds[n] == k]
        if "eras" in entry:
            eras = [era_names.index(e) for e in entry["eras"]]
            in_era = [b for b in named if b_era[bld[b]["name"]] in eras]
            named = [b for b in in_era if bld[b].get("production_buildable", True)]
        return named

    for i, e in enumerate(effects):
        for name, table in out.items():
            table[i] = e.get(name, [0] * y8)
        for entry in e.get("building_yields", ()):
            for b in targets(entry):
                b_yields[i, b] += entry.get("yields", [0] * y8)
                b_percent[i, b] += entry.get("percent", [0] * y8)
        for entry in e.get("production_pct", ()):
            production[i, targets(entry)] += entry["pct"]
        for entry in e.get("tile_yields", ()):
            for cls in entry["tiles"]:
                tile_bonus[i, classes.index(cls)] += entry["yields"]
        for key, value in e.get("modifiers", {}).items():
            mods[i, MODIFIERS.index(key)] = value
        adopt = e.get("on_adopt", {})
        for key in ("golden_age", "free_policies", "free_techs", "free_great_people"):
            grants[i, GRANTS.index(key)] = adopt.get(key, 0)
        free_units[i] = _free_units(adopt.get("free_units", []), unit_ix)
        people = dict(adopt.get("great_people", {}))
        if "great_person" in adopt:
            people[adopt["great_person"]] = 1
        for kind, n in people.items():
            grants[i, GRANTS.index(f"great_person_{kind}")] = n
        if "pop_yields" in e:
            pop_yields[i] = e["pop_yields"]["yields"]
            pop_min[i] = e["pop_yields"]["min_pop"]
        connected[i] = e.get("connected_city_yields", [0] * y8)
        if "free_buildings" in e:
            free[i, [bix[n] for n in e["free_buildings"]["buildings"]]] = True
            free_cities[i] = e["free_buildings"]["cities"]
    return {
        "policy_names": tuple(p["name"] for p in pols),
        "policy_tree": tree,
        "policy_req": req,
        "policy_era": np.array([tree_era[p["tree"]] for p in pols], np.int32),
        "tree_names": trees,
        "policy_tree_onehot": (tree[:, None] == np.arange(len(trees))[None, :]).astype(np.float32),
        "policy_capital_yields": out["capital_yields"],
        "policy_city_yields": out["city_yields"],
        "policy_coastal_yields": out["coastal_city_yields"],
        "policy_capital_per_pop": out["capital_per_pop"],
        "policy_city_per_pop": out["city_per_pop"],
        "policy_capital_percent": out["capital_percent"],
        "policy_city_percent": out["city_percent"],
        "policy_building_yields": b_yields,
        "policy_building_percent": b_percent,
        "policy_production": production,
        "policy_tile_bonus": tile_bonus,
        "policy_empire_mods": mods,
        "policy_grants": grants,
        "policy_free_buildings": free,
        "policy_free_cities": free_cities,
        "policy_free_units": free_units,
        "policy_pop_yields": pop_yields,
        "policy_pop_min": pop_min,
        "policy_connected_yields": connected,
        "tenet_names": tuple(t["name"] for t in tenets),
        "tenet_kind": np.array([TENET_KINDS.index(t["kind"]) for t in tenets], np.int32),
        **_tenet_tables(tenets, bix),
    }


def _tenet_tables(tenets: list[dict[str, Any]], bix: dict[str, int]) -> dict[str, np.ndarray]:
    """The tenets' own effect columns: city modifiers, yields per count, site yields, faith purchases."""
    n, k, y8 = len(tenets), len(TENET_COUNTS), N_BUILDING_YIELDS
    out = {
        "tenet_city_mods": np.zeros((n, len(MODIFIERS)), np.float32),
        "tenet_count_yields": np.zeros((n, k, y8), np.float32),
        "tenet_count_percent": np.zeros((n, k, y8), np.float32),
        "tenet_count_per": np.ones((n, k), np.float32),
        "tenet_count_max": np.full((n, k), 1e9, np.float32),
        "tenet_site_yields": np.zeros((n, len(SITE_NEEDS), y8), np.float32),
        "tenet_purchase": np.zeros((n, len(bix)), bool),
    }
    for i, t in enumerate(tenets):
        e = t.get("effects", {})
        for key, value in e.get("city_modifiers", {}).items():
            out["tenet_city_mods"][i, MODIFIERS.index(key)] = value
        for entry in e.get("count_yields", ()):
            j = TENET_COUNTS.index(entry["count"])
            out["tenet_count_yields"][i, j] = entry.get("yields", [0] * y8)
            out["tenet_count_percent"][i, j] = entry.get("percent", [0] * y8)
            out["tenet_count_per"][i, j] = entry.get("per", 1)
            out["tenet_count_max"][i, j] = entry.get("max", 1e9)
        for site, values in e.get("site_yields", {}).items():
            out["tenet_site_yields"][i, SITE_NEEDS.index(site)] = values
        for name in e.get("faith_purchase", ()):
            out["tenet_purchase"][i, bix[name]] = True
    return out


def _production_mods(
    category: np.ndarray, ucol: dict[str, list[float]], classes: tuple[str, ...], unit_names: tuple[str, ...]
) -> np.ndarray:
    """Which production-percent modifier columns speed each buildable (buildings, then unit types 1..)."""
    rows = np.zeros((len(category) + len(ucol["cost"]) - 1, len(MODIFIERS)), np.float32)
    col = MODIFIERS.index
    rows[: len(category), col("building_production_pct")] = 1.0
    rows[: len(category), col("spaceship_production_pct")] = category == BUILDING_CATEGORIES.index(
        "spaceship"
    )
    for t in range(1, len(ucol["cost"])):
        r = rows[len(category) + t - 1]
        military = ucol["strength"][t] > 0
        r[col("military_production_pct")] = r[col("land_production_pct")] = military
        r[col("mounted_production_pct")] = classes[int(ucol["class"][t])] == "mounted"
        r[col("armored_production_pct")] = classes[int(ucol["class"][t])] == "armored"
        r[col("ranged_production_pct")] = ucol["ranged"][t] > 0
        r[col("settler_production_pct")] = unit_names[t] == "settler"
    return rows


@cache
def tile_classes() -> tuple[str, ...]:
    """Names of the tile classes tile-yield effects use: the 52 resources, then EXTRA_TILE_CLASSES."""
    return (*(r["name"] for r in _load("resources")["resources"]), *EXTRA_TILE_CLASSES)


@cache
def load_tables() -> Tables:
    """Read and check every data file (once per process)."""
    rules = _load("rules")
    quick = float(rules["speed_factor"])
    tdoc = _load("technologies")
    techs = tdoc["technologies"]
    tech_names = tuple(t["name"] for t in techs)
    n_t = len(techs)
    tix = {n: i for i, n in enumerate(tech_names)}
    tech_prereq = np.zeros((n_t, n_t), bool)
    for t in techs:
        for p in t["prerequisites"]:
            tech_prereq[tix[t["name"]], tix[p]] = True
    era_names = tdoc["eras"]

    rdoc = _load("resources")
    res = rdoc["resources"]
    resource_names = ("none", *(r["name"] for r in res))
    n_r = len(resource_names)
    rix = {n: i for i, n in enumerate(resource_names)}

    idoc = _load("improvements")
    imps = idoc["improvements"]
    improvement_names = ("none", *(m["name"] for m in imps))
    iix = {n: i for i, n in enumerate(improvement_names)}

    udoc = _load("units")
    units = udoc["units"]
    cats = tuple(udoc["action_categories"])
    classes = tuple(udoc["combat_classes"])
    n_u = len(units) + 1
    unit_tech = np.zeros((n_u, n_t), bool)
    unit_obsolete = np.zeros((n_u, n_t), bool)
    unit_resource = np.zeros((n_u, n_r), bool)
    unit_categories = np.zeros((n_u, len(cats)), bool)
    columns = ("cost", "strength", "ranged", "range", "moves", "class")
    ucol: dict[str, list[float]] = {k: [0.0] for k in columns}
    for u in units:
        i = u["id"]
        unit_tech[i, tix[u["tech"]]] = True
        if u["obsolete_tech"]:
            unit_obsolete[i, tix[u["obsolete_tech"]]] = True
        for r in u["resources"]:
            unit_resource[i, rix[r]] = True
        for c in u["categories"]:
            unit_categories[i, cats.index(c)] = True
        ucol["cost"].append(_quick(u["cost"], quick))
        ucol["strength"].append(u["strength"])
        ucol["ranged"].append(u["ranged_strength"])
        ucol["range"].append(u["range"])
        ucol["moves"].append(u["moves"])
        ucol["class"].append(classes.index(u["combat_class"]))
    counter = np.ones((len(classes), len(classes)), np.float32)
    for c in rules["counter_bonus"]:
        counter[classes.index(c["attacker"]), classes.index(c["defender"])] = c["factor"]

    improvement_flags: dict[str, np.ndarray] = {}
    for flag in ("land", "water", "flat", "no_feature", "needs_resource", "hill_or_resource", "anywhere"):
        improvement_flags[flag] = np.array([False, *(bool(m.get(flag, False)) for m in imps)])
    improvement_flags["removes_feature"] = np.array([False, *(bool(m.get("removes_feature")) for m in imps)])

    terr = _load("terrain")
    fix = {f["name"]: f["id"] for f in terr["features"]}
    category_improvement = np.zeros(len(cats), np.int32)
    for m in imps:
        category_improvement[m["category"]] = m["id"]

    def yields_of(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
        y = np.array([r.get("set_yields", r.get("yields")) for r in rows], np.float32)
        return y, np.array(["set_yields" in r for r in rows])

    elev_y, elev_set = yields_of(terr["elevations"])
    feat_y, feat_set = yields_of(terr["features"])

    pdoc = _load("policies")
    unit_ix = {u["name"]: u["id"] for u in units}
    bt = _building_tables(_load("buildings"), tix, rix, pdoc, unit_ix)
    pt = _policy_tables(pdoc, _load("tenets"), era_names, _load("buildings"), techs, unit_ix)
    f32 = np.float32
    return Tables(
        rules=rules,
        tech_names=tech_names,
        tech_cost=np.array([t["cost"] for t in techs], f32),
        tech_era=np.array([era_names.index(t["era"]) for t in techs], np.int32),
        tech_prereq=tech_prereq,
        unit_names=("none", *(u["name"] for u in units)),
        unit_cost=np.array(ucol["cost"], f32),
        unit_strength=np.array(ucol["strength"], f32),
        unit_ranged=np.array(ucol["ranged"], f32),
        unit_range=np.array(ucol["range"], np.int32),
        unit_moves=np.array(ucol["moves"], np.int32),
        unit_class=np.array(ucol["class"], np.int32),
        unit_tech=unit_tech,
        unit_obsolete=unit_obsolete,
        unit_resource=unit_resource,
        unit_categories=unit_categories,
        category_names=cats,
        class_names=classes,
        counter=counter,
        resource_names=resource_names,
        resource_kind=np.array([0, *({"bonus": 1, "strategic": 2, "luxury": 3}[r["kind"]] for r in res)]),
        resource_yields=np.array([[0] * N_YIELDS, *(r["yields"] for r in res)], f32),
        resource_improved=np.array([[0] * N_YIELDS, *(r["improved_yields"] for r in res)], f32),
        resource_reveal=np.array([-1, *(tix[r["reveal_tech"]] for r in res)], np.int32),
        resource_improvement=np.array([0, *(iix[r["improvement"]] for r in res)], np.int32),
        resource_habitat=((), *(tuple(r["habitat"]) for r in res)),
        improvement_names=improvement_names,
        improvement_tech=np.array([-1, *(tix[m["tech"]] for m in imps)], np.int32),
        improvement_turns=np.array([0, *(max(1, round(m["build_turns"] * quick)) for m in imps)], np.int32),
        improvement_yields=np.array([[0] * N_YIELDS, *(m["yields"] for m in imps)], f32),
        improvement_flags=improvement_flags,
        improvement_feature=np.array([-1, *(fix.get(m.get("feature", ""), -1) for m in imps)], np.int32),
        improvement_defence=np.array([0.0, *(m.get("defence", 0.0) for m in imps)], f32),
        category_improvement=category_improvement,
        terrain_yields=np.array([t["yields"] for t in terr["terrains"]], f32),
        elevation_yields=elev_y,
        elevation_sets=elev_set,
        feature_yields=feat_y,
        feature_sets=feat_set,
        terrain_cost=np.array([t["move_cost"] for t in terr["terrains"]], f32),
        elevation_cost=np.array([e["move_cost"] for e in terr["elevations"]], f32),
        feature_cost=np.array([f["move_cost"] for f in terr["features"]], f32),
        elevation_defence=np.array([e["defence"] for e in terr["elevations"]], f32),
        feature_defence=np.array([f["defence"] for f in terr["features"]], f32),
        wonder_yields=np.array([[0] * N_YIELDS, *(w["yields"] for w in terr["natural_wonders"])], f32),
        lake_yields=np.array(terr["lake"]["yields"], f32),
        river_yields=np.array(terr["river"]["yields"], f32),
        **bt,
        **pt,
        specialist_yields=np.array([rules["specialist_yields"][k] for k in SPECIALISTS], f32),
        production_mods=_production_mods(
            bt["building_category"], ucol, classes, ("none", *(u["name"] for u in units))
        ),
    )
