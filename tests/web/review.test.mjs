// The review panel's choice of mistakes (service/web/js/review.js): each seat's largest losses against the
// master's choice, largest first (ties in play order), at most three; plays the master would have made are none.
// And getReview (service/web/js/api.js): a 202 is an answer to wait on, not an error.

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

test("getReview answers a 202 (with Retry-After) and a 200 as results, a 409 as a problem", async (context) => {
  const answers = [
    new Response(JSON.stringify({ game_id: "g", reviewed: 4, total: 96 }), { status: 202, headers: { "Retry-After": "7" } }),
    new Response(JSON.stringify({ game_id: "g", strength: "master", plays: [] }), { status: 200 }),
    new Response(JSON.stringify({ code: "review_needs_a_person", detail: "bots alone" }), { status: 409 }),
  ];
  const paths = [];
  context.mock.method(globalThis, "fetch", async (path) => (paths.push(path), answers.shift()));
  const { ApiProblem, getReview } = await import("../../service/web/js/api.js");
  assert.deepEqual(await getReview("g 1"), { status: 202, body: { game_id: "g", reviewed: 4, total: 96 }, retryAfter: 7 });
  assert.deepEqual(await getReview("g 1"), { status: 200, body: { game_id: "g", strength: "master", plays: [] }, retryAfter: null });
  await assert.rejects(getReview("g 1"), (error) => error instanceof ApiProblem && error.code === "review_needs_a_person" && error.status === 409);
  assert.deepEqual(paths, ["/v1/games/g%201/review", "/v1/games/g%201/review", "/v1/games/g%201/review"]);
});
