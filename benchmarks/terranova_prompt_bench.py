"""The size of the prompt an LLM player gets in Terra Nova: the system and user messages of
:class:`~hexarena.core.llm.LLMPlayer` for every player's view at its turn, a six-player game whose
seats all pass (the default orders), over ``ROUNDS`` rounds. Issue 26 measured it with this:
median 7,282 characters (97 lines) before, 5,580 (70 lines) after.

    HEXARENA_JAX_CACHE=/work/jaxcache python -m benchmarks terranova_prompt
"""

from __future__ import annotations

import statistics

ROUNDS = 10


def main() -> None:
    import hexarena
    from hexarena.core.llm import LLMPlayer

    player = LLMPlayer("m", "http://127.0.0.1:9/v1", "x", reply_mode="text")  # never called
    state = hexarena.make("terranova", seed=3, turn_cap=ROUNDS)
    sizes, lines = [], []
    while not state.is_over():
        messages, _listed = player.build_messages(state.query_game(state.roles[0]))
        text = "".join(m["content"] for m in messages)
        sizes.append(len(text))
        lines.append(text.count("\n") + 1)
        state = state.apply(state.parse_move("pass"))
    print(
        f"{len(sizes)} prompts over {ROUNDS} rounds: median {statistics.median(sizes):.0f} characters, "
        f"{statistics.median(lines):.0f} lines; largest {max(sizes)}"
    )
