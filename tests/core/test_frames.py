import pytest

from hexarena.core.errors import RecordError
from hexarena.core.frames import FrameEncoder, decode_frames


def test_deltas_round_trip_and_only_carry_changes():
    frames = [
        {
            "layout": "pointy",
            "cells": [{"id": 1, "q": 0, "r": 0, "owner": None}, {"id": 2, "q": 1, "r": 0}],
            "players": [{"role": "a", "score": 0}],
        },
        {
            "layout": "pointy",
            "cells": [{"id": 1, "q": 0, "r": 0, "owner": "a"}, {"id": 2, "q": 1, "r": 0}],
            "players": [{"role": "a", "score": 0}],
        },
        {
            "layout": "pointy",
            "cells": [{"id": 1, "q": 0, "r": 0, "owner": "a"}],
            "players": [{"role": "a", "score": 2}],
            "panels": {"x": [1]},
        },
    ]
    enc = FrameEncoder()
    deltas = [enc.encode(f) for f in frames]
    assert deltas[1] == {"cells": [{"id": 1, "q": 0, "r": 0, "owner": "a"}]}
    assert deltas[2]["removed"] == [2] and "layout" not in deltas[2]
    assert list(decode_frames(deltas)) == frames


def test_decode_rejects_garbage():
    with pytest.raises(RecordError, match="frame 0"):
        list(decode_frames([{"nope": 1}]))


def test_fog_runs_round_trip():
    from hexarena.core.frames import fog_digits, fog_runs

    for digits in ("", "0", "0000122222210", "2" * 2772, "0120" * 50):
        assert fog_digits(fog_runs(digits)) == digits
    assert fog_runs("0001222") == "r:03,11,23" and fog_digits("012") == "012"
