"""Scripted players: ``heuristic`` (:class:`.planner.StrategicPlayer`: plays for a victory, with
``strategy`` (the plan), ``economy`` (buildings worth their upkeep) and ``military`` (an army of
its era)), and ``easy`` (:class:`.heuristic.HeuristicPlayer`, the first bot, whose plan also
fills what a text move leaves out), with ``religion`` (tenets by value), ``caravans`` (trade
routes) and ``trade`` (deals) shared by both. They play through the same moves a person or a
model makes.
"""

from __future__ import annotations

from typing import Any


def seat_environment(view: Any) -> Any:
    """The environment a bot plays from: its role's own (observation, options), whether it was
    handed its role's view (as the manager does) or the full state (as a benchmark may)."""
    return view.environment if view.environment.view is not None else view.redact(view.roles[0])
