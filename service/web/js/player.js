// The player this browser is signed in as: created by name, or signed in with a key pasted from another device; their seats.

import * as api from "./api.js";
import { forgetNotify } from "./notify.js";
import { endSearch } from "./quick-play.js";
import { forgetPlayer, loadPlayer, savePlayer, saveTicket } from "./store.js";

/** @typedef {import("./types.js").Player} Player */
/** @typedef {import("./types.js").Game} Game */

/** A new player by that name; their key (shown once by the service) is kept in this browser. @param {string} name */
export async function createPlayer(name) {
  const created = await api.createPlayer(name);
  savePlayer(created);
  return created;
}

/** Sign in with a key copied from another device: the key's player, kept in this browser. @param {string} key */
export async function signIn(key) {
  const player = await api.getMe(key.trim());
  savePlayer({ id: player.id, key: key.trim() });
  return player;
}

/** A new key for the signed-in player (the old one stops everywhere at once), kept in this browser. */
export async function replaceKey() {
  const held = loadPlayer();
  if (!held) throw new Error("not signed in");
  const replaced = await api.replaceKey(held.key);
  endSearch(); // it waited with the old key
  savePlayer(replaced);
  return replaced;
}

/** Forget the key in this browser (the player goes on: another device with the key still signs in), and the push
 *  subscription this browser made for them. */
export function signOut() {
  const held = loadPlayer();
  if (held) forgetNotify(held.key, held.id);
  forgetPlayer();
  endSearch();
  saveTicket(null);
}

/**
 * The seat the signed-in player holds in the game, to act with their key (a seat taken for a
 * player has no token); none when they hold none, or left it to a bot.
 * @param {Game} game
 * @returns {import("./types.js").Credential|null}
 */
export function playerSeat(game) {
  const held = loadPlayer();
  const seat = held ? game.seats.find((item) => item.player === held.id && !item.bot) : undefined;
  return held && seat ? { seat: seat.seat, token: held.key } : null;
}
