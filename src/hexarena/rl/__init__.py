"""Reinforcement-learning adapters: PettingZoo (AEC) and Gymnasium, over any game with RL hooks.

A game qualifies when its state implements ``action_count``, ``action_to_move``,
``move_to_action`` and ``observation_array`` (see :class:`hexarena.core.contract.GameState`).
Install the extra: ``pip install hexarena[rl]``.
"""

from hexarena.rl.aec import HexarenaAECEnv
from hexarena.rl.gym import HexarenaGymEnv

__all__ = ["HexarenaAECEnv", "HexarenaGymEnv"]
