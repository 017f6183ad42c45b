"""The data tables: counts, Civ V facts spot-checked, and the prerequisite matrices."""

import numpy as np

from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, N_CATEGORIES, load_tables


def test_content_counts():
    t = load_tables()
    assert t.n_techs == 81
    assert len(t.unit_names) == 38  # 37 types plus "none"
    assert len(t.resource_names) == 53  # 52 plus "none"
    assert len(t.improvement_names) == 15  # 14 worker builds plus "none"
    assert len(t.category_names) == N_CATEGORIES
    assert len(t.building_names) == BUILDING_SLOTS
    assert t.wonder_yields.shape == (18, 7)


def test_tech_tree_facts():
    t = load_tables()
    assert t.tech_cost[t.tech("agriculture")] == 20
    assert t.tech_cost[t.tech("future_tech")] == 10500
    assert not t.tech_prereq[t.tech("agriculture")].any()
    civil = t.tech_prereq[t.tech("civil_service")]
    assert {t.tech_names[i] for i in np.flatnonzero(civil)} == {"drama", "horseback_riding", "currency"}
    # The prerequisite graph is acyclic: every prerequisite has a lower index.
    rows, cols = np.nonzero(t.tech_prereq)
    assert (cols < rows).all()
    assert t.tech_era.min() == 0 and t.tech_era.max() == 7


def test_unit_facts():
    t = load_tables()
    w = t.unit("warrior")
    assert t.unit_strength[w] == 8 and t.unit_moves[w] == 2
    assert t.unit_cost[w] == round(40 * 0.6667)
    assert t.unit_tech[w, t.tech("agriculture")] and t.unit_obsolete[w, t.tech("iron_working")]
    sword = t.unit("swordsman")
    assert t.unit_resource[sword, t.resource("iron")]
    archer = t.unit("archer")
    assert t.unit_range[archer] == 2 and t.unit_ranged[archer] == 7
    assert t.unit_categories[t.unit("settler"), t.category_names.index("settle")]
    assert t.unit_categories[t.unit("worker"), 2:16].all()
    assert t.counter[t.class_names.index("anti_mounted"), t.class_names.index("mounted")] == 1.5


def test_resources_and_improvements():
    t = load_tables()
    assert (t.resource_kind[1:] > 0).all()
    assert (t.resource_kind == 2).sum() == 6  # strategic: iron, horses, coal, oil, aluminium, uranium
    assert t.resource_reveal[t.resource("iron")] == t.tech("mining")
    assert t.improvement_names[t.resource_improvement[t.resource("wheat")]] == "farm"
    assert t.improvement_tech[t.improvement_names.index("road")] == t.tech("the_wheel")
    assert (t.improvement_turns[1:] >= 1).all()


def test_buildings():
    t = load_tables()
    assert not t.buildable[t.building("palace")]
    assert t.building_kind[t.building("pyramids")] == 1
    assert t.building_req[t.building("temple"), t.building("shrine")]
    assert t.building_tech[t.building("library"), t.tech("writing")]
    assert not t.building_exists[len([n for n in t.building_names if n]) :].any()
