// The game's history from its deals and plays (listActions, then the events): tricks, points per hand, and the log.

import { cardName, t } from "./i18n.js";
import { trickPoints, trickReason, trickWinner } from "./trick.js";

/** @typedef {import("./types.js").CardCode} CardCode */
/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").FeedEvent} FeedEvent */
/** A deal or a play, as an action of the API or as the event that told of it. */
/** @typedef {{kind: "deal"|"play", hand_number: number, seat: number, card: CardCode|null, cause: string}} Move */
/** @typedef {{leader: number, plays: {seat: number, card: CardCode}[], winner: number|null, points: number}} TrickRecord */
/** @typedef {{hand_number: number, dealer: number, tricks: TrickRecord[], points: number[], tricksWon: number[], over: boolean}} HandRecord */
/** A line of the log; `after`: how many moves had happened when it was written; `id`: the feed's event that told of it (none: after them all). */
/** @typedef {{after: number, text: string, id: number}} Extra */

const TRICKS_PER_HAND = 16;

/** A move's identity: a hand is dealt once, a card played once per hand. @param {Move} move */
export const moveKey = (move) => `${move.hand_number}:${move.kind === "deal" ? "deal" : move.card}`;

/** The move an action tells of; null for a kind of action this client does not know (kinds are added within v1). @param {Action} action @returns {Move|null} */
export function moveOfAction(action) {
  if (action.kind !== "deal" && action.kind !== "play") return null;
  return { kind: action.kind, hand_number: action.hand_number, seat: action.seat, card: action.card, cause: action.cause };
}

/** The move an event tells of, if any. @param {FeedEvent} event @returns {Move|null} */
export function moveOfEvent(event) {
  if (event.type === "hand_dealt") return { kind: "deal", hand_number: event.hand_number, seat: event.dealer, card: null, cause: event.cause };
  if (event.type === "card_played") return { kind: "play", hand_number: event.hand_number, seat: event.seat, card: event.card, cause: event.cause };
  return null;
}

/**
 * Every hand so far, rebuilt by the rules: the dealer's left leads the first trick, the
 * winner of a trick leads the next.
 * @param {Move[]} moves
 * @returns {HandRecord[]}
 */
export function replayHands(moves) {
  /** @type {HandRecord[]} */
  const hands = [];
  for (const move of moves) {
    if (move.kind === "deal") {
      const leader = (move.seat + 1) % 3;
      hands.push({ hand_number: move.hand_number, dealer: move.seat, tricks: [{ leader, plays: [], winner: null, points: 0 }], points: [0, 0, 0], tricksWon: [0, 0, 0], over: false });
      continue;
    }
    const hand = hands.at(-1);
    const trick = hand?.tricks.at(-1);
    // A play after a hand's last trick with no deal between: a move this page has not read yet (a stream
    // started afresh skipped it, and the actions are being read again); skipped until that deal is known.
    if (!hand || !trick || !move.card || hand.over) continue;
    trick.plays.push({ seat: move.seat, card: move.card });
    if (trick.plays.length < 3) continue;
    const cards = trick.plays.map((play) => play.card);
    trick.winner = trick.plays[trickWinner(cards)].seat;
    trick.points = trickPoints(cards);
    hand.points[trick.winner] += trick.points;
    hand.tricksWon[trick.winner] += 1;
    if (hand.tricks.length === TRICKS_PER_HAND) hand.over = true;
    else hand.tricks.push({ leader: trick.winner, plays: [], winner: null, points: 0 });
  }
  return hands;
}

/**
 * The log, oldest first: each deal, each play (a stand-in's said as such), each trick's winner
 * and why, each hand's end; `extras` (seats taken and left) at their places.
 * @param {Move[]} moves @param {(seat: number) => string} name @param {number|null} mine @param {Extra[]} extras
 * @returns {string[]}
 */
export function logLines(moves, name, mine, extras) {
  /** @type {string[]} */
  const lines = [];
  const pending = [...extras];
  const flushExtras = (count) => {
    while (pending.length && pending[0].after <= count) lines.push(/** @type {Extra} */ (pending.shift()).text);
  };
  /** @type {{seat: number, card: CardCode}[]} */
  let trick = [];
  let tricks = 0;
  let handPoints = [0, 0, 0];
  moves.forEach((move, index) => {
    flushExtras(index);
    if (move.kind === "deal") {
      trick = [];
      tricks = 0;
      handPoints = [0, 0, 0];
      lines.push(t(move.cause === "auto" ? "log.dealtAuto" : "log.dealt", { name: name(move.seat), n: move.hand_number }));
      return;
    }
    const card = cardName(/** @type {CardCode} */ (move.card));
    if (move.cause === "timeout") lines.push(t(move.seat === mine ? "log.standInForYou" : "log.standIn", { name: name(move.seat), card }));
    else lines.push(t("log.played", { name: name(move.seat), card }));
    trick.push({ seat: move.seat, card: /** @type {CardCode} */ (move.card) });
    if (trick.length < 3) return;
    const cards = trick.map((play) => play.card);
    const winner = trick[trickWinner(cards)].seat;
    const points = trickPoints(cards);
    handPoints[winner] += points;
    lines.push(t("log.trickWon", { name: name(winner), points: t("count.points", { count: points }), reason: trickReason(cards) }));
    trick = [];
    tricks += 1;
    if (tricks === TRICKS_PER_HAND) lines.push(t("log.handEnded", { n: move.hand_number, points: handPoints.map((p, seat) => `${name(seat)} ${p}`).join(", ") }));
  });
  flushExtras(Infinity);
  return lines;
}

/**
 * The game's moves as this page knows them: those read from its actions and those its events
 * told of, each once, in order; and the log lines that are not moves (seats taken and left).
 */
export class GameHistory {
  constructor() {
    /** @type {Move[]} */
    this.moves = [];
    /** @type {Extra[]} */
    this.extras = [];
    /** @type {Set<string>} */
    this.keys = new Set();
    /** @type {string|null} the last line (who won), after every move however late they are read */
    this.ending = null;
  }

  /** The moves read from the game's actions; moves already taken from the events stay after them. @param {Move[]} fetched */
  load(fetched) {
    const known = new Set(fetched.map(moveKey));
    this.moves = [...fetched, ...this.moves.filter((move) => !known.has(moveKey(move)))];
    for (const key of known) this.keys.add(key);
  }

  /** @param {Move|null} move */
  add(move) {
    if (!move || this.keys.has(moveKey(move))) return;
    this.keys.add(moveKey(move));
    this.moves.push(move);
  }

  /**
   * A log line that is not a move, at its place among them: after the moves so far, or after the first `after` (a
   * line read back from the game's feed), before the lines of later events there. @param {string} text
   */
  note(text, after = this.moves.length, id = Infinity) {
    const at = this.extras.findIndex((extra) => extra.after > after || (extra.after === after && extra.id > id));
    this.extras.splice(at < 0 ? this.extras.length : at, 0, { after, text, id });
  }

  /** The game's end (who won): the log's last line, whether an event told of it or the game was read finished. @param {string} text */
  end(text) {
    this.ending = text;
  }

  /** @param {(seat: number) => string} name @param {number|null} mine */
  lines(name, mine) {
    const lines = logLines(this.moves, name, mine, this.extras);
    return this.ending === null ? lines : [...lines, this.ending];
  }
}
