from importlib.metadata import EntryPoint

import pytest

import hexarena
from hexarena.core import registry
from hexarena.core.errors import UnknownGameError
from hexarena.games.hex import HexState


class TinyHex(HexState):
    """A third-party game: Hex fixed at 3x3, registered through an entry point."""

    name = "tinyhex"

    @classmethod
    def new(cls, seed=0, **params):
        base = HexState.new(seed=seed, size=3)
        return cls.start(base.environment, base.setup.__class__("tinyhex", seed, base.setup.params))


def fake_entry_points(value):
    def entry_points(group):
        assert group == registry.ENTRY_POINT_GROUP
        return [EntryPoint("tinyhex", value, group)]

    return entry_points


def test_entry_point_games_are_listed_and_made(monkeypatch):
    monkeypatch.setattr(registry, "entry_points", fake_entry_points("tests.core.test_registry:TinyHex"))
    assert "tinyhex" in hexarena.list_games() and "hex" in hexarena.list_games()
    state = hexarena.make("tinyhex", seed=2)
    assert (
        type(state).__name__ == "TinyHex"
        and state.environment.size == 3
        and state.export()["game"] == "tinyhex"
    )


def test_entry_point_to_something_else_is_refused(monkeypatch):
    monkeypatch.setattr(
        registry, "entry_points", fake_entry_points("tests.core.test_registry:fake_entry_points")
    )
    with pytest.raises(UnknownGameError, match="not a GameState"):
        hexarena.make("tinyhex")
