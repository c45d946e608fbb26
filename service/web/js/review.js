// The "Review" panel of a finished table: asks the service for the game's review (getReview), waits while the
// worker computes it, and shows each seat's largest mistakes against the master's choice.

import * as api from "./api.js";
import { h } from "./dom.js";
import { cardName, language, t } from "./i18n.js";
import { seatName } from "./names.js";
import { problemNotice } from "./notice.js";

/** @typedef {import("./types.js").Review} Review */
/** @typedef {import("./types.js").ReviewedPlay} ReviewedPlay */
/** @typedef {import("./types.js").Game} Game */

/** How many mistakes a seat shows: its largest. */
export const MISTAKES_SHOWN = 3;
/** How long the panel waits for a review being computed before it says so and stops asking. */
const WAIT_MS = 120_000;
/** The pause between two asks when the answer names none, and the bounds of one it names: at least 3 s keeps a
 *  page well under the `reviews` rate limit (30 a minute per address); over it (429), the longest pause. */
const DEFAULT_RETRY_S = 3;
const MIN_RETRY_S = 3;
const MAX_RETRY_S = 15;

/**
 * Each seat's largest mistakes: its plays whose card gave up expected points against the master's choice
 * (a play the master would have made, or one as good, is none; nor is a loss shown as +0.0), largest loss first, then in play order;
 * at most `limit` a seat. Pure: the review's body in, one list per seat (0, 1, 2) out.
 * @param {Pick<Review, "plays">} review @param {number} [limit]
 * @returns {ReviewedPlay[][]}
 */
export function largestMistakes(review, limit = MISTAKES_SHOWN) {
  /** @type {ReviewedPlay[][]} */
  const seats = [[], [], []];
  for (const play of review.plays) if (play.card !== play.choice && Math.round(play.loss * 10) > 0) seats[play.seat]?.push(play);
  return seats.map((plays) => plays.sort((a, b) => b.loss - a.loss || a.seq - b.seq).slice(0, limit));
}

/** A number of expected points in the current language, to one decimal ("1.4", "1,4"): always shown with its
 *  fraction digit, it takes every language's "other" plural form, so its message is one text. @param {number} points */
const formatPoints = (points) => new Intl.NumberFormat(language(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(points);

/**
 * One mistake in words: "Hand 2, trick 5: you played the 3 of cups; the master would have played the king of coins: 1.4 points fewer expected"
 * (a loss against the master's card, never said as a gain).
 * @param {ReviewedPlay} play @param {string|null} who the seat's name, or null for this browser's seat ("you")
 */
export function mistakeText(play, who) {
  const points = t("review.points", { value: formatPoints(play.loss) });
  const params = { hand: play.hand_number, trick: play.trick_number, card: cardName(play.card), choice: cardName(play.choice), points, name: who ?? "" };
  return t(who === null ? "review.mistakeYou" : "review.mistake", params);
}

/** A finished game that a person or a player sat at (or that this browser played): the service reviews it. @param {Game} game @param {number|null} mine */
export const reviewable = (game, mine) => game.status === "finished" && (mine !== null || game.seats.some((seat) => !seat.open && seat.bot === null));

/**
 * The panel's state and its view. `render` draws the table again.
 * @param {string} gameId
 * @param {{render: () => void}} table
 */
export function reviewPanel(gameId, { render }) {
  /** @type {{state: "idle"} | {state: "waiting", reviewed: number, total: number} | {state: "ready", review: Review} | {state: "late"} | {state: "failed", error: unknown}} */
  let status = { state: "idle" };
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  let deadline = 0;
  let stopped = false;

  /** Ask for the review; while it is computed (202), again after `Retry-After`, until it comes or WAIT_MS pass. */
  async function ask() {
    clearTimeout(timer);
    try {
      const answer = await api.getReview(gameId);
      if (stopped) return;
      if (answer.status === 200) status = { state: "ready", review: /** @type {Review} */ (answer.body) };
      else {
        const pending = /** @type {import("./types.js").PendingReview} */ (answer.body);
        wait(Math.min(Math.max(answer.retryAfter ?? DEFAULT_RETRY_S, MIN_RETRY_S), MAX_RETRY_S), pending?.reviewed ?? 0, pending?.total ?? 0);
      }
    } catch (error) {
      if (stopped) return;
      if (error instanceof api.ApiProblem && error.code === "too_many_requests" && status.state === "waiting") wait(MAX_RETRY_S, status.reviewed, status.total);
      else status = { state: "failed", error };
    }
    render();
  }

  /** Ask again in `seconds`, unless that passes the deadline: then say the review is late. @param {number} seconds @param {number} reviewed @param {number} total */
  function wait(seconds, reviewed, total) {
    if (Date.now() + seconds * 1000 > deadline) status = { state: "late" };
    else {
      status = { state: "waiting", reviewed, total };
      timer = setTimeout(ask, seconds * 1000);
    }
  }

  const start = () => {
    status = { state: "waiting", reviewed: 0, total: 0 };
    deadline = Date.now() + WAIT_MS;
    render();
    ask();
  };

  /** @param {Game} game @param {number|null} mine */
  function view(game, mine) {
    if (!reviewable(game, mine)) return null;
    return h(
      "section",
      { class: "panel review", id: "review", "aria-labelledby": "review-title", "aria-busy": status.state === "waiting" ? "true" : "false" },
      h("h2", { id: "review-title" }, t("review.title")),
      body(game, mine),
    );
  }

  /** @param {Game} game @param {number|null} mine */
  function body(game, mine) {
    const again = (/** @type {string} */ label) => h("p", { class: "actions" }, h("button", { type: "button", "data-key": "review", onclick: start }, label));
    switch (status.state) {
      case "idle":
        return again(t("review.ask"));
      case "waiting":
        // Each state holds the focus that the button had (data-key "review", restored by the table's render).
        return h("p", { role: "status", id: "review-waiting", tabindex: "-1", "data-key": "review" }, t("review.waiting"), status.total ? ` ${t("review.progress", { reviewed: status.reviewed, total: status.total })}` : "");
      case "late":
        return [h("p", { role: "status", class: "warning-note" }, t("review.late")), again(t("review.askAgain"))];
      case "failed":
        return [problemNotice(status.error), again(t("review.askAgain"))];
      default:
        return mistakesView(game, mine, status.review);
    }
  }

  /** Each seat: a heading and its largest mistakes, or that it made none. @param {Game} game @param {number|null} mine @param {Review} review */
  function mistakesView(game, mine, review) {
    const mistakes = largestMistakes(review);
    return h(
      "div",
      { id: "review-ready" },
      h("p", { class: "review-intro", tabindex: "-1", "data-key": "review" }, t("review.intro")),
      game.seats.map((seat) => {
        const titleId = `review-seat-${seat.seat}`;
        const lines = mistakes[seat.seat] ?? [];
        return h(
          "section",
          { class: "review-seat", "aria-labelledby": titleId },
          h("h3", { id: titleId }, seatName(seat, mine)),
          lines.length
            ? h("ol", { class: "review-mistakes", "data-seat": seat.seat }, lines.map((play) => h("li", {}, mistakeText(play, seat.seat === mine ? null : seatName(seat)))))
            : h("p", { class: "review-none", "data-seat": seat.seat }, t("review.none")),
        );
      }),
    );
  }

  return { view, stop: () => ((stopped = true), clearTimeout(timer)) };
}
