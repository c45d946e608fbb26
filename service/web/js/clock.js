// The turn clock: the game's turn deadline counted down, second by second, beside the status line.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {import("./types.js").Game} Game */

const TICK_MS = 250;

/**
 * A countdown element to place in the page, and `update(game, mine)` after each render: it
 * counts down to `game.turn_deadline` while there is one (`mine`: the turn is this seat's, so
 * it is said louder), and is empty otherwise. `stop()` ends its timer.
 */
export function turnClock() {
  const element = h("span", { class: "turn-clock", "aria-live": "off" });
  /** @type {ReturnType<typeof setInterval>|null} */
  let timer = null;
  let deadline = 0;
  let mine = false;

  function tick() {
    const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    element.textContent = seconds > 0 ? t("clock.left", { count: seconds }) : t("clock.standIn");
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
    /** @param {Game|null} game @param {boolean} yours */
    update(game, yours) {
      const at = game?.status === "playing" && game.turn_deadline ? Date.parse(game.turn_deadline) : NaN;
      mine = yours;
      element.classList.toggle("yours", yours);
      if (Number.isNaN(at)) {
        stop();
        deadline = 0;
        element.textContent = "";
        delete element.dataset.seconds;
        return;
      }
      deadline = at;
      tick();
      if (timer === null && deadline > Date.now()) timer = setInterval(tick, TICK_MS);
    },
  };
}
