"""Plays one small arena on the process pool and on a local Ray; prints both outcomes as JSON.

Run by ``test_ray.py`` as a child process (a fresh interpreter, as ``hexarena arena --ray``).
"""

import json
import sys
from pathlib import Path

from hexarena.arena import parse_arena, run_arena
from tests.arena.arena_doubles import arena_config


def main(folder: Path) -> None:
    config = arena_config(folder, games=[{"name": "hex", "params": {"size": 4}}])  # 12 quick matches
    pool = run_arena(parse_arena(config), config, folder / "pool", workers=2)
    on_ray = run_arena(parse_arena(config), config, folder / "ray", workers=2, ray=True)
    print(
        json.dumps(
            {"played": [pool.played, on_ray.played], "boards": [pool.board, on_ray.board]}, default=str
        )
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
