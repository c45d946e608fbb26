// The pacer's pauses (service/web/js/pacing.js): the trick pause is the setting, else 1.2 s, and none in
// reduced-motion mode; the turn clock (clock.test.mjs) counts through whatever pause this gives.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";

import { TRICK_PAUSE_MS, pacer, pauseAfter, trickPauseMs } from "../../service/web/js/pacing.js";

let reduced = false;
const stored = new Map();
beforeEach(() => {
  reduced = false;
  stored.clear();
  globalThis.window = { matchMedia: (query) => ({ matches: reduced && query === "(prefers-reduced-motion: reduce)" }) };
  globalThis.localStorage = { getItem: (key) => stored.get(key) ?? null };
});

test("the trick pause: 1.2 s by default, the setting when there is one", () => {
  assert.equal(trickPauseMs(), TRICK_PAUSE_MS);
  assert.equal(TRICK_PAUSE_MS, 1200);
  stored.set("coins.trickPauseMs", "800");
  assert.equal(trickPauseMs(), 800);
  stored.set("coins.trickPauseMs", "0");
  assert.equal(trickPauseMs(), 0);
});

test("no trick pause in reduced-motion mode, whatever the setting", () => {
  reduced = true;
  assert.equal(trickPauseMs(), 0);
  stored.set("coins.trickPauseMs", "2000");
  assert.equal(trickPauseMs(), 0);
});

test("a third of the pause after a card, the pause after a trick, twice it after a hand", () => {
  assert.equal(pauseAfter({ type: "card_played" }, 1200), 400);
  assert.equal(pauseAfter({ type: "trick_won" }, 1200), 1200);
  assert.equal(pauseAfter({ type: "hand_ended" }, 1200), 2400);
  assert.equal(pauseAfter({ type: "hand_dealt" }, 1200), 0);
  assert.equal(pauseAfter({ type: "trick_won" }, 0), 0);
});

test("waiting: events not shown yet; busy: those or a pause still running", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  stored.set("coins.trickPauseMs", "900");
  const shown = [];
  let settled = 0;
  const paced = pacer({ show: (event) => shown.push(event.type), settled: () => (settled += 1) });
  paced.push({ type: "card_played" }); // shown at once, then a pause of 300 ms
  paced.push({ type: "trick_won" });
  assert.deepEqual(shown, ["card_played"]);
  assert.equal(paced.waiting(), true);
  assert.equal(paced.busy(), true);
  t.mock.timers.tick(300);
  assert.deepEqual(shown, ["card_played", "trick_won"]); // the trick shown, its pause of 900 ms running
  assert.equal(paced.waiting(), false);
  assert.equal(paced.busy(), true);
  t.mock.timers.tick(900);
  assert.equal(paced.busy(), false);
  assert.equal(settled, 1);
});
