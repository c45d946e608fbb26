// How seats are named on screen: the player's name, or what sits there, and "you" for this browser's seat.

import { t } from "./i18n.js";

/** @typedef {import("./types.js").Seat} Seat */

/**
 * @param {Seat} seat
 * @param {number|null} [mine] this browser's seat in the game
 */
export function seatName(seat, mine = null) {
  const name = seat.name ?? (seat.open ? t("seat.open") : t("seat.number", { n: seat.seat + 1 }));
  return seat.seat === mine ? `${name} (${t("seat.you")})` : name;
}

/** What sits in a seat, besides its name: a bot of some strength, or nobody yet. @param {Seat} seat */
export function seatKind(seat) {
  if (seat.open) return t("seat.open");
  return seat.bot ? t("seat.bot", { strength: t(`strength.${seat.bot}`) }) : "";
}
