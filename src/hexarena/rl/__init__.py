"""Reinforcement-learning adapters: Gymnasium (single agent) and PettingZoo (AEC), see docs/rl.md.

Importing this package registers the Gymnasium ids ``hexarena/Hex-v0``,
``hexarena/SmallWorld-v0``, ``hexarena/CityOfGold-v0``, ``hexarena/CityOfGold-Easy-v0``
(City of Gold with defaults a random policy gets a signal from) and ``hexarena/TerraNova-v0``
(:mod:`.tn_gym`: a flat observation and a Dict of masked action heads)::

    import gymnasium
    import hexarena.rl  # registers the ids
    env = gymnasium.make("hexarena/SmallWorld-v0", players=2, opponents="heuristic", reward="shaped")

(``gymnasium.make("hexarena.rl:hexarena/Hex-v0")`` imports and registers in one call.)
A game qualifies for the adapters when its state implements ``action_count``,
``action_to_move``, ``move_to_action`` and ``observation_array``
(see :class:`hexarena.core.contract.GameState`). Install the extra: ``pip install hexarena[rl]``.
"""

from hexarena.rl.aec import HexarenaAECEnv
from hexarena.rl.gym import ENV_IDS, HexarenaGymEnv, register_envs
from hexarena.rl.opponents import SnapshotPool

register_envs()

__all__ = ["ENV_IDS", "HexarenaAECEnv", "HexarenaGymEnv", "SnapshotPool"]
