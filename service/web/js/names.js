// How seats are named on screen: the player's name, or what sits there, and "you" for this browser's seat; a player's rating.

import { t } from "./i18n.js";
import { ratingOf, ratingText, signed } from "./ratings.js";

/** @typedef {import("./types.js").Seat} Seat */

/**
 * @param {Seat} seat
 * @param {number|null} [mine] this browser's seat in the game
 */
export function seatName(seat, mine = null) {
  const name = botName(seat) ?? seat.name ?? (seat.open ? t("seat.open") : t("seat.number", { n: seat.seat + 1 }));
  return seat.seat === mine ? `${name} (${t("seat.you")})` : name;
}

/** The service's own names of bots ("Expert bot", "Expert bot B"), in English: said in the current language. */
const BOT_NAME = /^(Random|Basic|Expert) bot(?: ([ABC]))?$/;

/** A bot seat's name in the current language, when the service named it (a name given at creation stays). @param {Seat} seat */
function botName(seat) {
  const match = seat.bot && seat.name ? BOT_NAME.exec(seat.name) : null;
  if (!match || match[1].toLowerCase() !== seat.bot) return null;
  const name = t("seat.botName", { strength: t(`strength.${seat.bot}`), letter: match[2] ?? "" }).trim();
  return name.charAt(0).toLocaleUpperCase() + name.slice(1);
}

/**
 * A seat's rating in words (else ""). A rated game's seats carry their players' ratings as the game
 * began (bots' too) and, once the result is applied, the change: "Rating 1500 → 1517 (+17)". Another
 * game's person's player seat shows the player's rating now, once read; a bot's seat, one left to a
 * bot, and an anonymous seat show none. @param {Seat} seat
 */
export function seatRating(seat) {
  const change = seat.rating_change;
  if (change) return t("seat.ratingChange", { before: change.before, after: change.after, delta: signed(change.after - change.before) });
  if (seat.rating) return t("seat.rating", { rating: ratingText(seat.rating) });
  const rating = seat.player && !seat.bot ? ratingOf(seat.player) : null;
  return rating ? t("seat.rating", { rating: ratingText(rating) }) : "";
}

/**
 * A seat's rating in few words, for a phone's narrow seat line: the change, "1517 (+17)", or the rating, "1500
 * (prov.)" (the whole line in `seatRating`); "" when the seat shows none. @param {Seat} seat
 */
export function seatRatingShort(seat) {
  const change = seat.rating_change;
  if (change) return t("seat.ratingShort", { after: change.after, delta: signed(change.after - change.before) });
  const rating = seat.rating ?? (seat.player && !seat.bot ? ratingOf(seat.player) : null);
  if (!rating) return "";
  return rating.provisional ? t("rating.provisionalShort", { value: rating.value }) : String(rating.value);
}

/**
 * What sits in a seat, besides its name: a bot of some strength (an open seat's name says it is open), a seat
 * invited to while the game waits. @param {Seat} seat @param {string} [status] the game's
 */
export function seatKind(seat, status = "waiting_for_players") {
  if (seat.open) return seat.name ? t("seat.open") : ""; // unnamed, it is called "open seat" already
  if (seat.reserved_for && !seat.player) return status === "waiting_for_players" ? t("seat.reserved") : ""; // a challenge's: waits for them, until it is cancelled
  if (seat.bot && botName(seat)) return ""; // "Basic bot" says it already
  return seat.bot ? t("seat.bot", { strength: t(`strength.${seat.bot}`) }) : "";
}
