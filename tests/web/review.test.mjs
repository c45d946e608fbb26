// The review panel's choice of mistakes (service/web/js/review.js): each seat's largest losses against the
// master's choice, largest first (ties in play order), at most three; plays the master would have made are none.

import assert from "node:assert/strict";
import { test } from "node:test";

import { largestMistakes } from "../../service/web/js/review.js";

let seq = 0;
/** A reviewed play of `seat` that gave up `loss` expected points (0: the master's own card). */
const play = (seat, loss, { card = "3-cups", choice = loss > 0 ? "king-coins" : card } = {}) => {
  seq += 1;
  return { seq, hand_number: 1, trick_number: seq, seat, card, choice, loss, candidates: [] };
};

test("each seat's three largest mistakes, largest first, ties in play order", () => {
  const plays = [play(0, 0.5), play(0, 2.25), play(1, 0.1), play(0, 1.0), play(0, 1.0), play(0, 0.2), play(1, 0)];
  const [first, second, third] = largestMistakes({ plays });
  assert.deepEqual(first.map((item) => [item.loss, item.seq]), [[2.25, 2], [1.0, 4], [1.0, 5]]);
  assert.deepEqual(second.map((item) => item.loss), [0.1]);
  assert.deepEqual(third, []);
});

test("a play that matched the master's choice, was as good, or gave up less than +0.1 is no mistake", () => {
  const plays = [play(2, 0), play(2, 0, { card: "5-swords", choice: "ace-swords" }), play(2, 0.3, { card: "ace-swords", choice: "ace-swords" }), play(2, 0.04)];
  assert.deepEqual(largestMistakes({ plays }), [[], [], []]);
});

test("the limit is the caller's; the review is not changed", () => {
  const plays = [play(1, 1), play(1, 3), play(1, 2)];
  const before = structuredClone(plays);
  assert.deepEqual(largestMistakes({ plays }, 1)[1].map((item) => item.loss), [3]);
  assert.deepEqual(plays, before);
});
