"""Bad arena configs are one-line errors naming the key, through the CLI as a user meets them."""

import pytest
import yaml

from hexarena.arena import parse_arena
from hexarena.arena.schedule import plan, rotations, total_matches
from hexarena.core.errors import ConfigError
from tests.core.test_cli import run_main

from .arena_doubles import arena_config


def players(*names_types):
    return [{"name": n, "type": t} for n, t in names_types]


BAD = [
    # (what is changed, the key the error must name, words it must say)
    (
        {"schedule": {"kind": "gauntlet", "anchors": ["nobody"]}},
        "schedule.anchors",
        "unknown player 'nobody'",
    ),
    (
        {"games": [{"name": "hex", "players": ["random", "ghost"]}]},
        "games[0].players",
        "unknown player 'ghost'",
    ),
    (
        {"players": players(("a", "random"), ("b", "heuristic"), ("a", "random"))},
        "players",
        "duplicate player name 'a'",
    ),
    ({"games": [{"name": "hex", "seats": 3}]}, "games[0].seats", "hex takes 2 players, not 3"),
    ({"games": [{"name": "smallworld", "seats": 9}]}, "games[0].seats", "smallworld does not accept"),
    (
        {"games": [{"name": "smallworld", "seats": 4}]},
        "games[0]",
        "smallworld has 4 seats but the schedule has only 3 players",
    ),
    (
        {
            "games": [{"name": "smallworld", "seats": 3}],
            "schedule": {"kind": "gauntlet", "anchors": ["random"]},
        },
        "schedule.anchors",
        "each match needs 2 anchors",
    ),
    (
        {"schedule": {"kind": "swiss"}, "games": [{"name": "smallworld", "seats": 3}]},
        "schedule.kind",
        "swiss",
    ),
    ({"players": players(("a", "random"), ("b", "minimax"))}, "players[1].type", "no player type 'minimax'"),
    ({"players": players(("a", "random"), ("b", "human"))}, "players[1].type", "human players cannot"),
    ({"games": [{"name": "chess"}]}, "games[0].name", "unknown game 'chess'"),
    ({"schedule": {"games_per_pairing": 0}}, "schedule.games_per_pairing", "greater than or equal to 1"),
    ({"ratings": {"anchor": "zed"}}, "ratings.anchor", "unknown player 'zed'"),
    ({"players": [{"name": "a", "type": "random", "colour": "red"}]}, "players.0.colour", "Extra inputs"),
]


@pytest.mark.parametrize(("change", "key", "words"), BAD, ids=[b[1] + ":" + b[2][:20] for b in BAD])
def test_bad_config_is_one_line_naming_the_key(monkeypatch, capsys, tmp_path, change, key, words):
    path = tmp_path / "arena.yaml"
    path.write_text(yaml.safe_dump(arena_config(tmp_path, **change)))
    code, out = run_main(monkeypatch, capsys, "arena", str(path), "--out", str(tmp_path / "a"))
    assert code == 2 and "Traceback" not in out
    assert len(out.strip().splitlines()) == 1, out
    assert key in out and words in out, out
    assert not (tmp_path / "a").exists()  # nothing is started on a bad config


def test_leaderboard_of_a_folder_that_is_no_arena(monkeypatch, capsys, tmp_path):
    code, out = run_main(monkeypatch, capsys, "leaderboard", str(tmp_path))
    assert code == 2 and "no arena.sqlite here" in out


def test_round_robin_seatings_are_balanced_and_seeds_paired(tmp_path):
    config = parse_arena(
        arena_config(
            tmp_path,
            players=players(("a", "random"), ("b", "random"), ("c", "random"), ("d", "heuristic")),
            games=[{"name": "hex", "params": {"size": 5}}, {"name": "smallworld", "seats": 3}],
            schedule={"games_per_pairing": 2, "seed": 1},
        )
    )
    specs = plan(config, {})
    assert len(specs) == total_matches(config) == 6 * 2 * 2 + 4 * 3 * 2
    assert len({m.id for m in specs}) == len(specs)
    sw = [m for m in specs if m.game == "smallworld"]
    for player in "abcd":  # in 3 of the 4 pods, twice each: in every seat equally often
        assert [sum(m.seating[s] == player for m in sw) for s in range(3)] == [6, 6, 6]
    # the rotations of one pairing (and all pairings) share their seeds
    assert {m.seed for m in sw} == {m.seed for m in sw if set(m.seating) == {"a", "b", "c"}}
    assert len({m.seed for m in sw}) == 2
    assert rotations(("a", "b", "c")) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]


def test_match_id_changes_with_what_decides_the_match(tmp_path):
    base = parse_arena(arena_config(tmp_path))
    ids = {m.id for m in plan(base, {})}
    assert ids == {m.id for m in plan(parse_arena(arena_config(tmp_path)), {})}
    spelled_out = arena_config(tmp_path, manager={"max_rounds": 1000})  # the default, written out
    spelled_out["players"][0] = {"name": "random", "type": "random", "seed": 0, "temperature": 0.0}
    assert ids == {m.id for m in plan(parse_arena(spelled_out), {})}
    changed = arena_config(tmp_path)
    changed["players"][2] = {"name": "heuristic", "type": "heuristic", "seed": 9}
    new_ids = {m.id for m in plan(parse_arena(changed), {})}
    assert len(ids & new_ids) == 4  # only random vs random-b (2 seatings x 2 seeds) is unchanged


def test_gauntlet_plays_everyone_against_the_anchors(tmp_path):
    config = parse_arena(
        arena_config(
            tmp_path,
            players=players(("r", "random"), ("h", "heuristic"), ("x", "random"), ("y", "heuristic")),
            schedule={"kind": "gauntlet", "anchors": ["r", "h"]},
        )
    )
    pairs = {frozenset(m.seating) for m in plan(config, {})}
    assert pairs == {frozenset(p) for p in [("x", "r"), ("x", "h"), ("y", "r"), ("y", "h")]}


def test_secrets_in_env_are_expanded_but_never_in_the_match_id(tmp_path, monkeypatch):
    llm = {"name": "gpt", "type": "llm", "model": "m", "api_key": "${ARENA_TEST_KEY}"}
    monkeypatch.setenv("ARENA_TEST_KEY", "sk-one")
    one = parse_arena(arena_config(tmp_path, players=[{"name": "r", "type": "random"}, llm]))
    monkeypatch.setenv("ARENA_TEST_KEY", "sk-two")
    two = parse_arena(arena_config(tmp_path, players=[{"name": "r", "type": "random"}, llm]))
    assert one.player("gpt").api_key == "sk-one"
    assert [m.id for m in plan(one, {})] == [m.id for m in plan(two, {})]
    assert one.provider_of("gpt") == "api.openai.com"
    with pytest.raises(ConfigError, match="ARENA_MISSING"):
        parse_arena(
            arena_config(tmp_path, players=[llm | {"api_key": "${ARENA_MISSING}"}, llm | {"name": "x"}])
        )
