"""Scripted players: ``heuristic`` (:class:`.planner.StrategicPlayer`: plays for a victory, with
``strategy`` (the plan), ``economy`` (buildings worth their upkeep) and ``military`` (an army of
its era)), and ``easy`` (:class:`.heuristic.HeuristicPlayer`, the first bot, whose plan also
fills what a text move leaves out), with ``religion`` (tenets by value), ``caravans`` (trade
routes) and ``trade`` (deals) shared by both. They play through the same moves a person or a
model makes.
"""
