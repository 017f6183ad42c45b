"""Boards that match their logs (issue 27 item 5): what a move names can be found on the board."""

import re

import hexarena
from hexarena.games.cityofgold.frames import SCORE_NOTE
from tests.helpers.play import random_play


def test_hex_board_is_labelled_framed_in_its_edge_colours_and_stars_the_winning_chain():
    state = random_play(hexarena.make("hex", seed=3, size=5), seed=3)
    frame = state.frame()
    cells = {c["id"]: c for c in frame["cells"]}
    assert [cells[f"top-{x}"]["label"] for x in "abcde"] == list("abcde")
    assert [cells[f"left-{k}"]["label"] for k in "12345"] == list("12345")
    assert {cells[f"{s}-c"]["terrain"] for s in ("top", "bottom")} == {"red_edge"}  # red joins top-bottom
    assert {cells[f"{s}-3"]["terrain"] for s in ("left", "right")} == {"blue_edge"}
    assert cells["top-a"]["r"] == -1 and cells["right-5"]["q"] == 5
    winner = state.validate_game().winners[0]
    chain = [c for c in frame["cells"] if "chain" in c.get("icons", ())]
    assert chain and all(c["owner"] == winner for c in chain)
    rows = {c["r"] for c in chain} if winner == "red" else {c["q"] for c in chain}
    assert rows == set(range(5)), "the starred chain joins the winner's two edges"
    assert not [c for c in hexarena.make("hex", size=5).frame()["cells"] if c.get("icons")]


def test_small_world_regions_show_their_ids_and_the_turn_never_passes_the_last():
    state = random_play(hexarena.make("smallworld", seed=2, players=2), seed=2)
    assert state.is_over()
    frame = state.frame()
    for cell in frame["cells"]:
        assert re.fullmatch(rf"{cell['region']}(:\d+)?", cell["label"]), cell
    turn = frame["panels"]["Turn"]["turn"]
    done, last = map(int, turn.split(" of "))
    assert done == last, turn


def test_city_of_gold_map_has_axes_that_place_the_pawns_and_scores_are_explained():
    state = hexarena.make("cityofgold", seed=1, players=2, n_pieces=1)
    text = state.render_text("red")
    rows = {line.split()[0]: line for line in text.splitlines() if re.match(r"^ *\d+ ", line)}
    for row, col in re.findall(r"\(row (\d+), col (\d+)\)", text.split("P1 red: pawns")[1].split(";")[0]):
        line = rows[row]
        x = 4 + 4 * (int(col) - 1)  # "NNN " prefix, then four characters a column
        assert "P1" in line[x : x + 4], (row, col, line)
    while not any(m.startswith("move") for m in state.legal_moves()):
        state = state.apply(next(m for m in state.legal_moves() if m.startswith("play")))
    note = state.move_note(next(m for m in state.legal_moves() if m.startswith("move")))
    assert re.search(r"at \(row \d+, col \d+\)", note), note
    assert frame_note(state) == SCORE_NOTE.format(win=1) and "-1 for one winner" in SCORE_NOTE


def frame_note(state):
    return state.frame()["panels"]["Turn"]["score"]
