// How long a game has stood still: said once nobody has touched it for a day ("last move 3 days ago").

import { language, t } from "./i18n.js";

export const DAY_MS = 86_400_000;

/**
 * "last move 3 days ago" (in the page's language) for a game whose last change (`updated_at`) is a day old
 * or more; "" for a fresher one. @param {string} updatedAt @param {number} [now]
 */
export function idleText(updatedAt, now = Date.now()) {
  const idle = now - Date.parse(updatedAt);
  if (!(idle >= DAY_MS)) return "";
  const ago = new Intl.RelativeTimeFormat(language(), { numeric: "auto" }).format(-Math.floor(idle / DAY_MS), "day");
  return t("game.idle", { ago });
}

/** A game not touched for a day or more. @param {{updated_at: string}} game @param {number} [now] */
export const isIdle = (game, now = Date.now()) => now - Date.parse(game.updated_at) >= DAY_MS;
