// The log's hands rebuilt from the moves a page knows (service/web/js/history.js), including a gap: a stream started
// afresh (a seat lost to the clock) skips the moves between, and the actions are read again to fill them.

import assert from "node:assert/strict";
import { test } from "node:test";

import { RANKS, SUITS } from "../../service/web/js/cards.js";
import { GameHistory, replayHands } from "../../service/web/js/history.js";

/** A whole hand dealt by `dealer`: 16 tricks, each of one suit (every card once), the leader's card the highest. */
function hand(number, dealer) {
  const moves = [{ kind: "deal", hand_number: number, seat: dealer, cause: "player" }];
  const leader = (dealer + 1) % 3; // leads every trick: its card is the trick's highest
  for (let trick = 0; trick < 16; trick += 1) {
    const suit = SUITS[trick % 4];
    for (let turn = 0; turn < 3; turn += 1) {
      const card = `${RANKS[3 * Math.floor(trick / 4) + turn]}-${suit}`;
      moves.push({ kind: "play", hand_number: number, seat: (leader + turn) % 3, card, cause: "player" });
    }
  }
  return moves;
}

test("a hand's tricks and winners are rebuilt from its moves", () => {
  const [first] = replayHands(hand(1, 0));
  assert.equal(first.tricks.length, 16);
  assert.ok(first.over);
  assert.deepEqual(first.tricksWon, [0, 16, 0]); // the leader, seat 1, takes them all
});

test("a play after a hand's last trick with no deal between is skipped until the deal is known, not piled on", () => {
  const [, ...secondPlays] = hand(2, 1); // the deal of hand 2 was not told of
  const hands = replayHands([...hand(1, 0), ...secondPlays.slice(0, 4)]);
  assert.equal(hands.length, 1);
  assert.equal(hands[0].tricks.at(-1).plays.length, 3);
  const history = new GameHistory();
  for (const move of [...hand(1, 0), ...secondPlays.slice(0, 4)]) history.add(move);
  history.load([...hand(1, 0), ...hand(2, 1).slice(0, 5)]); // the actions read again: the deal takes its place
  const [, second] = replayHands(history.moves);
  assert.equal(second.dealer, 1);
  assert.equal(second.tricks[0].plays.length, 3);
  assert.equal(second.tricks[1].plays.length, 1);
});

test("who won ends the log, even when the game was read finished before its moves were", () => {
  const history = new GameHistory();
  history.end("Bo won the game."); // a page opened on a finished game: the state comes before the actions
  history.load(hand(1, 0));
  const lines = history.lines((seat) => ["Ana", "Bo", "Cy"][seat], null);
  assert.ok(lines.length > 16, lines.join("\n"));
  assert.equal(lines.at(-1), "Bo won the game.");
  assert.equal(lines.filter((line) => line === "Bo won the game.").length, 1);
});

test("a line read back from the feed takes its place among the moves, before later events' lines there", () => {
  const history = new GameHistory();
  const moves = hand(1, 0).slice(0, 4); // the deal and a trick
  history.load(moves);
  history.note("Cy took seat 3.", 4, 12); // live, as its event (id 12) was shown
  history.note("Seat 2 left; a bot plays it now.", 2, 9); // read back: event 9 came after the second move
  history.note("Bo took seat 2.", 0, 2); // read back: before the deal
  history.note("Ana took seat 1.", 4, 11); // read back, at the same place as the live line: the earlier event first
  const lines = history.lines((seat) => ["Ana", "Bo", "Cy"][seat], null);
  const at = (text) => lines.indexOf(text);
  assert.equal(at("Bo took seat 2."), 0);
  assert.ok(at("Seat 2 left; a bot plays it now.") === 3, lines.join("\n")); // the deal, a card, then the line
  assert.deepEqual(lines.slice(-2), ["Ana took seat 1.", "Cy took seat 3."]);
});
