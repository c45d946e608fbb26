// The table's public state drawn: status, seats with their roles, the trick, the last trick, scores, suit cycle.

import { SUITS, cardFace, suitIcon } from "./cards.js";
import { h } from "./dom.js";
import { cardName, suitName, t } from "./i18n.js";
import { seatKind, seatName } from "./names.js";

/** @typedef {import("./types.js").Game} Game */
/** @typedef {import("./types.js").Trick} Trick */

/** The dealer's right shuffles, the dealer's left cuts (seats run clockwise). @param {number} dealer */
export const rolesOf = (dealer) => ({ dealer, shuffler: (dealer + 2) % 3, cutter: (dealer + 1) % 3 });

/** One sentence: whose turn it is, to do what. @param {Game} game @param {number|null} mine */
export function statusText(game, mine) {
  const turnName = game.turn === null ? "" : seatName(game.seats[game.turn]);
  if (game.status === "waiting_for_deal") return game.turn === mine ? t("status.yourDeal") : t("status.waiting_for_deal", { name: turnName });
  if (game.status === "playing") return game.turn === mine ? t("status.yourTurn") : t("status.playing", { name: turnName });
  return t(`status.${game.status}`);
}

/** @param {Game} game @param {number|null} mine */
export function seatsView(game, mine) {
  const roles = game.dealer === null || game.status === "waiting_for_players" ? null : rolesOf(game.dealer);
  return h(
    "ul",
    { class: "seats" },
    game.seats.map((seat) => {
      const tags = [];
      if (roles?.dealer === seat.seat) tags.push(t("role.dealer"));
      if (roles?.shuffler === seat.seat) tags.push(t("role.shuffler"));
      if (roles?.cutter === seat.seat) tags.push(t("role.cutter"));
      const toAct = game.turn === seat.seat && game.status !== "finished";
      if (toAct) tags.push(`▶ ${t("role.turn")}`);
      return h(
        "li",
        { class: `seat-card${toAct ? " to-act" : ""}`, "data-seat": seat.seat, "aria-current": toAct ? "true" : null },
        h("div", { class: "seat-name" }, seatName(seat, mine)),
        seatKind(seat) && h("div", { class: "seat-kind" }, seatKind(seat)),
        h("div", {}, t("seat.score", { score: seat.score })),
        game.status === "playing" && h("div", {}, `${t("seat.cards", { count: seat.cards_in_hand })} · ${t("seat.tricks", { count: seat.tricks_won })}`),
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

/** @param {Game} game @param {number|null} mine */
export function scoresView(game, mine) {
  return h(
    "table",
    { class: "scoreboard" },
    h("caption", {}, t("table.target", { target: game.target_score })),
    h("tbody", {}, game.seats.map((seat) => h("tr", {}, h("th", { scope: "row" }, seatName(seat, mine)), h("td", { "data-score": seat.seat }, seat.score)))),
  );
}

/** The end of the game: who won, with how many points. @param {Game} game @param {number|null} mine */
export function winnerView(game, mine) {
  const seat = game.seats[game.winner ?? 0];
  return h("p", { class: "winner-banner", role: "status", id: "winner" }, t("table.winner", { name: seatName(seat, mine), score: seat.score }));
}
