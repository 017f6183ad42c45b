"""hexarena: hex-map strategy games for AI agents, behind one contract."""

from hexarena.core.contract import GameState, Outcome, OutcomeKind
from hexarena.core.registry import game_class, list_games, make

__version__ = "0.1.0"

__all__ = ["GameState", "Outcome", "OutcomeKind", "__version__", "game_class", "list_games", "make"]
