"""``--players policy:PATH`` with a policy trained for another game: a config error naming both
games before the match starts (it was a forfeit after three failed attempts at the first move)."""

import pytest
from typer.testing import CliRunner

from hexarena.cli import app
from hexarena.core.errors import ConfigError


@pytest.mark.parametrize(
    ("policy", "title", "game"),
    [
        ("docs/rl/smallworld/policy.json", "Small World", "cityofgold"),
        ("docs/rl/cityofgold/policy.json", "City of Gold", "smallworld"),
        ("docs/rl/terranova/policy.npz", "Terra Nova", "hex"),
    ],
)
def test_a_policy_of_another_game_is_refused_before_the_match(tmp_path, policy, title, game):
    out = tmp_path / "rec"
    done = CliRunner().invoke(app, ["play", game, "--players", f"policy:{policy},random", "--out", str(out)])
    assert isinstance(done.exception, ConfigError), done.output  # the command line's exit 2
    assert str(done.exception) == f"policy '{policy}' is a {title} policy; this game is {game}"
    assert not out.exists()
