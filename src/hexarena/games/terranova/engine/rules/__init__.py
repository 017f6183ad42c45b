"""The rules of a turn, one topic a module; ``engine.step`` calls them in the original's order.

``units`` (movement, combat, founding), ``cities`` (yields, growth, production, borders),
``policies`` (the policy endpoint), ``religion`` (pantheons, prophets, tenets, faith purchases),
``beliefs`` (the tenets acting in each city), ``pressure`` (religious spread), ``great_people``
(specialists, great people, great works, golden ages, tourism), ``trade`` (offers, deals, the
ledger), ``trade_routes`` (caravans), ``citystates`` (the city states' round), ``cs_relations``
(what relationships and contacts give), ``espionage`` (spies), ``victory`` (World Congress and the
four victories).
"""
