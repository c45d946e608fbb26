// The turn clock: the game's turn deadline counted down beside the status line (seconds, minutes, hours, a date).

import { h } from "./dom.js";
import { durationText, formatDate, t } from "./i18n.js";

/** @typedef {import("./types.js").Game} Game */

const TICK_MS = 250;
/** How many arrival times are kept (one per game version: the pacer holds a few at most). */
const ARRIVALS_KEPT = 64;

/**
 * When the turn runs out, by this browser's clock (milliseconds since the epoch), for a state
 * of the game that arrived at `arrivedAt` and may be shown later (the pacer holds a completed
 * trick, a hand's summary). It is the game's `turn_deadline`, but never later than the time the
 * service gave (`turn_deadline − updated_at`, both its own clock's) counted from the state's
 * arrival: a state shown a while after it came has that while off, and a browser clock behind
 * the service's adds no time. NaN when the game has no deadline running.
 * @param {Pick<Game, "status" | "turn_deadline" | "updated_at">} game @param {number} arrivedAt
 */
export function localDeadline(game, arrivedAt) {
  if (game.status !== "playing" || !game.turn_deadline) return NaN;
  const deadline = Date.parse(game.turn_deadline);
  const given = deadline - Date.parse(game.updated_at);
  return Math.min(deadline, arrivedAt + Math.max(0, given));
}

/** The seconds begun before `deadline` (the count shown: 0 once it has passed). @param {number} deadline @param {number} now */
export const secondsLeft = (deadline, now) => Math.max(0, Math.ceil((deadline - now) / 1000));

/** From a day left on, the clock shows the deadline as a date (a correspondence game's turn lasts days). */
export const DATE_FROM_SECONDS = 24 * 60 * 60;

/** Under this many seconds left, the clock counts seconds; from it on, minutes (and hours). */
export const MINUTES_FROM_SECONDS = 120;

/**
 * What the clock says with `seconds` left before `deadline`: the seconds under two minutes, then
 * hours and minutes ("23 h 59 min left"), the date once a day or more is left, or that a stand-in
 * plays. @param {number} seconds @param {number} deadline
 */
export function clockText(seconds, deadline) {
  if (seconds <= 0) return t("clock.standIn");
  if (seconds >= DATE_FROM_SECONDS) return t("clock.until", { date: formatDate(deadline) });
  if (seconds >= MINUTES_FROM_SECONDS) return t("clock.leftTime", { time: durationText(seconds) });
  return t("clock.left", { count: seconds });
}

/**
 * A countdown element to place in the page. `heard(game)` as each state of the game arrives
 * (an event, before it is paced; an answer), `update(game, mine)` after each render: it counts
 * down to the turn's deadline (`localDeadline`) while there is one (`mine`: the turn is this
 * seat's, so it is said louder), and is empty otherwise. `stop()` ends its timer.
 */
export function turnClock() {
  const element = h("span", { class: "turn-clock", "aria-live": "off" });
  /** @type {ReturnType<typeof setInterval>|null} */
  let timer = null;
  let deadline = 0;
  let mine = false;
  /** @type {Map<number, number>} game version → when it first arrived (Date.now()) */
  const arrivals = new Map();

  function tick() {
    const seconds = secondsLeft(deadline, Date.now());
    element.textContent = clockText(seconds, deadline);
    element.dataset.seconds = String(seconds);
    element.classList.toggle("urgent", mine && seconds <= 5);
    if (seconds === 0) stop();
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
  }

  return {
    element,
    stop,
    /** @param {Game} game */
    heard(game) {
      if (arrivals.has(game.version)) return;
      arrivals.set(game.version, Date.now());
      if (arrivals.size > ARRIVALS_KEPT) arrivals.delete(/** @type {number} */ (arrivals.keys().next().value));
    },
    /** @param {Game|null} game @param {boolean} yours */
    update(game, yours) {
      const at = game ? localDeadline(game, arrivals.get(game.version) ?? Date.now()) : NaN;
      mine = yours;
      element.classList.toggle("yours", yours);
      if (Number.isNaN(at)) {
        stop();
        deadline = 0;
        element.textContent = "";
        element.classList.remove("urgent"); // no empty yellow box once the clock has nothing to say
        delete element.dataset.seconds;
        delete element.dataset.deadline;
        return;
      }
      deadline = at;
      element.dataset.deadline = String(at);
      tick();
      if (timer === null && deadline > Date.now()) timer = setInterval(tick, TICK_MS);
    },
  };
}
