"""``python -m hexarena``: the same as the ``hexarena`` command."""

from hexarena.cli import main

main()
