// The browser's record check (service/web/js/record-check.js) on a genuine record and on tampered copies of it.
// The fixture is a bot game to 3 points built by tests/support/records.py (coins-verify passes it):
//   python -c 'import json; from tests.support.records import Table, play;
//     print(json.dumps(play(Table(target=3), "web").record(), indent=2))' > tests/web/fixtures/record-finished.json

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import { checkRecord, recordCheckText } from "../../service/web/js/record-check.js";
import { trickWinner } from "../../service/web/js/trick.js";

const genuine = async () => JSON.parse(await readFile(new URL("./fixtures/record-finished.json", import.meta.url), "utf8"));

test("the three cases of a trick's winner", () => {
  assert.equal(trickWinner(["3-clubs", "2-swords", "ace-coins"]), 2); // cups absent: coins win
  assert.equal(trickWinner(["2-cups", "ace-swords", "king-cups"]), 2); // a pair: its higher card
  assert.equal(trickWinner(["5-coins", "knave-coins", "9-coins"]), 1); // one suit: the highest
});

test("a genuine record verifies", async () => {
  const check = await checkRecord(await genuine());
  assert.deepEqual(check, { ok: true, finished: true, hands: 1, plays: 27 });
  assert.match(recordCheckText(check), /^✓ Record verified: hands: 1, plays: 27/);
});

test("a card swapped between two players fails at the first of the two plays", async () => {
  const record = await genuine();
  const [hand] = record.hands;
  const [first, second] = hand.plays;
  [first.card, second.card] = [second.card, first.card];
  const trick = hand.tricks[0].plays;
  [trick[0].card, trick[1].card] = [trick[1].card, trick[0].card];
  const check = await checkRecord(record);
  assert.deepEqual(check, { ok: false, hand: 1, play: 1, trick: undefined, reason: "notDealt", values: { seat: 1, card: "3-cups" } });
  assert.equal(recordCheckText(check), "⚠ The record failed the check: hand 1, play 1: Seat 2 played the 3 of cups, which was not dealt to them.");
});

test("an altered seed fails against its commitment", async () => {
  const record = await genuine();
  const seed = record.hands[0].seed;
  record.hands[0].seed = (seed[0] === "0" ? "1" : "0") + seed.slice(1);
  const check = await checkRecord(record);
  assert.equal(check.ok, false);
  assert.equal(check.reason, "commitment");
  assert.equal(recordCheckText(check), "⚠ The record failed the check: hand 1: the revealed seed does not match the commitment published at the deal.");
});

test("a misjudged trick and misadded scores are caught", async () => {
  const record = await genuine();
  record.hands[0].tricks[1].winner = 2;
  let check = await checkRecord(record);
  assert.equal(recordCheckText(check), "⚠ The record failed the check: hand 1, trick 2: the record says Seat 3 won, but by the rules Seat 1 did.");
  const other = await genuine();
  other.scores = [1, 3, 2];
  check = await checkRecord(other);
  assert.equal(recordCheckText(check), "⚠ The record failed the check: the outcome: the game's scores are 1-3-2, but the tricks make them 1-3-1.");
});

test("a document that is not a record is refused", async () => {
  assert.equal((await checkRecord({ format: "something-else" })).reason, "invalid");
  const record = await genuine();
  delete record.hands[0].plays;
  assert.equal((await checkRecord(record)).reason, "invalid");
});

test("a game cancelled before its first deal verifies, and only before it", async () => {
  const record = await genuine();
  Object.assign(record, { status: "cancelled", hands: [], winner: null, scores: [0, 0, 0], ended_mid_hand: false, finished_at: null });
  const check = await checkRecord(record);
  assert.equal(check.ok, true, JSON.stringify(check));
  const started = await genuine();
  started.status = "cancelled";
  assert.equal((await checkRecord(started)).ok, false);
});
