// The 48-card Spanish deck: card codes, suits in cycle order, ranks, and cards drawn as SVG.

/** @typedef {import("./types.js").CardCode} CardCode */

/** Suits in cycle order: each beats the next, and clubs beat cups. */
export const SUITS = Object.freeze(["cups", "coins", "swords", "clubs"]);
/** Ranks from highest to lowest. */
export const RANKS = Object.freeze(["ace", "king", "knight", "knave", "9", "8", "7", "6", "5", "4", "3", "2"]);
/** The canonical deck: cups, coins, swords, clubs, each from ace down to 2. */
export const DECK = Object.freeze(SUITS.flatMap((suit) => RANKS.map((rank) => `${rank}-${suit}`)));

/** The corner index of a rank; the face cards use the Spanish letters (Rey, Caballo, Sota). */
const RANK_INDEX = Object.freeze({ ace: "1", king: "12", knight: "11", knave: "10" });

/**
 * @param {CardCode} code
 * @returns {{rank: string, suit: string}}
 */
export function parseCard(code) {
  const at = code.lastIndexOf("-");
  return { rank: code.slice(0, at), suit: code.slice(at + 1) };
}

/** The suit that `suit` beats (cups hold coins, coins buy swords, swords cut clubs, clubs smash cups). */
export function beats(suit) {
  return SUITS[(SUITS.indexOf(suit) + 1) % SUITS.length];
}

const SVG = "http://www.w3.org/2000/svg";

/** @param {string} tag @param {Record<string, string|number>} attrs */
function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

/** The drawing of one suit's pip, centred on (0, 0), about 20 units across. */
function pip(suit) {
  const group = svg("g", { class: `pip pip-${suit}` });
  if (suit === "coins") {
    group.append(svg("circle", { r: 10 }), svg("circle", { r: 5.5, class: "pip-inner" }));
  } else if (suit === "cups") {
    group.append(svg("path", { d: "M-9,-9 H9 Q9,3 2,4 V8 H6 V10 H-6 V8 H-2 V4 Q-9,3 -9,-9 Z" }));
  } else if (suit === "swords") {
    group.append(
      svg("path", { d: "M-1.5,-11 L0,-13 L1.5,-11 V5 H-1.5 Z" }),
      svg("rect", { x: -6, y: 5, width: 12, height: 2.5 }),
      svg("rect", { x: -1.5, y: 7.5, width: 3, height: 5 }),
    );
  } else {
    group.append(svg("path", { d: "M-3,12 L-4.5,-6 Q-5,-12 0,-12 Q5,-12 4.5,-6 L3,12 Z" }));
  }
  return group;
}

/** Where the pips go on a 60×90 card, by how many there are (ace and face cards: one large pip). */
const PIP_LAYOUTS = Object.freeze({
  1: [[30, 45]],
  2: [[30, 25], [30, 65]],
  3: [[30, 22], [30, 45], [30, 68]],
  4: [[18, 25], [42, 25], [18, 65], [42, 65]],
  5: [[18, 25], [42, 25], [30, 45], [18, 65], [42, 65]],
  6: [[18, 22], [42, 22], [18, 45], [42, 45], [18, 68], [42, 68]],
  7: [[18, 22], [42, 22], [30, 33], [18, 45], [42, 45], [18, 68], [42, 68]],
  8: [[18, 20], [42, 20], [18, 37], [42, 37], [18, 53], [42, 53], [18, 70], [42, 70]],
  9: [[18, 20], [42, 20], [18, 37], [42, 37], [30, 45], [18, 53], [42, 53], [18, 70], [42, 70]],
});

/**
 * The figure of a face card, so that 10, 11 and 12 differ at a glance: the sota (knave) stands
 * bare-headed holding the suit's sign, the caballo (knight) rides a horse, the rey (king) wears
 * a crown. Simple shapes in the suit's colour inside the court frame.
 * @param {string} rank @param {string} suit
 */
function figure(rank, suit) {
  const group = svg("g", { class: `figure figure-${rank}` });
  group.append(svg("rect", { x: 11, y: 18, width: 38, height: 54, rx: 3, class: "card-court-frame" }));
  if (rank === "knight") {
    // The horse: body, neck and head, four legs; the rider above it.
    group.append(
      svg("path", { class: "figure-fill", d: "M16,52 Q18,44 28,44 L38,44 Q41,38 40,33 L45,30 L46,35 L43,38 Q44,46 40,52 Z" }),
      svg("path", { class: "figure-line", d: "M19,52 V64 M24,52 V64 M35,52 V64 M40,52 V64" }),
      svg("circle", { class: "figure-fill", cx: 28, cy: 27, r: 4 }),
      svg("path", { class: "figure-fill", d: "M24,32 H32 L33,44 H23 Z" }),
    );
  } else {
    // A standing figure: head, robe and arms; the king's crown, the knave's cap.
    group.append(
      svg("circle", { class: "figure-fill", cx: 30, cy: 30, r: 5 }),
      svg("path", { class: "figure-fill", d: "M22,68 L25,38 H35 L38,68 Z" }),
      svg("path", { class: "figure-line", d: "M25,42 L18,52 M35,42 L42,50" }),
    );
    if (rank === "king") group.append(svg("path", { class: "figure-crown", d: "M24,24 L24,18 L27,21 L30,16 L33,21 L36,18 L36,24 Z" }));
    else group.append(svg("path", { class: "figure-fill", d: "M25,26 Q30,19 36,25 Z" }));
  }
  const sign = pip(suit);
  sign.setAttribute("transform", rank === "knight" ? "translate(40 26) scale(0.45)" : "translate(42 50) scale(0.5)");
  group.append(sign);
  return group;
}

/**
 * A suit's symbol as a small SVG, to stand beside the suit's name (never colour alone).
 * @param {string} suit
 */
export function suitIcon(suit) {
  const icon = svg("svg", { viewBox: "-13 -13 26 26", class: `suit-icon suit-${suit}`, "aria-hidden": "true", focusable: "false" });
  icon.append(pip(suit));
  return icon;
}

/**
 * The face of a card as an SVG image, for a person to recognise: the suit's pips, the
 * rank's index in two corners. It is decorative: the element that holds it carries the name.
 * @param {CardCode} code
 */
export function cardFace(code) {
  const { rank, suit } = parseCard(code);
  const face = svg("svg", { viewBox: "0 0 60 90", class: `card-face suit-${suit}`, "aria-hidden": "true", focusable: "false" });
  face.append(svg("rect", { x: 1, y: 1, width: 58, height: 88, rx: 5, class: "card-paper" }));
  const index = RANK_INDEX[rank] ?? rank;
  for (const [x, y, rotate] of [[7, 14, 0], [53, 76, 180]]) {
    const text = svg("text", { x, y, class: "card-index", transform: `rotate(${rotate} ${x} ${y - 4})` });
    text.textContent = index;
    face.append(text);
  }
  if (rank === "king" || rank === "knight" || rank === "knave") {
    face.append(figure(rank, suit));
    return face;
  }
  const count = Number(rank) || 1;
  const scale = count === 1 ? 1.8 : count >= 7 ? 0.62 : 0.8;
  for (const [x, y] of PIP_LAYOUTS[count]) {
    const placed = pip(suit);
    placed.setAttribute("transform", `translate(${x} ${y}) scale(${scale})`);
    face.append(placed);
  }
  return face;
}
