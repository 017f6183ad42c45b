from hexarena.core.manager import play_match
from hexarena.games.hex import HexState
from hexarena.games.hex.bot import HexBot, distance_to_connect
from hexarena.games.hex.state import BLUE, RED


def test_distance_counts_missing_stones():
    s = HexState.new(size=4)
    assert distance_to_connect(s.environment, RED) == 4
    s = s.apply("b1").apply("a1").apply("b2")
    assert distance_to_connect(s.environment, RED) == 2
    assert distance_to_connect(s.environment, BLUE) == 4  # red b1, b2 cut a1 off: blue starts anew


def test_bot_takes_a_winning_move():
    s = HexState.new(size=3)
    for m in ["a1", "b1", "a2", "b2"]:
        s = s.apply(m)
    bot = HexBot(seed=0)
    bot.reset(("red",), 0)
    assert bot.act(s.query_game()).move == "a3"


def test_bot_beats_random_as_either_colour():
    wins = 0
    for seed in range(6):
        for bot_role in ("red", "blue"):
            players = [
                {"type": "heuristic", "roles": [bot_role]},
                {"type": "random", "seed": seed, "roles": ["blue" if bot_role == "red" else "red"]},
            ]
            result = play_match(
                {"game": {"name": "hex", "seed": seed, "params": {"size": 6}}, "players": players}
            )
            wins += result.outcome.winners == (bot_role,)
    assert wins == 12
