"""Issue 24 item 7: every building's flat yields as the original's effect functions give them.

The rows are transcribed from the original's ``game/buildings.py`` (``trevormcinroe/terra_nova``):
the sum of the constant ``to_add`` vectors each building's function passes to ``add_bldg_yields``
(food, production, gold, faith, culture, science, happiness, tourism), the function named in the
comment. The Gurdwara's function adds +2 faith and +2 science per religion in its city
(``_gurdwara``): no flat yields, tested on its own.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.rules.cities import city_yields
from hexarena.games.terranova.engine.tables import FAITH, SCIENCE, load_tables

from ..tn_helpers import bare_capital, with_buildings

TB = load_tables()

ORIGINAL_FLAT_YIELDS = [
    (0, "courthouse", [0, 0, 0, 0, 0, 0, 2, 0]),  # _courthouse
    (1, "seaport", [0, 0, 0, 0, 0, 0, 0, 0]),  # _seaport
    (2, "stable", [0, 0, 0, 0, 0, 0, 0, 0]),  # _stable
    (3, "water_mill", [2, 1, 0, 0, 0, 0, 0, 0]),  # _watermill
    (4, "circus", [0, 0, 0, 0, 0, 0, 2, 0]),  # _circus
    (5, "forge", [0, 0, 0, 0, 0, 0, 0, 0]),  # _forge
    (6, "windmill", [0, 2, 0, 0, 0, 0, 0, 0]),  # _windmill
    (7, "hydro_plant", [0, 0, 0, 0, 0, 0, 0, 0]),  # _hydroplant
    (8, "solar_plant", [0, 5, 0, 0, 0, 0, 0, 0]),  # _solar_plant
    (9, "mint", [0, 0, 2, 0, 0, 0, 0, 0]),  # _mint
    (10, "observatory", [0, 0, 0, 0, 0, 4, 0, 0]),  # _observatory
    (11, "monastery", [0, 0, 0, 2, 2, 0, 0, 0]),  # _monastery
    (12, "garden", [0, 0, 0, 0, 0, 0, 0, 0]),  # _garden
    (13, "lighthouse", [0, 0, 0, 0, 0, 0, 0, 0]),  # _lighthouse
    (14, "harbor", [0, 0, 0, 0, 0, 0, 0, 0]),  # _harbor
    (15, "colosseum", [0, 0, 0, 0, 0, 0, 2, 0]),  # _colosseum
    (16, "theatre", [0, 0, 0, 0, 0, 0, 2, 0]),  # _zoo
    (17, "stadium", [0, 0, 0, 0, 0, 0, 2, 0]),  # _stadium
    (18, "monument", [0, 0, 0, 0, 2, 0, 0, 0]),  # _monument
    (19, "temple", [0, 0, 0, 2, 0, 0, 0, 0]),  # _temple
    (20, "opera_house", [0, 0, 0, 0, 2, 0, 0, 0]),  # _opera_house
    (21, "museum", [0, 0, 0, 0, 2, 0, 0, 0]),  # _museum
    (22, "broadcast_tower", [0, 0, 0, 0, 2, 0, 0, 0]),  # _broadcast_tower
    (23, "barracks", [0, 0, 0, 0, 0, 0, 0, 0]),  # _barracks
    (24, "armory", [0, 0, 0, 0, 0, 0, 0, 0]),  # _armory
    (25, "military_academy", [0, 0, 0, 0, 0, 0, 0, 0]),  # _military_academy
    (26, "arsenal", [0, 0, 0, 0, 0, 0, 0, 0]),  # _arsenal
    (27, "walls", [0, 0, 0, 0, 0, 0, 0, 0]),  # _walls
    (28, "castle", [0, 0, 0, 0, 0, 0, 0, 0]),  # _castle
    (29, "military_base", [0, 0, 0, 0, 0, 0, 0, 0]),  # _military_base
    (30, "granary", [2, 0, 0, 0, 0, 0, 0, 0]),  # _granary
    (31, "hospital", [5, 0, 0, 0, 0, 0, 0, 0]),  # _hospital
    (32, "medical_lab", [0, 0, 0, 0, 0, 0, 0, 0]),  # _medical_lab
    (33, "workshop", [0, 2, 0, 0, 0, 0, 0, 0]),  # _workshop
    (34, "factory", [0, 4, 0, 0, 0, 0, 0, 0]),  # _factory
    (35, "nuclear_plant", [0, 5, 0, 0, 0, 0, 0, 0]),  # _nuclear_plant
    (36, "spaceship_factory", [0, 3, 0, 0, 0, 0, 0, 0]),  # _spaceship_factory
    (37, "market", [0, 0, 1, 0, 0, 0, 0, 0]),  # _market
    (38, "bank", [0, 0, 2, 0, 0, 0, 0, 0]),  # _bank
    (39, "stock_exchange", [0, 0, 3, 0, 0, 0, 0, 0]),  # _stock_exchange
    (40, "library", [0, 0, 0, 0, 0, 0, 0, 0]),  # _library
    (41, "university", [0, 0, 0, 0, 0, 0, 0, 0]),  # _university
    (42, "public_school", [0, 0, 0, 0, 0, 3, 0, 0]),  # _public_school
    (43, "laboratory", [0, 0, 0, 0, 0, 4, 0, 0]),  # _research_lab
    (44, "palace", [0, 3, 3, 0, 1, 3, 0, 0]),  # _palace
    (45, "heroic_epic", [0, 0, 0, 0, 1, 0, 0, 0]),  # _heroic_epic
    (46, "national_college", [0, 0, 0, 0, 1, 3, 0, 0]),  # _national_college
    (47, "national_epic", [0, 0, 0, 0, 1, 0, 0, 0]),  # _national_epic
    (48, "circus_maximus", [0, 0, 0, 0, 1, 0, 5, 0]),  # _circus_maximus
    (49, "national_treasury", [0, 0, 4, 0, 0, 0, 0, 0]),  # _national_treasury
    (50, "ironworks", [0, 8, 0, 0, 0, 0, 0, 0]),  # _ironworks
    (51, "oxford_university", [0, 0, 0, 0, 0, 0, 0, 0]),  # _oxford_university
    (52, "hermitage", [0, 0, 0, 0, 2, 0, 0, 0]),  # _hermitage
    (53, "great_lighthouse", [0, 0, 0, 0, 1, 0, 0, 0]),  # _great_lighthouse
    (54, "stonehenge", [0, 0, 0, 6, 1, 0, 0, 0]),  # _stonehenge
    (55, "great_library", [0, 0, 0, 0, 1, 3, 0, 0]),  # _great_library
    (56, "pyramids", [0, 0, 0, 0, 1, 0, 0, 0]),  # _pyramid
    (57, "colossus", [0, 0, 5, 0, 1, 0, 0, 0]),  # _colossus
    (58, "oracle", [0, 0, 0, 0, 3, 0, 0, 0]),  # _oracle
    (59, "hanging_gardens", [6, 0, 0, 0, 1, 0, 0, 0]),  # _hanging_garden
    (60, "great_wall", [0, 0, 0, 0, 1, 0, 0, 0]),  # _great_wall
    (61, "angkor_wat", [0, 0, 0, 0, 5, 3, 0, 0]),  # _angkor_wat
    (62, "hagia_sophia", [0, 0, 0, 3, 0, 0, 0, 0]),  # _hagia_sophia
    (63, "chichen_itza", [0, 0, 0, 0, 1, 0, 4, 0]),  # _chichen_itza
    (64, "machu_picchu", [0, 0, 5, 2, 0, 0, 0, 0]),  # _machu_pichu
    (65, "notre_dame", [0, 0, 0, 4, 0, 0, 10, 0]),  # _notre_dame
    (66, "porcelain_tower", [0, 0, 0, 0, 1, 0, 0, 0]),  # _porcelain_tower
    (67, "himeji_castle", [0, 0, 0, 0, 1, 0, 0, 0]),  # _himeji_castle
    (68, "sistine_chapel", [0, 0, 0, 0, 1, 0, 0, 0]),  # _sistine_chapel
    (69, "kremlin", [0, 0, 0, 0, 1, 0, 0, 0]),  # _kremlin
    (70, "forbidden_palace", [0, 0, 0, 0, 1, 0, 0, 0]),  # _forbidden_palace
    (71, "taj_mahal", [0, 0, 0, 0, 1, 0, 4, 0]),  # _taj_mahal
    (72, "big_ben", [0, 0, 8, 0, 1, 0, 0, 0]),  # _big_ben
    (73, "louvre", [0, 0, 0, 0, 2, 0, 0, 0]),  # _louvre
    (74, "brandenburg_gate", [0, 0, 0, 0, 1, 0, 0, 0]),  # _brandenburg_gate
    (75, "statue_of_liberty", [0, 0, 0, 0, 1, 0, 6, 0]),  # _statue_of_liberty
    (76, "cristo_redentor", [0, 0, 0, 0, 5, 0, 0, 0]),  # _cristo_redentor
    (77, "eiffel_tower", [0, 0, 0, 0, 1, 0, 5, 12]),  # _eiffel_tower
    (78, "pentagon", [0, 0, 0, 0, 1, 0, 0, 0]),  # _pentagon
    (79, "sydney_opera_house", [0, 0, 0, 0, 0, 0, 0, 0]),  # _sydney_opera_house
    (80, "aqueduct", [0, 0, 0, 0, 0, 0, 0, 0]),  # _aqueduct
    (81, "stone_works", [0, 1, 0, 0, 0, 0, 1, 0]),  # _stone_works
    (82, "statue_of_zeus", [0, 0, 0, 0, 2, 0, 0, 0]),  # _statue_zeus
    (83, "temple_of_artemis", [0, 3, 3, 0, 3, 0, 0, 0]),  # _temple_artemis
    (84, "mausoleum_of_halicarnassus", [0, 0, 0, 0, 1, 0, 0, 0]),  # _mausoleum_halicarnassus
    (85, "amphitheater", [0, 0, 0, 0, 2, 0, 0, 0]),  # _amphitheater
    (86, "shrine", [0, 0, 0, 1, 0, 0, 0, 0]),  # _shrine
    (87, "recycling_plant", [0, 0, 0, 0, 0, 0, 0, 0]),  # _recycling_plant
    (88, "bomb_shelter", [0, 0, 0, 0, 0, 0, 0, 0]),  # _bomb_shelter
    (89, "constabulary", [0, 0, 0, 0, 0, 0, 0, 0]),  # _constabulary
    (90, "police_station", [0, 0, 0, 0, 0, 0, 0, 0]),  # _police_station
    (91, "intelligence_agency", [0, 0, 0, 0, 0, 0, 0, 0]),  # _intelligence_agency
    (92, "alhambra", [0, 0, 0, 0, 1, 0, 0, 0]),  # _alhambra
    (93, "cn_tower", [0, 0, 0, 0, 0, 0, 1, 0]),  # _cn_tower
    (94, "hubble_space_telescope", [0, 0, 0, 0, 0, 10, 0, 0]),  # _hubble
    (95, "leaning_tower", [0, 0, 0, 0, 1, 0, 0, 0]),  # _leaning_tower
    (96, "mosque_of_djenne", [0, 0, 0, 6, 3, 0, 3, 0]),  # _mosque_of_djenne
    (97, "neuschwanstein", [0, 0, 6, 0, 4, 0, 2, 0]),  # _neuschwanstein
    (98, "petra", [0, 0, 0, 0, 7, 0, 0, 0]),  # _petra
    (99, "terracotta_army", [0, 0, 0, 0, 1, 0, 0, 0]),  # _terracotta_army
    (100, "great_firewall", [0, 0, 0, 0, 0, 0, 0, 0]),  # _great_firewall
    (101, "cathedral", [0, 0, 0, 0, 5, 0, 0, 0]),  # _cathedral
    (102, "mosque", [0, 0, 0, 3, 1, 0, 1, 0]),  # _mosque
    (103, "pagoda", [0, 0, 0, 2, 1, 0, 1, 0]),  # _pagoda
    (104, "grand_temple", [0, 0, 0, 8, 0, 0, 0, 0]),  # _grand_temple
    (105, "tourist_center", [0, 0, 0, 0, 0, 0, 0, 0]),  # _tourist_center
    (106, "writers_guild", [0, 0, 0, 0, 0, 0, 0, 0]),  # _writers_guild
    (107, "artists_guild", [0, 0, 0, 0, 0, 0, 0, 0]),  # _artists_guild
    (108, "musicians_guild", [0, 0, 0, 0, 0, 0, 0, 0]),  # _musicians_guild
    (109, "hotel", [0, 0, 0, 0, 0, 0, 0, 0]),  # _hotel
    (110, "caravansary", [0, 0, 2, 0, 0, 0, 0, 0]),  # _caravansary
    (111, "airport", [0, 0, 0, 0, 0, 0, 0, 0]),  # _airport
    (112, "uffizi", [0, 0, 0, 0, 2, 0, 0, 0]),  # _uffizi
    (113, "globe_theater", [0, 0, 0, 0, 2, 0, 0, 0]),  # _globe_theater
    (114, "broadway", [0, 0, 0, 0, 2, 0, 0, 0]),  # _broadway
    (115, "red_fort", [0, 0, 0, 0, 8, 0, 4, 0]),  # _red_fort
    (116, "prora_resort", [0, 0, 0, 0, 0, 0, 2, 0]),  # _prora_resort
    (117, "borobudur", [0, 0, 0, 5, 0, 0, 0, 0]),  # _borobudur
    (118, "parthenon", [0, 0, 0, 0, 4, 0, 0, 0]),  # _parthenon
    (119, "international_space_station", [0, 0, 0, 0, 8, 0, 4, 0]),  # _international_space_station
    (120, "gurdwara", [0, 0, 0, 0, 0, 0, 0, 0]),  # _gurdwara
    (121, "synagogue", [0, 1, 0, 2, 1, 0, 0, 0]),  # _synagogue
    (122, "conservatory", [0, 0, 0, 0, 0, 0, 0, 1]),  # _conservatory
    (123, "vihara", [0, 0, 0, 1, 0, 0, 1, 0]),  # _vihara
    (124, "mandir", [0, 0, 0, 0, 0, 0, 0, 0]),  # _mandir
    (125, "st_peters", [0, 0, 0, 0, 8, 0, 4, 0]),  # _stpeters
    (126, "althing", [0, 0, 0, 0, 1, 0, 0, 0]),  # _althing
    (127, "gemcutter", [0, 0, 0, 0, 2, 0, 0, 0]),  # _gemcutter
    (128, "textile_mill", [0, 1, 0, 0, 0, 0, 0, 0]),  # _textile_mill
    (129, "censer_maker", [0, 0, 0, 0, 2, 0, 0, 0]),  # _censer_maker
    (130, "brewery", [0, 0, 2, 0, 0, 0, 0, 0]),  # _brewery
    (131, "grocer", [1, 0, 0, 0, 0, 0, 0, 0]),  # _grocer
    (132, "oil_refinery", [0, 0, 0, 0, 0, 0, 0, 0]),  # _oil_refinery
    (133, "grand_stele", [0, 0, 0, 0, 1, 0, 0, 0]),  # _grand_stele
    (134, "panama_canal", [0, 0, 3, 0, 1, 0, 0, 0]),  # _panama
    (135, "artist_house", [0, 0, 0, 1, 2, 0, 0, 0]),  # _artist_house
    (136, "writer_house", [0, 0, 0, 1, 3, 0, 0, 0]),  # _writer_house
    (137, "music_house", [0, 0, 0, 2, 2, 0, 0, 0]),  # _music_house
    (138, "huey_teocalli", [0, 0, 0, 4, 0, 0, 0, 0]),  # _lake_wonder
    (139, "apollo_program", [0, 0, 0, 0, 0, 0, 0, 0]),  # _apollo_program
    (140, "booster_1", [0, 0, 0, 0, 0, 0, 0, 0]),  # _booster_1
    (141, "booster_2", [0, 0, 0, 0, 0, 0, 0, 0]),  # _booster_2
    (142, "booster_3", [0, 0, 0, 0, 0, 0, 0, 0]),  # _booster_3
    (143, "engine", [0, 0, 0, 0, 0, 0, 0, 0]),  # _engine
    (144, "cockpit", [0, 0, 0, 0, 0, 0, 0, 0]),  # _cockpit
    (145, "stasis_chamber", [0, 0, 0, 0, 0, 0, 0, 0]),  # _stasis_chamber
    (146, "gallery", [0, 0, 0, 0, 0, 0, 1, 0]),  # _gallery
    (147, "scriptorium", [0, 0, 0, 0, 1, 0, 0, 0]),  # _scriptorium
]


def test_the_table_covers_every_building_once():
    assert [row[0] for row in ORIGINAL_FLAT_YIELDS] == list(range(len(TB.building_names)))


@pytest.mark.parametrize(("index", "name", "flat"), ORIGINAL_FLAT_YIELDS)
def test_flat_yields_are_the_originals(index, name, flat):
    assert TB.building_names[index] == name
    assert TB.building_yields[index].tolist() == flat


def test_gurdwara_gives_faith_and_science_per_religion_in_its_city():
    """``_gurdwara``: a 4-citizen capital with followers of two religions (3 of player 0's, 1 of
    player 1's) gains 2 x (2 faith, 2 science); none without followers."""
    s, _ = bare_capital()
    c, rel = s.cities, s.religion
    s = s._replace(cities=c._replace(pop=c.pop.at[0, 0].set(4)))
    run = jax.jit(lambda st: city_yields(st, jnp.int32(0), jnp.zeros((10, 36, 36))).yields[0])
    base = np.asarray(run(s))
    followed = s._replace(
        religion=rel._replace(followers=rel.followers.at[0, 0, :2].set(jnp.asarray([3, 1])))
    )
    assert np.allclose(np.asarray(run(with_buildings(s, "gurdwara"))), base)
    gain = np.asarray(run(with_buildings(followed, "gurdwara"))) - np.asarray(run(followed))
    assert gain[FAITH] == pytest.approx(4.0) and gain[SCIENCE] == pytest.approx(4.0)
    assert np.allclose(np.delete(gain, [FAITH, SCIENCE]), 0.0)
