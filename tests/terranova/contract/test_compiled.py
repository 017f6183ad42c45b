"""The compiled functions' disk cache as a process meets it: loaded in the background, and a
process that exits while the load is under way exits cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PLAY = "import hexarena; s = hexarena.make('terranova', seed=1, turn_cap=5); s.query_game('red'); s.apply({})"
MAKE_AND_EXIT = "import hexarena; hexarena.make('terranova', seed=2, turn_cap=5)"


def _python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3] / "src")}
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)


def test_a_process_exiting_during_the_background_load_exits_cleanly():
    # the first process fills the cache (view and step); the next ones find them and load them in
    # the background while they exit at once (XLA aborted such a process when the thread was a daemon)
    assert _python(PLAY).returncode == 0
    for _ in range(3):
        done = _python(MAKE_AND_EXIT)
        assert done.returncode == 0, done.stderr[-2000:]


def test_the_rules_import_no_presentation_module():
    """Editing the bot, the text view or the orders keeps the cache: no compiled code reads them."""
    code = (
        "import sys; import hexarena.games.terranova.contract.compiled as c; "
        "p = 'hexarena.games.terranova.'; traced = {'contract.' + t.removesuffix('.py') for t in c.TRACED}; "
        "print(sorted(m for m in sys.modules if m.startswith(p) and "
        "not m.removeprefix(p).startswith('engine') and m.removeprefix(p) not in traced and "
        "not m.removeprefix(p).endswith('contract')))"
    )
    done = _python(code)
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr[-2000:]
