/* hexarena replay viewer: the per-game vocabulary (terrain colours, icon symbols, edge styles).
 * Games name terrain, icons and edges freely; keys missing here fall back to the default table,
 * then to the first known part of a compound key ("hill_forest" -> hill), then to a colour
 * derived from the key, so a new game is always drawn. */
"use strict";

const HEX_VOCAB = {
  default: {
    ownerStyle: "ring", // "ring": owner drawn as a coloured rim over the terrain; "fill": as a stone
    terrain: {
      board: "#eadfc6", land: "#b9c98a", forest: "#3f7a3a", jungle: "#2b6a33", hill: "#a8935a",
      hills: "#a8935a", mountain: "#857b72", mountains: "#857b72", swamp: "#5f6f4b", marsh: "#5f6f4b",
      farmland: "#d8c86a", grassland: "#87b85b", plains: "#c6bf78", desert: "#e3cf8f", tundra: "#a9b39f",
      snow: "#eef1f4", ice: "#dfe9f0", coast: "#80b9de", water: "#4f8fcf", sea: "#2f6fae", lake: "#5ba1d8",
      ocean: "#255d94", river: "#4f8fcf", village: "#c9a27a", city: "#c9a27a", rubble: "#7c7268",
      basecamp: "#ddd3b8", el_dorado: "#e8c547", gold: "#e8c547", cave: "#6b625a", magic: "#9b7bbf",
      empty: "#e9e4d8", none: "#e9e4d8", unknown: "#cfcfcf", lost: "#cfcfcf",
    },
    // s: shape (circle, square, tri, diamond, star), c: fill colour, t: text drawn on it,
    // owned: coloured as the owner (the icon's own "name:role", else the cell's owner);
    // p: priority when a cell has more icons than fit (0 first; default 2, icons with an owner 1)
    icons: {
      mountain: { s: "tri", c: "#6d6259" }, hill: { s: "tri", c: "#a8935a" },
      forest: { s: "tri", c: "#2f6a2c" }, cave: { s: "circle", c: "#4b443e", t: "C" }, cavern: { s: "circle", c: "#4b443e", t: "C" },
      magic: { s: "star", c: "#8e44ad" }, mine: { s: "diamond", c: "#7a7a7a", t: "M" },
      troll_lair: { s: "square", c: "#5b3f2a", t: "T" }, fortress: { s: "square", c: "#444", t: "F" },
      encampment: { s: "circle", c: "#b5651d", t: "E" }, hole_in_ground: { s: "circle", c: "#222", t: "H" },
      hole_in_the_ground: { s: "circle", c: "#222", t: "H" },
      dragon: { s: "diamond", c: "#c0392b", t: "D" }, hero: { s: "star", c: "#f1c40f" },
      lost_tribe: { s: "circle", c: "#9b7b4a", t: "t" }, seaside: { s: "circle", c: "#2f6fae", t: "~" },
      border: { s: "square", c: "#888", t: "b" }, decline: { s: "circle", c: "#777", t: "d" },
      city: { s: "square", c: "#f6f1e3", t: "C", p: 0 }, capital: { s: "star", c: "#f6d04d", p: 0 },
      unit: { s: "circle", c: "#555", t: "U", owned: true }, settler: { s: "circle", c: "#555", t: "S", owned: true },
      worker: { s: "circle", c: "#555", t: "W", owned: true }, warrior: { s: "circle", c: "#555", t: "w", owned: true },
      archer: { s: "circle", c: "#555", t: "a", owned: true }, scout: { s: "circle", c: "#555", t: "s", owned: true },
      pawn: { s: "circle", c: "#555", t: "", owned: true }, blockade: { s: "square", c: "#a33", t: "B" },
      start: { s: "circle", c: "#fff", t: "S" }, goal: { s: "star", c: "#e8c547" },
      improvement: { s: "square", c: "#b08a4a", t: "I" }, road: { s: "square", c: "#8a6a3a", t: "r" },
      farm: { s: "square", c: "#d8c86a", t: "f" }, iron: { s: "diamond", c: "#8c9aa6", t: "Fe" },
      horses: { s: "diamond", c: "#a0703c", t: "H" }, wheat: { s: "diamond", c: "#e0c050", t: "W" },
      luxury: { s: "diamond", c: "#c45ab3", t: "L" }, resource: { s: "diamond", c: "#999", t: "R" },
      wonder: { s: "star", c: "#e67e22" },
    },
    edges: {
      river: { c: "#2f7fd0", w: 4 }, road: { c: "#8a6a3a", w: 3, dash: "5 3" }, wall: { c: "#333", w: 4 },
      border: { c: "#000", w: 2, dash: "3 3" },
    },
  },
  hex: { title: "Hex", ownerStyle: "fill",
    // the frame around the board: the edges each colour must join, labelled a, b, ... / 1, 2, ...
    terrain: { board: "#eadfc6", red_edge: "#e8a39b", blue_edge: "#9db7e3" },
    icons: { chain: { s: "star", c: "#f6d04d", p: 0 } } },
  smallworld: { title: "Small World",
    terrain: { farmland: "#d8c86a", hill: "#b39b63", mountain: "#857b72", swamp: "#5f6f4b", forest: "#3f7a3a",
      water: "#4f8fcf", sea: "#2f6fae", lake: "#5ba1d8" },
  },
  cityofgold: { title: "City of Gold",
    terrain: { jungle: "#3c8a3c", water: "#4f8fcf", village: "#c9a27a", rubble: "#7c7268", basecamp: "#ddd3b8",
      el_dorado: "#e8c547", finish: "#e8c547", start: "#cfa98a", mountain: "#6d6259", cave: "#6b625a" },
  },
  terranova: { title: "Terra Nova", ownerStyle: "border",
    terrain: { coast: "#80b9de", ocean: "#255d94", grassland_hill: "#6f9a48", plains_hill: "#a9a25f",
      desert_hill: "#c8b271", tundra_hill: "#8d9785", snow_hill: "#cfd6dc" },
    icons: Object.assign(
      iconGroup("diamond", "#c45ab3", ["dyes", "ivory", "silver", "jewelry", "gems", "wine", "marble", "tobacco",
        "whales", "olives", "truffles", "sugar", "citrus", "cotton", "salt", "gold", "incense", "coffee", "silk",
        "perfume", "glass", "spices", "amber", "chocolate", "furs", "porcelain", "tea", "pearls", "jade", "lapis",
        "obsidian", "coral", "copper"]),
      iconGroup("diamond", "#6f7f8c", ["iron", "horses", "coal", "oil", "aluminium", "uranium", "rubber"]),
      iconGroup("diamond", "#d9b84a", ["deer", "cow", "coconut", "wheat", "maize", "bison", "crabs", "sheep", "fish",
        "hardwood", "banana", "stone"]),
      iconGroup("square", "#a07a45", ["farm", "pasture", "mine", "fishing_boat", "plantation", "camp", "quarry",
        "lumber_mill", "fort", "trading_post"], 3),
      { forest: { s: "tri", c: "#2f6a2c", p: 4 }, jungle: { s: "tri", c: "#1f5a2a", p: 4 } },
      iconGroup("circle", "#7a9a9a", ["marsh", "oasis", "floodplains", "ice"], 4),
      { natural_wonder: { s: "star", c: "#e67e22", p: 2 }, road: { s: "square", c: "#8a6a3a", t: "r", p: 5 } },
    ),
  },
};

/** Icons of one kind: the same shape and colour, each with its initials, drawn in priority ``p``. */
function iconGroup(shape, colour, names, p = 2) {
  const out = {};
  for (const n of names) out[n] = { s: shape, c: colour, t: n.charAt(0).toUpperCase() + (n.charAt(1) || ""), p };
  return out;
}

const ROLE_COLOURS = {
  red: "#d64541", blue: "#2e6fd8", green: "#2ea043", yellow: "#e0b000", white: "#f4f4f4", black: "#333333",
  orange: "#e67e22", purple: "#8e44ad", pink: "#e05aa8", brown: "#8b5a2b", teal: "#16a085", grey: "#8a8a8a",
};
const PLAYER_PALETTE = ["#d64541", "#2e6fd8", "#2ea043", "#e0a800", "#8e44ad", "#e67e22", "#16a085", "#c2185b",
  "#795548", "#546e7a", "#7cb342", "#3949ab"];
