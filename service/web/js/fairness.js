// The fair-deal check of a finished hand: the revealed seed against its commitment, and the deal recomputed.

import { listActions } from "./api.js";
import { commitment, dealHands, fromHex } from "./deal.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {{hand: number, state: "checking"|"verified"|"failed", reason?: string}} Check */

const sameCards = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/**
 * Check hand `hand` of a game from the public record (listActions): the seed (from the
 * `hand_ended` event, else the deal's action) must hash to the deal's commitment; the deal
 * recomputed from it must give `dealt` (this browser's 16 cards, when known) to `seat`, and
 * every card played in the hand must come from its player's recomputed hand.
 * @param {{gameId: string, hand: number, seat: number|null, dealt: string[]|null, seed?: string|null}} input
 * @returns {Promise<Check>}
 */
export async function checkHand({ gameId, hand, seat, dealt, seed }) {
  const actions = (await listActions(gameId)).filter((action) => action.hand_number === hand);
  const deal = actions.find((action) => action.kind === "deal");
  const revealed = seed ?? deal?.seed;
  if (!deal || !revealed || !deal.commitment) return { hand, state: "failed", reason: "missing" };
  const seedBytes = fromHex(revealed);
  if ((await commitment(seedBytes)) !== deal.commitment) return { hand, state: "failed", reason: "commitment" };
  const hands = await dealHands(seedBytes, deal.seat);
  if (seat !== null && dealt && !sameCards(dealt, hands[seat])) return { hand, state: "failed", reason: "cards" };
  const plays = actions.filter((action) => action.kind === "play");
  if (!plays.every((play) => play.card !== null && hands[play.seat].includes(play.card))) return { hand, state: "failed", reason: "plays" };
  return { hand, state: "verified" };
}

/**
 * The fair-deal panel: the current hand's commitment while it is played, and the result of
 * every hand checked so far (a loud warning for any that failed).
 * @param {string|null} current the commitment of the hand being played
 * @param {Check[]} checks
 */
export function fairnessView(current, checks) {
  if (!current && !checks.length) return null; // nothing to show yet: no empty heading
  return h(
    "section",
    { class: "panel fair-deal", "aria-labelledby": "fair-title" },
    h("h2", { id: "fair-title" }, t("fair.title")),
    current && h("p", { id: "commitment" }, t("fair.commitment", { commitment: "" }), h("code", {}, current)),
    checks.map((check) => {
      if (check.state === "checking") return h("p", { "data-check": check.hand }, t("fair.checking", { n: check.hand }));
      if (check.state === "verified") return h("p", { class: "verified", "data-check": check.hand, "data-verified": "true" }, t("fair.verified", { n: check.hand }));
      const reason = t(`fair.reason.${check.reason}`);
      return h("p", { class: "warning", role: "alert", "data-check": check.hand, "data-verified": "false" }, t("fair.failed", { n: check.hand, reason }));
    }),
  );
}
