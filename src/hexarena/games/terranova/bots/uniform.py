"""``uniform``: the spec's random player, through the game contract.

The original's simulator plays its random player by scoring every option of every endpoint
(trade deals, policies, tenets, techs, each unit's category and target, each city's build and
worked tiles) uniformly at random; the resolver executes the best legal option, so each endpoint
takes a uniformly random legal choice. This player sends those scores as a sparse move (full
rankings, each unit's legal targets shuffled), so ``--players policy:PATH,uniform,...`` replays
the opponents a learnt policy is trained and measured against (``hexarena.rl.tn_es``).

It is much weaker than the contract's generic ``random`` player, which picks one order from the
move menu and leaves the rest of the turn to the default orders (the ``easy`` bot's plan).
"""

from __future__ import annotations

import numpy as np

from hexarena.core.contract import GameState
from hexarena.core.frozen import freeze
from hexarena.core.players import Reply, SeededPlayer
from hexarena.games.terranova.bots import seat_environment
from hexarena.games.terranova.contract.moves import sparse_from_dense
from hexarena.games.terranova.engine.spaces import map_shapes


class UniformPlayer(SeededPlayer):
    """Uniformly random preferences on every endpoint, from the seat's seeded stream."""

    kind = "uniform"

    def act(self, view: GameState) -> Reply:
        env = seat_environment(view)
        rng = np.random.default_rng(self.rng.next_u64())
        dense = map_shapes(lambda shape: rng.random(shape, dtype=np.float32))
        move = sparse_from_dense(dense, env.view, env.options, trade=True)
        return Reply(move=freeze(move), raw="uniform random preferences")
