// The table's public state drawn: status, seats with their roles, the trick, the last trick, scores, suit cycle.

import { SUITS, cardFace, suitIcon } from "./cards.js";
import { h } from "./dom.js";
import { cardName, formatDate, suitName, t } from "./i18n.js";
import { seatKind, seatName, seatRating, seatRatingShort } from "./names.js";
import { trickReason } from "./trick.js";

/** @typedef {import("./types.js").Game} Game */
/** @typedef {import("./types.js").Trick} Trick */

/** The dealer's right shuffles, the dealer's left cuts (seats run clockwise). @param {number} dealer */
export const rolesOf = (dealer) => ({ dealer, shuffler: (dealer + 2) % 3, cutter: (dealer + 1) % 3 });

/** One sentence: whose turn it is, to do what. @param {Game} game @param {number|null} mine */
export function statusText(game, mine) {
  const turnName = game.turn === null ? "" : seatName(game.seats[game.turn]);
  const first = game.hand_number === 0; // no hand dealt yet: the first, not "the next"
  if (game.status === "waiting_for_deal" && game.auto_deal) return t(first ? "status.autoDealFirst" : "status.autoDeal"); // the server deals: nobody presses Deal
  if (game.status === "waiting_for_deal") return game.turn === mine ? t("status.yourDeal") : t(first ? "status.firstDeal" : "status.waiting_for_deal", { name: turnName });
  if (game.status === "playing") return game.turn === mine ? t("status.yourTurn") : t("status.playing", { name: turnName });
  const invited = game.seats.find((seat) => seat.reserved_for && !seat.player);
  if (game.status === "waiting_for_players" && invited && !game.seats.some((seat) => seat.open)) {
    const name = seatName(invited);
    return game.expires_at ? t("status.waitingForInvitedUntil", { name, date: formatDate(Date.parse(game.expires_at)) }) : t("status.waitingForInvited", { name });
  }
  return t(`status.${game.status}`);
}

/** @param {Game} game @param {number|null} mine */
export function seatsView(game, mine) {
  const roles = game.dealer === null || game.status === "waiting_for_players" ? null : rolesOf(game.dealer);
  return h(
    "ul",
    { class: "seats" },
    game.seats.map((seat) => {
      const toAct = game.turn === seat.seat && game.status !== "finished";
      const tags = toAct ? [`▶ ${t("role.turn")}`] : []; // first: whatever else is cut, the turn is seen
      if (roles?.dealer === seat.seat) tags.push(t("role.dealer"));
      if (roles?.shuffler === seat.seat) tags.push(t("role.shuffler"));
      if (roles?.cutter === seat.seat) tags.push(t("role.cutter"));
      return h(
        "li",
        { class: `seat-card${toAct ? " to-act" : ""}`, "data-seat": seat.seat, "aria-current": toAct ? "true" : null },
        // A long name is cut, never "(you)" after it: the name alone takes the ellipsis.
        h(
          "div",
          { class: "seat-name", title: seatName(seat, mine) },
          h("span", { class: "seat-given" }, seatName(seat)),
          seat.seat === mine && h("span", { class: "seat-you" }, `(${t("seat.you")})`),
          seatKind(seat, game.status) && h("span", { class: "seat-kind" }, `· ${seatKind(seat, game.status)}`),
        ),
        // Every line is there from the start (empty or not) and none wraps: a seat's card keeps its height all game.
        h(
          "div",
          { class: "seat-rating", "data-player": seat.player, "data-rating-change": seat.rating_change ? seat.rating_change.after - seat.rating_change.before : null, title: seatRating(seat) || null },
          // A phone's seat line is narrow: it shows the change in few words, so that it is never cut off.
          seatRatingShort(seat) ? [h("span", { class: "rating-long" }, seatRating(seat)), h("span", { class: "rating-short" }, seatRatingShort(seat))] : seatRating(seat) || "\u00a0",
        ),
        h(
          "div",
          { class: "seat-count" },
          // Each count whole: on a phone the line wraps between them.
          [t("count.points", { count: seat.score }), ...(game.status === "playing" ? [t("count.cards", { count: seat.cards_in_hand }), t("count.tricks", { count: seat.tricks_won })] : [])].map((count, index) => [index > 0 && " · ", h("span", { class: "count" }, count)]),
        ),
        h("div", { class: "seat-roles" }, tags.map((tag) => h("span", { class: "role" }, tag))),
      );
    }),
  );
}

/**
 * The cards of a trick, each with who played it; the winner's is marked in words too.
 * @param {Game} game @param {Trick|null} trick @param {number|null} mine @param {string} className
 */
export function trickView(game, trick, mine, className) {
  const plays = trick?.plays ?? [];
  if (!plays.length) return h("p", { class: className }, t("table.trickEmpty"));
  return h(
    "div",
    { class: `trick ${className}` },
    plays.map((play) => {
      const won = trick?.winner === play.seat;
      return h(
        "figure",
        { class: `played${won ? " winner" : ""}`, "data-card": play.card, "data-seat": play.seat },
        cardFace(play.card),
        h("figcaption", {}, h("span", { class: "visually-hidden" }, `${cardName(play.card)}: `), seatName(game.seats[play.seat], mine), won ? " ★" : ""),
      );
    }),
  );
}

/**
 * The trick on the table, each card in front of who played it (one slot per seat, under the
 * seat's column); a completed trick marks its winner.
 * @param {Game} game @param {Trick|null} trick @param {number|null} mine @param {boolean} complete
 */
export function trickSlots(game, trick, mine, complete) {
  const plays = trick?.plays ?? [];
  return h(
    "ol",
    { class: `trick-slots current-trick${complete ? " complete" : ""}`, "aria-label": t("table.trick") },
    game.seats.map((seat) => {
      const play = plays.find((item) => item.seat === seat.seat);
      const order = plays.findIndex((item) => item.seat === seat.seat);
      const won = complete && trick?.winner === seat.seat;
      if (!play) return h("li", { class: "slot empty", "data-seat": seat.seat }, h("span", { class: "visually-hidden" }, `${seatName(seat, mine)}: ${t("table.trickEmpty")}`));
      return h(
        "li",
        { class: `slot played${won ? " winner" : ""}${order === 0 ? " lead" : ""}`, "data-card": play.card, "data-seat": play.seat },
        cardFace(play.card),
        h("span", { class: "slot-caption" }, h("span", { class: "visually-hidden" }, `${seatName(seat, mine)}: `), cardName(play.card), won ? " ★" : ""),
      );
    }),
  );
}

/** Who won the completed trick on the table, for how many points, and why. @param {Game} game @param {Trick} trick @param {number|null} mine */
export function heldTrickLine(game, trick, mine) {
  const winner = trick.winner ?? 0;
  const reason = trickReason(trick.plays.map((play) => play.card));
  const points = t("count.points", { count: trick.points ?? 0 });
  return h("p", { class: "trick-line", id: "trick-reason", role: "status" }, t("table.trickWonBy", { name: seatName(game.seats[winner], mine), points, reason }));
}

/** The suit cycle, with each suit's symbol and name: cups > coins > swords > clubs > cups. */
export function cycleView() {
  const chain = h("ol", { class: "cycle", "aria-label": t("cycle.label") });
  for (const suit of [...SUITS, SUITS[0]]) {
    if (chain.childElementCount) chain.append(h("li", { "aria-hidden": "true" }, "›"));
    chain.append(h("li", {}, suitIcon(suit), suitName(suit)));
  }
  const sayings = SUITS.map((suit) => t(`cycle.${suit}`)).join(" · ");
  return h("div", { class: "cycle-help" }, h("p", { class: "visually-hidden" }, t("cycle.label")), chain, h("p", { class: "cycle-sayings" }, sayings));
}

/** The end of the game: who won, with how many points. @param {Game} game @param {number|null} mine */
export function winnerView(game, mine) {
  const seat = game.seats[game.winner ?? 0];
  return h("p", { class: "winner-banner", role: "status", id: "winner" }, t("table.winner", { name: seatName(seat, mine), points: t("count.points", { count: seat.score }) }));
}

/** A finished rated game's players whose rating change has not shown yet (applied within a second). @param {Game} game */
export const ratingsPending = (game) =>
  game.status === "finished" && game.rated && !game.void && game.seats.some((seat) => seat.player !== null && seat.rating_change === null);

/**
 * What a finished game's ratings came to: a void game says why nobody's changed; a rated one says while its
 * changes are still being applied, then lists them (each seat shows its own beside its name too).
 * @param {Game} game @param {number|null} mine
 */
export function ratingNote(game, mine) {
  if (game.void) return h("p", { class: "rating-note", id: "void-note" }, t("table.void"));
  if (ratingsPending(game)) return h("p", { class: "rating-note", id: "ratings-pending" }, t("table.ratingsPending"));
  const changed = game.seats.filter((seat) => seat.rating_change !== null);
  return changed.length ? h("ul", { class: "rating-changes", id: "rating-changes" }, changed.map((seat) => h("li", {}, `${seatName(seat, mine)} · ${seatRating(seat)}`))) : null;
}
