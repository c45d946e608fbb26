// Who wins a trick and why, by the rules' three cases (docs/rules.md), and the points it holds.

import { RANKS, SUITS, beats, parseCard } from "./cards.js";
import { suitName, suitOf, t } from "./i18n.js";

/** @typedef {import("./types.js").CardCode} CardCode */

/** The position in `cards` of the trick's winning card, by the rules' three cases. @param {CardCode[]} cards */
export function trickWinner(cards) {
  const suits = cards.map((card) => parseCard(card).suit);
  if (new Set(suits).size === 3) {
    const absent = SUITS.find((suit) => !suits.includes(suit)) ?? SUITS[0];
    return suits.indexOf(beats(absent)); // the absent suit's prey wins
  }
  const shared = suits.find((suit) => suits.filter((other) => other === suit).length > 1);
  const rank = (i) => RANKS.indexOf(parseCard(cards[i]).rank);
  return [0, 1, 2].filter((i) => suits[i] === shared).reduce((best, i) => (rank(i) < rank(best) ? i : best));
}

/** The coins cards of a trick. @param {CardCode[]} cards */
export const trickPoints = (cards) => cards.filter((card) => parseCard(card).suit === "coins").length;

/**
 * Why a complete trick's winner won, in words: "three suits: clubs smash cups",
 * "pair of cups: the higher wins", "all cups: the highest wins".
 * @param {CardCode[]} cards
 */
export function trickReason(cards) {
  const suits = cards.map((card) => parseCard(card).suit);
  const winner = suits[trickWinner(cards)];
  const distinct = new Set(suits).size;
  if (distinct === 3) return t("reason.threeSuits", { saying: t(`cycle.${winner}`) });
  if (distinct === 2) return t("reason.pair", { suitOf: suitOf(winner) });
  return t("reason.sameSuit", { suit: suitName(winner) });
}
