"""City of Gold: a deck-building race across a hex course to El Dorado (after *The Quest for El Dorado*).

Layers, each usable on its own:

* :mod:`.cards` and :mod:`.board`: data tables (JSON) and course generation;
* :mod:`.engine`: the scalar rules engine (mutable, fast, the reference for batched engines);
* :mod:`.actions`: the flat action layout and the 0.0.3 five-head form;
* :mod:`.observe`, :mod:`.vec`, :mod:`.env`: observations, the vectorised API and single envs;
* :mod:`.state`: the hexarena contract adapter (text rendering, frames);
* :mod:`.bot`, :mod:`.render`: the heuristic player and image rendering;
* :mod:`.invariants`: the rule invariants the tests check after every action.
"""

from hexarena.games.cityofgold.board import Difficulty
from hexarena.games.cityofgold.env import CityOfGoldEnv, cog_env
from hexarena.games.cityofgold.vec import action_sampler, get_runner, get_vec_env, get_vec_sampler, vec

__all__ = [
    "CityOfGoldEnv",
    "Difficulty",
    "action_sampler",
    "cog_env",
    "get_runner",
    "get_vec_env",
    "get_vec_sampler",
    "vec",
]
