// The turn clock (service/web/js/clock.js): it counts down to the deadline the game states, allowing for
// the time a state waited to be shown (a completed trick held on the table), and never shows more time
// than is left, whatever this browser's clock says.

import assert from "node:assert/strict";
import { test } from "node:test";

import { clockText, DATE_FROM_SECONDS, localDeadline, MINUTES_FROM_SECONDS, secondsLeft } from "../../service/web/js/clock.js";
import { durationText, setLanguage } from "../../service/web/js/i18n.js";

const SECOND = 1000;
const CHANGED = Date.parse("2026-12-02T01:00:00.000Z"); // the service's clock when the turn began
/** A game whose turn began at CHANGED with `timeout` seconds to play. */
const game = (timeout, status = "playing") => ({
  status,
  updated_at: new Date(CHANGED).toISOString(),
  turn_deadline: new Date(CHANGED + timeout * SECOND).toISOString(),
});

test("a state shown at once counts down the whole time the game gives", () => {
  const arrived = CHANGED + 20; // 20 ms on the wire, clocks in step
  const deadline = localDeadline(game(8), arrived);
  assert.equal(deadline, CHANGED + 8 * SECOND);
  assert.equal(secondsLeft(deadline, arrived), 8);
});

test("a trick held on the table for 1.2 s takes 1.2 s off the count: it ends at the service's deadline", () => {
  const arrived = CHANGED + 20;
  const shown = arrived + 1200; // the pacer held the completed trick this long before showing the turn
  const deadline = localDeadline(game(8), arrived);
  assert.equal(deadline, CHANGED + 8 * SECOND, "the pause does not move the deadline");
  assert.equal(secondsLeft(deadline, shown), 7); // 6.78 s left: the 7th second has begun
  assert.equal(secondsLeft(deadline, CHANGED + 8 * SECOND - 1), 1);
  assert.equal(secondsLeft(deadline, CHANGED + 8 * SECOND), 0, "time is up the moment the stand-in may play");
});

test("a browser clock behind the service's adds no time", () => {
  const behind = 5 * SECOND; // this browser's clock reads 5 s less than the service's
  const arrived = CHANGED + 20 - behind;
  const shown = arrived + 1200;
  const deadline = localDeadline(game(8), arrived);
  // By this browser's clock the turn ends 8 s after the state arrived, not 8 + 5 s.
  assert.equal(deadline, arrived + 8 * SECOND);
  assert.ok(secondsLeft(deadline, shown) <= 7);
});

test("a browser clock ahead of the service's shows less time, never more", () => {
  const ahead = 3 * SECOND;
  const arrived = CHANGED + 20 + ahead;
  assert.equal(localDeadline(game(8), arrived), CHANGED + 8 * SECOND);
  assert.equal(secondsLeft(CHANGED + 8 * SECOND, arrived), 5); // never more than is left
});

test("no deadline: none running, or the game not being played", () => {
  assert.ok(Number.isNaN(localDeadline({ ...game(8), turn_deadline: null }, CHANGED)));
  assert.ok(Number.isNaN(localDeadline(game(8, "waiting_for_deal"), CHANGED)));
});

test("seconds left: the seconds begun, never below zero", () => {
  assert.equal(secondsLeft(10 * SECOND, 0), 10);
  assert.equal(secondsLeft(10 * SECOND, 1), 10);
  assert.equal(secondsLeft(10 * SECOND, 9001), 1);
  assert.equal(secondsLeft(10 * SECOND, 10 * SECOND), 0);
  assert.equal(secondsLeft(10 * SECOND, 60 * SECOND), 0);
});

test("a day or more left shows the deadline as a date; less, hours and minutes; under two minutes, the seconds; none, the stand-in", () => {
  const deadline = Date.parse("2026-12-09T14:30:00.000Z");
  const dated = clockText(3 * 24 * 60 * 60, deadline);
  assert.match(dated, /^Turn ends /);
  assert.match(dated, /2026/);
  assert.equal(clockText(DATE_FROM_SECONDS - 5, deadline), "23 h 59 min left");
  assert.equal(clockText(3600, deadline), "1 h left");
  assert.equal(clockText(3597, deadline), "59 min left");
  assert.equal(clockText(300, deadline), "5 min left");
  assert.equal(clockText(MINUTES_FROM_SECONDS, deadline), "2 min left");
  assert.equal(clockText(MINUTES_FROM_SECONDS - 1, deadline), "119 seconds left");
  assert.equal(clockText(1, deadline), "1 second left");
  assert.equal(clockText(0, deadline), "Time is up: a stand-in plays.");
});

test("no count in raw seconds between two minutes and a day, in any language", () => {
  const stored = new Map();
  globalThis.localStorage = { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => stored.set(key, value) };
  globalThis.document = { documentElement: {} };
  const expected = { en: "23 h 59 min left", es: "quedan 23 h 59 min", nl: "nog 23 uur 59 min", "zh-Hant": "剩 23 小時 59 分鐘", fr: "encore 23 h 59 min", uk: "лишилося 23 год 59 хв" };
  try {
    for (const [code, text] of Object.entries(expected)) {
      setLanguage(code);
      assert.equal(clockText(86_395, 0), text, code);
      for (const seconds of [120, 3597, 3600, 7261, 86_399]) assert.doesNotMatch(clockText(seconds, 0), new RegExp(String(seconds)), `${code} ${seconds}`);
    }
  } finally {
    setLanguage("en");
  }
});

test("durations in human units: whole days, hours and minutes, minutes, seconds", () => {
  assert.equal(durationText(14 * 86_400), "14 days");
  assert.equal(durationText(86_400), "1 day");
  assert.equal(durationText(172_800), "2 days");
  assert.equal(durationText(3600), "1 h");
  assert.equal(durationText(5400), "1 h 30 min");
  assert.equal(durationText(300), "5 min");
  assert.equal(durationText(45), "45 s");
});
