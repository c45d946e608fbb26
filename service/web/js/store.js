// What this browser remembers: each game's seat token (localStorage), the cards dealt to it, the player signed in and their ticket.

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

const PLAYER_KEY = "coins.player";
/** @typedef {{id: string, key: string}} SignedIn the player this browser is signed in as, and their key */
/** @returns {SignedIn|null} */
export const loadPlayer = () => {
  const value = read(PLAYER_KEY);
  return value && typeof value.id === "string" && typeof value.key === "string" ? value : null;
};
/** @param {SignedIn} player */
export const savePlayer = (player) => localStorage.setItem(PLAYER_KEY, JSON.stringify({ id: player.id, key: player.key }));
export const forgetPlayer = () => localStorage.removeItem(PLAYER_KEY);

const TICKET_KEY = "coins.ticket";
/** The quick-play ticket this browser waits on, so a return to the lobby goes on waiting. @returns {string|null} */
export const loadTicket = () => localStorage.getItem(TICKET_KEY);
/** @param {string|null} id */
export const saveTicket = (id) => (id ? localStorage.setItem(TICKET_KEY, id) : localStorage.removeItem(TICKET_KEY));
