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


def test_builtin_games_are_found_without_scanning_entry_points(monkeypatch):
    """A scan of the installed packages costs milliseconds, and RL envs make a game per episode."""

    def no_scan(group):
        raise AssertionError("entry points scanned for a built-in game")

    monkeypatch.setattr(registry, "entry_points", no_scan)
    assert registry.game_class("hex") is HexState
    monkeypatch.setattr(registry, "entry_points", fake_entry_points("tests.core.test_registry:TinyHex"))
    with pytest.raises(UnknownGameError, match=r"unknown game 'nohex'.*tinyhex"):
        registry.game_class("nohex")


def test_entry_point_to_something_else_is_refused(monkeypatch):
    monkeypatch.setattr(
        registry, "entry_points", fake_entry_points("tests.core.test_registry:fake_entry_points")
    )
    with pytest.raises(UnknownGameError, match="not a GameState"):
        hexarena.make("tinyhex")


def test_builtin_listing_metadata_matches_the_game_classes():
    from hexarena.games.terranova.engine.tables import ROLES  # making a Terra Nova game would compile JAX

    for name, info in registry.BUILTIN_INFO.items():
        cls = registry.game_class(name)
        roles = ROLES if name == "terranova" else cls.new(seed=0, **cls.demo_params).all_roles()
        assert info.demo_roles == tuple(roles), name
        assert info.bots == tuple(sorted(cls.bots)), name
        assert info.summary == registry.summary_line(cls), name
    assert set(registry.BUILTIN_INFO) == set(registry.BUILTIN_GAMES)


def test_entry_point_game_info_comes_from_its_class(monkeypatch):
    monkeypatch.setattr(registry, "entry_points", fake_entry_points("tests.core.test_registry:TinyHex"))
    info = registry.game_info("tinyhex")
    assert info.demo_roles == ("red", "blue") and info.summary == registry.summary_line(TinyHex)
    assert info.players[:3] == registry.PLAYER_KINDS


def test_listing_games_imports_no_game_module_and_no_jax():
    import subprocess
    import sys

    code = (
        "import sys; from typer.testing import CliRunner; from hexarena.cli import app; "
        "out = CliRunner().invoke(app, ['list']); assert out.exit_code == 0, out.output; "
        "assert 'terranova' in out.output; "
        "bad = [m for m in sys.modules if m == 'jax' or m.startswith('hexarena.games.')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
