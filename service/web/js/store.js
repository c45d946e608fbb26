// What this browser remembers: each game's seat token (localStorage) and the cards dealt to it.

const SEAT_KEY = (gameId) => `coins.seat.${gameId}`;
const DEALT_KEY = (gameId, handNumber) => `coins.dealt.${gameId}.${handNumber}`;

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key) ?? "null");
  } catch {
    return null;
  }
}

/** @typedef {import("./types.js").Credential} Credential */

/** @returns {Credential|null} the seat this browser holds in the game */
export const loadSeat = (gameId) => read(SEAT_KEY(gameId));
/** @param {string} gameId @param {Credential} credential */
export const saveSeat = (gameId, credential) => localStorage.setItem(SEAT_KEY(gameId), JSON.stringify(credential));
export const forgetSeat = (gameId) => localStorage.removeItem(SEAT_KEY(gameId));

/** The ids of the games this browser holds a seat in. @returns {string[]} */
export function listSeats() {
  const prefix = SEAT_KEY("");
  return Object.keys(localStorage)
    .filter((key) => key.startsWith(prefix))
    .map((key) => key.slice(prefix.length));
}

/** The 16 cards dealt to this browser's seat in a hand, kept for the fair-deal check after a reload. */
export const loadDealt = (gameId, handNumber) => read(DEALT_KEY(gameId, handNumber));
export function saveDealt(gameId, handNumber, cards) {
  if (!loadDealt(gameId, handNumber)) localStorage.setItem(DEALT_KEY(gameId, handNumber), JSON.stringify(cards));
}

const NAME_KEY = "coins.name";
/** The name this browser last played under, to fill in the next form. */
export const loadName = () => localStorage.getItem(NAME_KEY) ?? "";
/** @param {string} name */
export const saveName = (name) => localStorage.setItem(NAME_KEY, name);
