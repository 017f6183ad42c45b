"""Scripted players: ``heuristic`` (``HeuristicPlayer``, and the defaults a text move leaves to
it), with ``religion`` (tenets by value), ``caravans`` (trade routes) and ``trade`` (deals). They
play through the same moves a person or a model makes.
"""
