// The turn clock (service/web/js/clock.js): it counts down to the deadline the game states, allowing for
// the time a state waited to be shown (a completed trick held on the table), and never shows more time
// than is left, whatever this browser's clock says.

import assert from "node:assert/strict";
import { test } from "node:test";

import { clockText, DATE_FROM_SECONDS, localDeadline, secondsLeft } from "../../service/web/js/clock.js";

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

test("a day or more left shows the deadline as a date; less, the seconds; none, the stand-in", () => {
  const deadline = Date.parse("2026-12-09T14:30:00.000Z");
  const dated = clockText(3 * 24 * 60 * 60, deadline);
  assert.match(dated, /^Turn ends /);
  assert.match(dated, /2026/);
  assert.equal(clockText(DATE_FROM_SECONDS - 1, deadline), `${DATE_FROM_SECONDS - 1} seconds left`);
  assert.equal(clockText(1, deadline), "1 second left");
  assert.equal(clockText(0, deadline), "Time is up: a stand-in plays.");
});
