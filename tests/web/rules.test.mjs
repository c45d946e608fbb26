// The rules page (service/web/js/rules.js) holds the whole rule sheet, as docs/rules.md states it: every
// section's keys exist in every language, and the English text states every rule.

import assert from "node:assert/strict";
import { test } from "node:test";

import { SECTIONS } from "../../service/web/js/rules.js";
import en from "../../service/web/js/messages/en.js";

const LANGUAGES = ["en", "es", "nl", "zh-Hant", "fr", "uk"];
const keys = ["rules.title", "rules.intro", "rules.source", ...SECTIONS.flatMap((section) => [section.title, ...section.parts.flatMap(([, ...named]) => named)])];
const english = keys.map((key) => en[key]).join("\n");

test("every key of the rules page exists, non-empty, in every language", async () => {
  for (const code of LANGUAGES) {
    const { default: messages } = await import(`../../service/web/js/messages/${code}.js`);
    const missing = keys.filter((key) => typeof messages[key] !== "string" || !messages[key].trim());
    assert.deepEqual(missing, [], code);
  }
});

// One line of the sheet each: the page must say it (in English words; the other languages translate the same keys).
const RULES = {
  "the deck": /48-card Spanish deck/,
  "the suits": /cups, coins, swords and clubs/,
  "the ranks": /ace, king \(rey, 12\), knight \(caballo, 11\), knave \(sota, 10\), 9, 8, 7, 6, 5, 4, 3, 2/,
  "the cycle": /cups hold coins[^]*coins buy swords[^]*swords cut clubs[^]*clubs smash cups[^]*cycle/,
  "the first dealer": /oldest player deals the first hand/,
  "later dealers": /right of the winner of the previous hand's last trick deals/,
  "shuffle and cut": /dealer's right shuffles[^]*dealer's left cuts/,
  "the deal": /face down, one card at a time, clockwise, starting with the player on the dealer's left: sixteen cards each/,
  "the lead and the order": /dealer's left leads the first trick[^]*player on their left[^]*finally the third player \(the dealer\)/,
  "no duty to follow suit": /no duty to follow suit/,
  "the winner collects and leads": /collects its three cards, places them face down on their stack of tricks, and leads the next trick/,
  "sixteen tricks a hand": /A hand ends after sixteen tricks/,
  "three suits": /Three different suits[^]*suit A beats suit B, and suit B beats suit C[^]*suit A wins the trick/,
  "a pair": /two cards of the same suit and a third of a different suit[^]*higher-ranked of the two same-suit cards wins[^]*odd card never wins/,
  "three of one suit": /all three cards are of the same suit[^]*highest-ranked card wins/,
  "order does not matter": /order in which the cards were played never changes the winner/,
  "the worked examples": /2 of cups, ace of coins, ace of swords[^]*3 of clubs takes the trick[^]*king of cups takes the trick[^]*knave of coins takes the trick/,
  "points": /Each card of the coins suit is worth one point[^]*12 points in all/,
  "the target": /agree on a target score, such as 10, 15 or 20 points[^]*carry over/,
  "the end": /reaches the target score \(or passes it\), that player wins and the game ends, even in the middle of a hand/,
  "the author": /Mark Steere[^]*keep its name and rules/,
};

for (const [rule, pattern] of Object.entries(RULES)) {
  test(`the rules page states ${rule}`, () => assert.match(english, pattern));
}
