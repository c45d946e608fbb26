// Events shown at a person's pace: each card as it is played, a completed trick held on the table, a hand's end held for its summary.

/** @typedef {import("./types.js").FeedEvent} FeedEvent */

/** How long a completed trick stays on the table, by default (a setting: `coins.trickPauseMs`). */
export const TRICK_PAUSE_MS = 1200;
const SETTING_KEY = "coins.trickPauseMs";
/** More events than this waiting (a reconnect's catch-up) are shown at once, without pauses. */
const CATCH_UP = 12;

/** The trick pause in milliseconds: none in reduced-motion mode, else the setting or the default. */
export function trickPauseMs() {
  if (window.matchMedia?.("(prefers-reduced-motion: reduce)").matches) return 0;
  const saved = Number(localStorage.getItem(SETTING_KEY));
  return Number.isFinite(saved) && saved >= 0 && localStorage.getItem(SETTING_KEY) !== null ? Math.min(saved, 10_000) : TRICK_PAUSE_MS;
}

/**
 * The pause after showing `event`, before the next one: a third of the trick pause after a
 * card (so each card of a bot's quick answer is seen), the trick pause after a completed
 * trick, twice it after a hand's end (its summary).
 * @param {FeedEvent} event @param {number} trickMs
 */
export function pauseAfter(event, trickMs) {
  if (event.type === "card_played") return Math.round(trickMs / 3);
  if (event.type === "trick_won") return trickMs;
  if (event.type === "hand_ended") return trickMs * 2;
  return 0;
}

/**
 * A queue that shows events one at a time with `pauseAfter` between them. `show(event)` draws
 * one; `settled()` is called when a pause ends with nothing left to show. `busy()`: events are
 * still being paced (shown one by one, or a pause running); `waiting()`: some are not shown yet.
 * @param {{show: (event: FeedEvent) => void, settled: () => void}} handlers
 */
export function pacer({ show, settled }) {
  /** @type {FeedEvent[]} */
  const queue = [];
  /** @type {ReturnType<typeof setTimeout>|null} */
  let timer = null;

  function drain() {
    timer = null;
    while (queue.length) {
      const event = /** @type {FeedEvent} */ (queue.shift());
      const pause = queue.length >= CATCH_UP ? 0 : pauseAfter(event, trickPauseMs());
      show(event);
      if (pause > 0) {
        timer = setTimeout(drain, pause);
        return;
      }
    }
    settled();
  }

  return {
    /** @param {FeedEvent} event */
    push(event) {
      queue.push(event);
      if (timer === null) drain();
    },
    busy: () => timer !== null || queue.length > 0,
    /** Events are waiting to be shown (a pause runs before the next). */
    waiting: () => queue.length > 0,
    stop() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      queue.length = 0;
    },
  };
}
