"""All mutable game state. :class:`GameState` is the single source of truth; the map never changes.

Each race exists once in the game, so a race name identifies one pool of tokens: the regions it
holds (``RegionState.race``), the tokens in its owner's hand, tokens waiting to be redeployed
after an attack (``GameState.pending``), and the rest in the box (``GameState.tray``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from hexarena.games.smallworld.combo import ComboRow
from hexarena.games.smallworld.data_loader import get_race_config
from hexarena.games.smallworld.enums import MARKER_SUPPLY, Marker, Phase, PowerName, RaceName
from hexarena.games.smallworld.errors import InvalidConfig
from hexarena.games.smallworld.game_map import MapGraph
from hexarena.games.smallworld.rng import SeededRNG

STARTING_COINS = 5


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Players (2-5), the seed of all game randomness, and an optional separate map seed."""

    num_players: int
    seed: int = 0
    map_seed: int | None = None

    TURN_COUNTS: ClassVar[dict[int, int]] = {2: 10, 3: 10, 4: 9, 5: 8}

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or self.num_players not in self.TURN_COUNTS:
            raise InvalidConfig(f"num_players must be 2, 3, 4 or 5, got {self.num_players!r}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise InvalidConfig(f"seed must be an int, got {self.seed!r}")
        if self.map_seed is not None and (
            not isinstance(self.map_seed, int) or isinstance(self.map_seed, bool)
        ):
            raise InvalidConfig(f"map_seed must be an int or None, got {self.map_seed!r}")

    @property
    def max_turns(self) -> int:
        return self.TURN_COUNTS[self.num_players]

    @property
    def effective_map_seed(self) -> int:
        return self.seed if self.map_seed is None else self.map_seed

    def to_json(self) -> dict[str, Any]:
        return {"num_players": self.num_players, "seed": self.seed, "map_seed": self.map_seed}


@dataclass(slots=True)
class RegionState:
    """Who holds a region, with how many tokens of which race, and its markers."""

    region_id: int
    owner: int | None = None
    tokens: int = 0
    race: RaceName | None = None
    is_decline: bool = False
    markers: list[Marker] = field(default_factory=list)
    has_lost_tribe: bool = False

    @property
    def decline_race(self) -> RaceName | None:
        return self.race if self.is_decline else None

    def clone(self) -> RegionState:
        return RegionState(
            self.region_id,
            self.owner,
            self.tokens,
            self.race,
            self.is_decline,
            list(self.markers),
            self.has_lost_tribe,
        )

    def clear(self) -> None:
        """Empty the region of tokens and of every marker but the Mountain."""
        self.owner, self.tokens, self.race, self.is_decline = None, 0, None, False
        self.markers = [m for m in self.markers if m is Marker.MOUNTAIN]

    def to_json(self) -> dict[str, Any]:
        return {
            "region_id": self.region_id,
            "owner": self.owner,
            "tokens": self.tokens,
            "race": self.race.value if self.race else None,
            "is_decline": self.is_decline,
            "markers": [m.value for m in self.markers],
            "has_lost_tribe": self.has_lost_tribe,
        }


@dataclass(slots=True)
class ActiveRaceState:
    """A player's active race and what it did this turn."""

    race_name: RaceName
    power_name: PowerName
    tokens_in_hand: int
    first_turn: bool = True
    regions_conquered_this_turn: list[int] = field(default_factory=list)
    non_empty_conquests_this_turn: int = 0
    opponents_attacked_this_turn: set[int] = field(default_factory=set)
    sorcerer_targets_this_turn: set[int] = field(default_factory=set)
    dragon_used_this_turn: bool = False
    berserk_die_result: int | None = None
    holes_placed: int = 0
    fortress_placed_this_turn: bool = False

    def new_turn(self) -> None:
        self.first_turn = False
        self.regions_conquered_this_turn = []
        self.non_empty_conquests_this_turn = 0
        self.opponents_attacked_this_turn = set()
        self.sorcerer_targets_this_turn = set()
        self.dragon_used_this_turn = False
        self.berserk_die_result = None
        self.fortress_placed_this_turn = False

    def clone(self) -> ActiveRaceState:
        return ActiveRaceState(
            self.race_name,
            self.power_name,
            self.tokens_in_hand,
            self.first_turn,
            list(self.regions_conquered_this_turn),
            self.non_empty_conquests_this_turn,
            set(self.opponents_attacked_this_turn),
            set(self.sorcerer_targets_this_turn),
            self.dragon_used_this_turn,
            self.berserk_die_result,
            self.holes_placed,
            self.fortress_placed_this_turn,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "race": self.race_name.value,
            "power": self.power_name.value,
            "tokens_in_hand": self.tokens_in_hand,
            "first_turn": self.first_turn,
            "regions_conquered_this_turn": list(self.regions_conquered_this_turn),
            "non_empty_conquests_this_turn": self.non_empty_conquests_this_turn,
            "opponents_attacked_this_turn": sorted(self.opponents_attacked_this_turn),
            "sorcerer_targets_this_turn": sorted(self.sorcerer_targets_this_turn),
            "dragon_used_this_turn": self.dragon_used_this_turn,
            "berserk_die_result": self.berserk_die_result,
            "holes_placed": self.holes_placed,
            "fortress_placed_this_turn": self.fortress_placed_this_turn,
        }


@dataclass(slots=True)
class DeclineRaceState:
    """A declined race. Its power badge stays only where it acts in decline (Spirit, Seafaring)."""

    race_name: RaceName
    power_name: PowerName
    tokens_in_hand: int = 0

    def clone(self) -> DeclineRaceState:
        return DeclineRaceState(self.race_name, self.power_name, self.tokens_in_hand)

    def to_json(self) -> dict[str, Any]:
        return {
            "race": self.race_name.value,
            "power": self.power_name.value,
            "tokens_in_hand": self.tokens_in_hand,
        }


@dataclass(slots=True)
class PlayerState:
    player_id: int
    coins: int = STARTING_COINS
    active: ActiveRaceState | None = None
    decline: DeclineRaceState | None = None
    decline_spirit: DeclineRaceState | None = None

    def declines(self) -> list[DeclineRaceState]:
        return [d for d in (self.decline, self.decline_spirit) if d is not None]

    def clone(self) -> PlayerState:
        return PlayerState(
            self.player_id,
            self.coins,
            self.active.clone() if self.active else None,
            self.decline.clone() if self.decline else None,
            self.decline_spirit.clone() if self.decline_spirit else None,
        )

    def to_json(self, hide_coins: bool = False) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "coins": "HIDDEN" if hide_coins else self.coins,
            "active": self.active.to_json() if self.active else None,
            "decline": self.decline.to_json() if self.decline else None,
            "decline_spirit": self.decline_spirit.to_json() if self.decline_spirit else None,
        }


@dataclass(slots=True)
class GameState:
    """Everything that changes during a game, plus the map and the config it was built from."""

    config: GameConfig
    map: MapGraph
    regions: list[RegionState]
    players: list[PlayerState]
    combo_row: ComboRow
    rng: SeededRNG
    tray: dict[RaceName, int]
    phase: Phase = Phase.PICK_COMBO
    turn: int = 1
    current_player: int = 0
    #: Who must act now: the turn's player, or a displaced player during OPPONENT_REDEPLOY.
    acting_player: int = 0
    action_log: list[dict[str, Any]] = field(default_factory=list)
    #: Tokens knocked out of their regions, waiting to be redeployed at the end of the turn.
    pending: dict[RaceName, int] = field(default_factory=dict)
    #: diplomat's player id -> the opponent who may not attack the diplomat's active race.
    diplomat_immunity: dict[int, int] = field(default_factory=dict)
    #: Phases still to run this turn between REDEPLOY and SCORE.
    phase_queue: list[Phase] = field(default_factory=list)
    #: True while the turn's player runs declined Ghouls alongside the active race this turn.
    ghoul_turn: bool = False
    conquests_started: bool = False
    #: The public event log, oldest first: what each player did and what it caused (see
    #: ``observation.events_since_last_turn``). Each entry is a JSON-safe dict, never changed.
    events: list[dict[str, Any]] = field(default_factory=list)

    # -- queries -------------------------------------------------------------------------
    def race_owner(self, race: RaceName) -> int | None:
        for p in self.players:
            if (p.active and p.active.race_name == race) or any(d.race_name == race for d in p.declines()):
                return p.player_id
        return None

    def race_regions(self, race: RaceName) -> list[int]:
        return [r.region_id for r in self.regions if r.race == race]

    def player_regions(self, player_id: int, decline: bool | None = None) -> list[int]:
        """Regions held by ``player_id``: all, or only active (decline=False) or declined (True)."""
        return [
            r.region_id
            for r in self.regions
            if r.owner == player_id and (decline is None or r.is_decline == decline)
        ]

    def player_active_regions(self, player_id: int) -> list[int]:
        return self.player_regions(player_id, decline=False)

    def player_decline_regions(self, player_id: int) -> list[int]:
        return self.player_regions(player_id, decline=True)

    def tokens_on_map(self, player_id: int, decline: bool | None = None) -> int:
        return sum(
            r.tokens
            for r in self.regions
            if r.owner == player_id and (decline is None or r.is_decline == decline)
        )

    def marker_count(self, marker: Marker) -> int:
        if marker is Marker.LOST_TRIBE:
            return sum(r.has_lost_tribe for r in self.regions)
        return sum(r.markers.count(marker) for r in self.regions)

    def supply_left(self, marker: Marker) -> int:
        return MARKER_SUPPLY[marker] - self.marker_count(marker)

    def race_tokens_on_map(self, race: RaceName) -> int:
        return sum(r.tokens for r in self.regions if r.race == race)

    # -- small mutations shared by the engine and the abilities ----------------------------
    def take_from_tray(self, race: RaceName, wanted: int) -> int:
        """Move up to ``wanted`` tokens of ``race`` out of the box; returns how many there were."""
        got = max(0, min(wanted, self.tray[race]))
        self.tray[race] -= got
        return got

    def return_to_tray(self, race: RaceName, count: int) -> None:
        self.tray[race] += count
        if self.tray[race] > get_race_config(race).max_tokens:
            raise AssertionError(f"{race} tray overflow")  # an engine bug, never a player's error

    def record(self, event: str, player: int | None = None, **details: Any) -> dict[str, Any]:
        """Append ``event`` to the public log, stamped with the turn and the player who acted."""
        entry = {
            "event": event,
            "turn": self.turn,
            "player": self.current_player if player is None else player,
        }
        entry.update(details)
        self.events.append(entry)
        return entry

    def strip_markers(self, marker: Marker, race: RaceName | None = None) -> None:
        """Remove every ``marker`` from the map, or only from the regions ``race`` holds."""
        for r in self.regions:
            if marker in r.markers and (race is None or r.race == race):
                r.markers = [m for m in r.markers if m is not marker]

    @property
    def game_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def clone(self) -> GameState:
        return GameState(
            self.config,
            self.map,
            [r.clone() for r in self.regions],
            [p.clone() for p in self.players],
            self.combo_row.clone(),
            self.rng.clone(),
            dict(self.tray),
            self.phase,
            self.turn,
            self.current_player,
            self.acting_player,
            list(self.action_log),
            dict(self.pending),
            dict(self.diplomat_immunity),
            list(self.phase_queue),
            self.ghoul_turn,
            self.conquests_started,
            list(self.events),
        )

    def to_json(self) -> dict[str, Any]:
        """The complete state (coins and decks included), JSON-safe."""
        return {
            "config": self.config.to_json(),
            "phase": self.phase.value,
            "turn": self.turn,
            "current_player": self.current_player,
            "acting_player": self.acting_player,
            "regions": [r.to_json() for r in self.regions],
            "players": [p.to_json() for p in self.players],
            "combo_row": self.combo_row.to_json(),
            "rng": list(self.rng.get_state()),
            "tray": {k.value: v for k, v in self.tray.items()},
            "pending": {k.value: v for k, v in self.pending.items()},
            "diplomat_immunity": {str(k): v for k, v in self.diplomat_immunity.items()},
            "phase_queue": [p.value for p in self.phase_queue],
            "ghoul_turn": self.ghoul_turn,
            "conquests_started": self.conquests_started,
            "events": list(self.events),
        }
