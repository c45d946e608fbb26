// Lines that said the wrong thing: the first hand announced as "the next hand", a review's loss written as a gain;
// a line that was missing: how the first dealer was chosen (the rules say the server tells a random draw), first in the log.

import assert from "node:assert/strict";
import { test } from "node:test";

import { mistakeText } from "../../service/web/js/review.js";
import { statusText } from "../../service/web/js/table-view.js";
import { firstDealerLine } from "../../service/web/js/table.js";
import { trickReason } from "../../service/web/js/trick.js";
import { setLanguage } from "../../service/web/js/i18n.js";

const seat = (n, name) => ({ seat: n, name, bot: null, player: null, open: false, score: 0, cards_in_hand: 0, tricks_won: 0, rating: null, rating_change: null, reserved_for: null });
const game = (hand_number, auto_deal = false) => ({ status: "waiting_for_deal", turn: 1, hand_number, auto_deal, seats: [seat(0, "Ana"), seat(1, "Bo"), seat(2, "Cy")] });

test("the first hand is announced as the first, later ones as the next", () => {
  assert.equal(statusText(game(0), 0), "Bo deals the first hand.");
  assert.equal(statusText(game(1), 0), "Bo deals the next hand.");
  assert.equal(statusText(game(0, true), 0), "The server deals the first hand.");
  assert.equal(statusText(game(2, true), 0), "The hand is over: the server deals the next one.");
});

test("the log says first how the first dealer was chosen", () => {
  const name = (n) => ["Ana", "Bo", "Cy"][n];
  const chosen = (how, first_dealer = 1) => ({ ...game(0), first_dealer, first_dealer_chosen_by: how });
  assert.deepEqual(firstDealerLine(chosen("drawn"), name), ["Bo deals first, drawn at random."]);
  assert.deepEqual(firstDealerLine(chosen("oldest", 2), name), ["Cy deals first, as the oldest player."]);
  assert.deepEqual(firstDealerLine(chosen("named", 0), name), ["Ana deals first, named by the game’s creator."]);
  assert.deepEqual(firstDealerLine(chosen("by-lot"), name), [], "a way this client does not know is not said");
  assert.deepEqual(firstDealerLine(chosen(null, null), name), [], "before the game starts");
});

test("a mistake reads as points given up against the master's card, not as a gain", () => {
  const text = mistakeText({ hand_number: 2, trick_number: 5, card: "3C", choice: "12O", loss: 2.4 }, null);
  assert.match(text, /: 2\.4 points fewer expected$/, text);
  assert.doesNotMatch(text, /\+/);
});

test("a pair's reason names its suit as the cards do: elided, in lower case in French", () => {
  const stored = new Map();
  globalThis.localStorage ??= { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => stored.set(key, value) };
  globalThis.document ??= { documentElement: {} };
  const pairOfSwords = ["1-clubs", "3-swords", "12-swords"];
  const expected = { en: "pair of swords: the higher wins", es: "pareja de espadas: gana la más alta", fr: "paire d’épées : la plus haute gagne", nl: "paar Zwaarden: de hoogste wint", uk: "пара (Мечі): виграє старша", "zh-Hant": "一對寶劍：較大者勝" };
  try {
    for (const [code, text] of Object.entries(expected)) {
      setLanguage(code);
      assert.equal(trickReason(pairOfSwords), text, code);
    }
    setLanguage("fr");
    assert.equal(trickReason(["3-coins", "5-coins", "12-coins"]), "toutes en pièces : la plus haute gagne");
  } finally {
    setLanguage("en");
  }
});
