// A game record (getRecord, docs/records.md) checked in the browser, as coins-verify checks it:
// every revealed seed against its commitment, every deal recomputed (deal.js), every play in turn
// and from its player's dealt hand, every trick's winner and points, the scores and the outcome.

import { DECK, parseCard } from "./cards.js";
import { commitment, dealHands, fromHex } from "./deal.js";
import { cardName, t } from "./i18n.js";
import { trickPoints, trickWinner } from "./trick.js";

/** @typedef {import("./types.js").GameRecord} GameRecord */
/** @typedef {import("./types.js").RecordHand} RecordHand */
/** @typedef {import("./types.js").CardCode} CardCode */
/**
 * Where the first discrepancy is (hand, play and trick numbers from 1), why (a `record.reason.*`
 * key) and the values its message names. Seats are the record's (0, 1, 2).
 * @typedef {{hand?: number, play?: number, trick?: number, reason: string, values?: Record<string, any>}} Failure
 */
/** @typedef {{ok: true, finished: boolean, hands: number, plays: number} | ({ok: false} & Failure)} RecordCheck */

const CARDS_EACH = 16;
const left = (seat) => (seat + 1) % 3;
const right = (seat) => (seat + 2) % 3;

class Discrepancy extends Error {
  /** @param {string} reason @param {Record<string, any>} [values] */
  constructor(reason, values = {}) {
    super(reason);
    this.reason = reason;
    this.values = values;
  }
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Check a whole record; the first discrepancy found stops the check.
 * @param {unknown} document
 * @returns {Promise<RecordCheck>}
 */
export async function checkRecord(document) {
  /** @type {{hand?: number, play?: number, trick?: number}} */
  const where = {};
  try {
    const record = /** @type {GameRecord} */ (document);
    if (record?.format !== "coins-record" || record.format_version !== 1 || !Array.isArray(record.hands)) {
      throw new Discrepancy("invalid");
    }
    const target = record.setup.target_score;
    if (!(target >= 1 && target <= 100) || !same(record.seats.map((seat) => seat.seat), [0, 1, 2])) {
      throw new Discrepancy("setup");
    }
    const game = { scores: [0, 0, 0], winner: /** @type {number|null} */ (null), dealer: record.setup.first_dealer ?? 0, lastOver: true, lastTricks: 0, plays: 0 };
    for (const [index, hand] of record.hands.entries()) {
      Object.assign(where, { hand: index + 1, play: undefined, trick: undefined });
      await checkHand(game, hand, index, index === record.hands.length - 1, where, target);
    }
    Object.assign(where, { hand: undefined, play: undefined, trick: undefined });
    checkOutcome(record, game);
    return { ok: true, finished: game.winner !== null, hands: record.hands.length, plays: game.plays };
  } catch (error) {
    if (error instanceof Discrepancy) return { ok: false, ...where, reason: error.reason, values: error.values };
    return { ok: false, ...where, reason: "invalid", values: {} }; // a field missing or of the wrong type
  }
}

/** @param {RecordHand} hand @param {number} index @param {boolean} isLast @param {Record<string, any>} where @param {number} target */
async function checkHand(game, hand, index, isLast, where, target) {
  if (game.winner !== null) throw new Discrepancy("afterEnd");
  if (!game.lastOver) throw new Discrepancy("dealtEarly");
  if (hand.hand_number !== index + 1) throw new Discrepancy("numbering");
  const dealer = hand.dealer;
  if (dealer !== game.dealer) throw new Discrepancy("dealer", { seat: dealer, expected: game.dealer });
  if (hand.shuffler !== right(dealer) || hand.cutter !== left(dealer) || hand.leader !== left(dealer)) {
    throw new Discrepancy("roles", { seat: dealer });
  }
  const over = hand.over;
  if (!over && hand.seed !== undefined) throw new Discrepancy("seedEarly");
  let dealt = null;
  if (hand.seed !== undefined) {
    let seed;
    try {
      seed = fromHex(hand.seed);
    } catch {
      throw new Discrepancy("commitment");
    }
    if (!seed.length || (await commitment(seed)) !== hand.commitment) throw new Discrepancy("commitment");
    dealt = await dealHands(seed, dealer);
  }
  const played = new Set();
  /** @type {{seat: number, card: CardCode}[]} */
  let table = [];
  /** @type {{leader: number, plays: {seat: number, card: CardCode}[], winner: number, points: number}[]} */
  const tricks = [];
  let turn = left(dealer);
  for (const [i, { seat, card }] of hand.plays.entries()) {
    where.play = i + 1;
    const values = { seat, card };
    if (game.winner !== null) throw new Discrepancy("playAfterEnd", values);
    if (seat !== turn) throw new Discrepancy("turn", { ...values, expected: turn });
    if (!DECK.includes(card)) throw new Discrepancy("notACard", values);
    if (played.has(card)) throw new Discrepancy("playedTwice", values);
    if (dealt && !dealt[seat].includes(card)) throw new Discrepancy("notDealt", values);
    played.add(card);
    table.push({ seat, card });
    turn = left(seat);
    game.plays += 1;
    if (table.length === 3) {
      const cards = table.map((play) => play.card);
      const winner = table[trickWinner(cards)].seat;
      const points = trickPoints(cards);
      tricks.push({ leader: table[0].seat, plays: table, winner, points });
      table = [];
      turn = winner;
      game.scores[winner] += points;
      if (game.scores[winner] >= target) game.winner = winner;
    }
  }
  where.play = undefined;
  if (hand.tricks.length !== tricks.length) throw new Discrepancy("trickCount", { stated: hand.tricks.length, count: tricks.length });
  for (const [i, trick] of hand.tricks.entries()) {
    where.trick = i + 1;
    const computed = tricks[i];
    const plays = trick.plays.map(({ seat, card }) => ({ seat, card }));
    if (trick.number !== i + 1 || trick.leader !== computed.leader || !same(plays, computed.plays)) throw new Discrepancy("trickPlays");
    if (trick.winner !== computed.winner) throw new Discrepancy("trickWinner", { stated: trick.winner, seat: computed.winner });
    if (trick.points !== computed.points) throw new Discrepancy("trickPoints", { stated: trick.points, points: computed.points });
  }
  where.trick = undefined;
  const reallyOver = game.winner !== null || tricks.length === CARDS_EACH;
  if (over !== reallyOver) throw new Discrepancy(over ? "notOver" : "over");
  if (over && !dealt) throw new Discrepancy("seedHidden");
  if (!over && !isLast) throw new Discrepancy("notLast");
  if (over && !same(hand.scores_after, game.scores)) throw new Discrepancy("scoresAfter", { stated: hand.scores_after, scores: [...game.scores] });
  game.lastOver = over;
  game.lastTricks = tricks.length;
  if (tricks.length) game.dealer = right(tricks[tricks.length - 1].winner);
}

/** The status, winner, scores and the end of the game agree with the replay. @param {GameRecord} record */
function checkOutcome(record, game) {
  const status = game.winner !== null ? ["finished"] : !game.lastOver ? ["playing"] : record.hands.length ? ["waiting_for_deal"] : ["waiting_for_players", "waiting_for_deal", "cancelled"]; // cancelled before a deal (contract 1.3)
  if (!status.includes(record.status)) throw new Discrepancy("status", { stated: record.status, status: status.join(" / ") });
  if (record.winner !== game.winner) throw new Discrepancy("winner", { stated: record.winner, seat: game.winner });
  if (!same(record.scores, game.scores)) throw new Discrepancy("scores", { stated: record.scores, scores: game.scores });
  if (record.ended_mid_hand !== (game.winner !== null && game.lastTricks < CARDS_EACH)) throw new Discrepancy("midHand");
}

/** A check's result in plain words, in the current language. @param {RecordCheck} check */
export function recordCheckText(check) {
  if (check.ok) return t(check.finished ? "record.verified" : "record.verifiedSoFar", { hands: check.hands, plays: check.plays });
  const seat = (value) => (value === null || value === undefined ? t("record.noOne") : t("seat.number", { n: value + 1 }));
  const seatValued = (name) => name === "seat" || name === "expected" || (name === "stated" && /winner/i.test(check.reason));
  /** @type {Record<string, string|number>} */
  const params = {};
  for (const [name, value] of Object.entries(check.values ?? {})) {
    if (name === "card") params.card = DECK.includes(value) ? cardName(value) : String(value);
    else if (seatValued(name)) params[name] = seat(value);
    else params[name] = Array.isArray(value) ? value.join("-") : String(value);
  }
  const where = check.play
    ? t("record.where.play", { hand: check.hand ?? 0, n: check.play })
    : check.trick
      ? t("record.where.trick", { hand: check.hand ?? 0, n: check.trick })
      : check.hand
        ? t("record.where.hand", { hand: check.hand })
        : t("record.where.game");
  return t("record.failed", { where, reason: t(`record.reason.${check.reason}`, params) });
}
