"""The enumerations of Small World: terrain, map symbols, markers, phases, actions, races, powers."""

from __future__ import annotations

from enum import Enum, StrEnum


class Terrain(StrEnum):
    FARMLAND = "FARMLAND"
    HILL = "HILL"
    FOREST = "FOREST"
    SWAMP = "SWAMP"
    MOUNTAIN = "MOUNTAIN"
    SEA = "SEA"
    LAKE = "LAKE"


WATER_TERRAINS = frozenset({Terrain.SEA, Terrain.LAKE})


class Feature(StrEnum):
    MINE = "MINE"
    MAGIC_SOURCE = "MAGIC_SOURCE"
    CAVERN = "CAVERN"
    BORDER = "BORDER"
    COASTAL = "COASTAL"


class Marker(StrEnum):
    MOUNTAIN = "MOUNTAIN"
    LOST_TRIBE = "LOST_TRIBE"
    TROLL_LAIR = "TROLL_LAIR"
    FORTRESS = "FORTRESS"
    ENCAMPMENT = "ENCAMPMENT"
    HOLE_IN_THE_GROUND = "HOLE_IN_THE_GROUND"
    DRAGON = "DRAGON"
    HERO = "HERO"


#: Markers that add 1 each to the cost of conquering their region.
DEFENSIVE_MARKERS = frozenset({Marker.MOUNTAIN, Marker.TROLL_LAIR, Marker.FORTRESS, Marker.ENCAMPMENT})
#: Markers that make their region immune to conquest and to race or power abilities.
IMMUNE_MARKERS = frozenset({Marker.HOLE_IN_THE_GROUND, Marker.DRAGON, Marker.HERO})
#: How many of each marker the box holds (Lost Tribes: 18 tokens).
MARKER_SUPPLY: dict[Marker, int] = {
    Marker.MOUNTAIN: 9,
    Marker.TROLL_LAIR: 10,
    Marker.FORTRESS: 6,
    Marker.ENCAMPMENT: 5,
    Marker.HOLE_IN_THE_GROUND: 2,
    Marker.HERO: 2,
    Marker.DRAGON: 1,
    Marker.LOST_TRIBE: 18,
}


class Phase(StrEnum):
    PICK_COMBO = "PICK_COMBO"
    CHOOSE_EXPAND_OR_DECLINE = "CHOOSE_EXPAND_OR_DECLINE"
    CONQUEST = "CONQUEST"
    GHOUL_CONQUEST = "GHOUL_CONQUEST"
    FINAL_CONQUEST = "FINAL_CONQUEST"
    REDEPLOY = "REDEPLOY"
    PLACE_BIVOUACS = "PLACE_BIVOUACS"
    PLACE_FORTRESS = "PLACE_FORTRESS"
    PLACE_HEROES = "PLACE_HEROES"
    CHOOSE_DIPLOMAT_ALLY = "CHOOSE_DIPLOMAT_ALLY"
    STOUT_DECLINE = "STOUT_DECLINE"
    OPPONENT_REDEPLOY = "OPPONENT_REDEPLOY"
    SCORE = "SCORE"
    TURN_END = "TURN_END"
    GAME_OVER = "GAME_OVER"


class ActionType(StrEnum):
    PICK_COMBO = "PICK_COMBO"
    EXPAND = "EXPAND"
    DECLINE = "DECLINE"
    ABANDON = "ABANDON"
    CONQUER = "CONQUER"
    SKIP_CONQUEST = "SKIP_CONQUEST"
    FINAL_CONQUEST = "FINAL_CONQUEST"
    REDEPLOY = "REDEPLOY"
    USE_DRAGON = "USE_DRAGON"
    USE_SORCERER = "USE_SORCERER"
    PLACE_BIVOUACS = "PLACE_BIVOUACS"
    PLACE_FORTRESS = "PLACE_FORTRESS"
    PLACE_HEROES = "PLACE_HEROES"
    CHOOSE_DIPLOMAT_ALLY = "CHOOSE_DIPLOMAT_ALLY"
    STOUT_DECLINE = "STOUT_DECLINE"
    OPPONENT_REDEPLOY = "OPPONENT_REDEPLOY"


class RaceName(StrEnum):
    AMAZONS = "Amazons"
    DWARVES = "Dwarves"
    ELVES = "Elves"
    GHOULS = "Ghouls"
    GIANTS = "Giants"
    HALFLINGS = "Halflings"
    HUMANS = "Humans"
    ORCS = "Orcs"
    RATMEN = "Ratmen"
    SKELETONS = "Skeletons"
    SORCERERS = "Sorcerers"
    TRITONS = "Tritons"
    TROLLS = "Trolls"
    WIZARDS = "Wizards"


class PowerName(StrEnum):
    ALCHEMIST = "Alchemist"
    BERSERK = "Berserk"
    BIVOUACKING = "Bivouacking"
    COMMANDO = "Commando"
    DIPLOMAT = "Diplomat"
    DRAGON_MASTER = "Dragon Master"
    FLYING = "Flying"
    FOREST = "Forest"
    FORTIFIED = "Fortified"
    HEROIC = "Heroic"
    HILL = "Hill"
    MERCHANT = "Merchant"
    MOUNTED = "Mounted"
    PILLAGING = "Pillaging"
    SEAFARING = "Seafaring"
    SPIRIT = "Spirit"
    STOUT = "Stout"
    SWAMP = "Swamp"
    UNDERWORLD = "Underworld"
    WEALTHY = "Wealthy"


def enum_value(value: Enum | str) -> str:
    """The JSON form of an enum member (its value)."""
    return value.value if isinstance(value, Enum) else value
