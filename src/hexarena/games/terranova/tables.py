"""The game content (JSON under ``data/``) loaded once into dense numpy arrays.

Every prerequisite becomes a boolean matrix (item x tech, item x building, item x resource), so a
legality mask is one reduction such as ``all(~prereq | owned)`` instead of a switch over closures.
Index conventions: technologies 0..80; unit types 1..37 (0 = no unit); resources 1..52 (0 = none);
improvements 1..14 (0 = none); buildings 0..147 (stage 1 fills the first rows); buildables are
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


def _load(name: str) -> dict[str, Any]:
    text = resources.files("hexarena.games.terranova").joinpath("data", f"{name}.json").read_text()
    return json.loads(text)


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
    building_names: tuple[str, ...]  # length 148, unused slots ""
    building_exists: np.ndarray  # (148,) bool
    building_kind: np.ndarray  # (148,) int32: 0 regular, 1 world wonder, 2 national wonder
    building_cost: np.ndarray  # (148,) Quick speed
    building_upkeep: np.ndarray  # (148,)
    building_tech: np.ndarray  # (148, 81) bool
    building_req: np.ndarray  # (148, 148) bool
    building_yields: np.ndarray  # (148, 8)
    building_per_pop: np.ndarray  # (148, 8)
    building_percent: np.ndarray  # (148, 8)
    building_water_yields: np.ndarray  # (148, 7)
    building_defence: np.ndarray  # (148,) strength x 100
    building_hp: np.ndarray  # (148,) extra HP (100 = one unit's worth)
    building_carryover: np.ndarray  # (148,)
    building_needs_river: np.ndarray  # (148,) bool
    building_needs_coast: np.ndarray  # (148,) bool
    buildable: np.ndarray  # (148,) bool: can be chosen (not the palace, not an empty slot)

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


def _quick(cost: float, factor: float) -> float:
    return float(round(cost * factor))


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

    bdoc = _load("buildings")
    slots = int(bdoc["slots"])
    bld = bdoc["buildings"]
    bix = {b["name"]: b["id"] for b in bld}
    names = [""] * slots
    kind_ix = {"world_wonder": 1, "national_wonder": 2}

    def zeros(*shape: int, dtype: Any = np.float32) -> np.ndarray:
        return np.zeros(shape, dtype)

    b_cols = {
        "exists": zeros(slots, dtype=bool),
        "kind": zeros(slots, dtype=np.int32),
        "cost": zeros(slots),
        "upkeep": zeros(slots),
        "tech": zeros(slots, n_t, dtype=bool),
        "req": zeros(slots, slots, dtype=bool),
        "yields": zeros(slots, N_BUILDING_YIELDS),
        "per_pop": zeros(slots, N_BUILDING_YIELDS),
        "percent": zeros(slots, N_BUILDING_YIELDS),
        "water": zeros(slots, N_YIELDS),
        "defence": zeros(slots),
        "hp": zeros(slots),
        "carry": zeros(slots),
        "river": zeros(slots, dtype=bool),
        "coast": zeros(slots, dtype=bool),
        "buildable": zeros(slots, dtype=bool),
    }
    for b in bld:
        i = b["id"]
        names[i] = b["name"]
        b_cols["exists"][i] = True
        b_cols["kind"][i] = kind_ix.get(b["kind"], 0)
        b_cols["cost"][i] = _quick(b["cost"], quick)
        b_cols["upkeep"][i] = b["upkeep"]
        if b["tech"]:
            b_cols["tech"][i, tix[b["tech"]]] = True
        for r in b.get("buildings", ()):
            b_cols["req"][i, bix[r]] = True
        b_cols["yields"][i] = b["yields"]
        b_cols["per_pop"][i] = b.get("per_pop", [0] * N_BUILDING_YIELDS)
        b_cols["percent"][i] = b.get("percent", [0] * N_BUILDING_YIELDS)
        b_cols["water"][i] = b.get("water_tile_yields", [0] * N_YIELDS)
        b_cols["defence"][i] = b.get("defence", 0)
        b_cols["hp"][i] = b.get("hp", 0)
        b_cols["carry"][i] = b.get("growth_carryover", 0.0)
        b_cols["river"][i] = bool(b.get("needs_river"))
        b_cols["coast"][i] = bool(b.get("needs_coast"))
        b_cols["buildable"][i] = not b.get("free_in_capital", False)

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
        building_names=tuple(names),
        building_exists=b_cols["exists"],
        building_kind=b_cols["kind"],
        building_cost=b_cols["cost"],
        building_upkeep=b_cols["upkeep"],
        building_tech=b_cols["tech"],
        building_req=b_cols["req"],
        building_yields=b_cols["yields"],
        building_per_pop=b_cols["per_pop"],
        building_percent=b_cols["percent"],
        building_water_yields=b_cols["water"],
        building_defence=b_cols["defence"],
        building_hp=b_cols["hp"],
        building_carryover=b_cols["carry"],
        building_needs_river=b_cols["river"],
        building_needs_coast=b_cols["coast"],
        buildable=b_cols["buildable"],
    )
