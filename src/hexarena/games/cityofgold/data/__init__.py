"""Data tables of City of Gold (cards, pieces, blockades, cave tokens); a package so wheels ship it."""
