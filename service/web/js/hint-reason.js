// A bot's hint reason (English, from the service) told in the current language.

import { t } from "./i18n.js";

/** The basic bot's reasons (service/bots/policy.py), each with its message key. */
const BASIC = Object.freeze({
  "takes the trick with a coin, as cheaply as possible": "hint.takeWithCoin",
  "takes the coins on the table as cheaply as possible": "hint.takeCoins",
  "plays a coin that no unseen card can beat": "hint.sureCoin",
  "takes the coin led with a card no unseen card can beat": "hint.sureTake",
  "throws away its cheapest card that holds no coin": "hint.dump",
  "has only coins it cannot win with: throws the cheapest": "hint.dumpCoin",
  "takes a trick with no coins rather than give one away": "hint.takeEmpty",
  "leads its cheapest card that holds no coin": "hint.leadLow",
  "has only coins left: leads the cheapest": "hint.leadCoin",
});
/** The expert's reason (service/bots/expert.py). */
const EXPERT = /^best of (\d+) distinct cards? over (\d+) simulated deals? \(win chance ~(\d+)%\)$/;

/** @param {import("./types.js").Hint} hint */
export function hintReason(hint) {
  const key = BASIC[/** @type {keyof typeof BASIC} */ (hint.reason)];
  if (key) return t(key);
  const expert = EXPERT.exec(hint.reason);
  if (expert) return t("hint.expert", { count: Number(expert[1]), deals: Number(expert[2]), chance: Number(expert[3]) });
  return hint.reason;
}
