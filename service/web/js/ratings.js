// Players' ratings as seats show them: each profile read once, and who to tell when one arrives.

import * as api from "./api.js";
import { t } from "./i18n.js";

/** @typedef {import("./types.js").Rating} Rating */

/** @type {Map<string, Rating|null>} null: asked, not (yet) known */
const known = new Map();
/** @type {Set<() => void>} */
const listeners = new Set();

/** A rating in words: its value, marked while provisional. @param {{value: number, provisional: boolean}} rating */
export const ratingText = (rating) => (rating.provisional ? t("rating.provisional", { value: rating.value }) : String(rating.value));

/**
 * The rating of player `id`, when it is known; else null, and it is read (once), after which
 * every listener is told. @param {string} id @returns {Rating|null}
 */
export function ratingOf(id) {
  if (!known.has(id)) {
    known.set(id, null);
    api
      .getPlayer(id)
      .then((player) => {
        known.set(id, player.rating);
        for (const listener of listeners) listener();
      })
      .catch(() => {}); // a seat without its rating still shows its name
  }
  return known.get(id) ?? null;
}

/** A rating's change with its sign: +69, −12, ±0. @param {number} delta */
export const signed = (delta) => (delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : "±0");

/** Forget what was read (a game ended: its ratings change). */
export const forgetRatings = () => known.clear();

/** Call `listener` when a rating arrives, until the returned function is called. @param {() => void} listener */
export function onRatings(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
