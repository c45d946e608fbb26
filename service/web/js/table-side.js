// The table's panels: this seat's buttons, the score history hand by hand, a hand's summary, and the whole game's log.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { seatName } from "./names.js";

/** @typedef {import("./types.js").Game} Game */
/** @typedef {import("./history.js").HandRecord} HandRecord */

/**
 * The scores: one row per hand (the points each seat won in it), then the totals.
 * @param {Game} game @param {number|null} mine @param {HandRecord[]} hands
 */
export function scoresView(game, mine, hands) {
  return h(
    "div",
    { class: "scoreboard-wrap" },
    h(
      "table",
      { class: "scoreboard" },
      h("caption", {}, t("table.target", { target: game.target_score })),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("table.handColumn")), game.seats.map((seat) => h("th", { scope: "col" }, seatName(seat, mine))))),
      h(
        "tbody",
        {},
        hands.map((hand) => h("tr", { "data-hand": hand.hand_number }, h("th", { scope: "row" }, hand.hand_number), hand.points.map((points) => h("td", {}, points)))),
      ),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("table.total")), game.seats.map((seat) => h("td", { "data-score": seat.seat }, seat.score)))),
    ),
  );
}

/**
 * The end of a hand: each seat's points and tricks in it, and whether its deal was verified.
 * @param {Game} game @param {number|null} mine @param {HandRecord} hand
 * @param {import("./fairness.js").Check|undefined} check
 */
export function summaryView(game, mine, hand, check) {
  const verdict = check?.state === "verified" ? t("summary.verified") : check?.state === "failed" ? t("summary.failed") : t("summary.checking");
  return h(
    "section",
    { class: "hand-summary", id: "hand-summary", "data-hand": hand.hand_number, "aria-labelledby": "summary-title" },
    h("h2", { id: "summary-title" }, t("summary.title", { n: hand.hand_number })),
    h(
      "ul",
      {},
      game.seats.map((seat) =>
        h("li", {}, `${seatName(seat, mine)}: ${t("count.points", { count: hand.points[seat.seat] })}, ${t("count.tricks", { count: hand.tricksWon[seat.seat] })}`),
      ),
    ),
    h("p", { class: check?.state === "failed" ? "warning" : check?.state === "verified" ? "verified" : "" }, verdict),
  );
}

/**
 * The whole game's log, oldest first, in a scrollable list that the keyboard can reach and scroll.
 * @param {string[]} lines @param {string} live
 */
export function logPanel(lines, live) {
  return h(
    "section",
    { class: "panel", "aria-labelledby": "log-title" },
    h("h2", { id: "log-title" }, t("table.log")),
    h("p", { class: "live", "data-live": live }, t(`live.${live}`)),
    h("ol", { class: "log", tabindex: "0", "data-key": "log", "aria-labelledby": "log-title", "data-lines": lines.length }, lines.map((line) => h("li", {}, line))),
  );
}

/**
 * This seat's buttons: deal (the dealer's turn), hint (in play, not in a rated game), and leave, which asks first.
 * @param {{game: Game, seat: number, busy: boolean, confirmLeave: boolean, deal: () => void, hint: () => void,
 *          leave: () => void, confirm: (asking: boolean) => void}} options
 */
export function seatControls({ game, seat, busy, confirmLeave, deal, hint, leave, confirm }) {
  const yourTurn = game.turn === seat;
  return h(
    "div",
    { class: "actions" },
    // The server deals a quick-play (auto_deal) game's hands: no Deal button there.
    game.status === "waiting_for_deal" && !game.auto_deal && yourTurn && !busy && h("button", { type: "button", class: "primary", "data-key": "deal", onclick: deal }, t("table.deal")),
    game.status === "playing" && !game.rated && h("button", { type: "button", "data-key": "hint", disabled: !yourTurn, onclick: hint }, t("table.hint")),
    h("button", { type: "button", "data-key": "leave", onclick: () => confirm(true) }, t("table.leave")),
    // The question is laid over the hand, not put in the row: the cards keep their place.
    confirmLeave &&
      h(
        "div",
        { class: "leave-confirm", role: "alertdialog", "aria-labelledby": "leave-question" },
        h("p", { id: "leave-question" }, t(game.rated && !game.void ? "table.leaveConfirmRated" : "table.leaveConfirm")),
        h(
          "p",
          { class: "actions" },
          h("button", { type: "button", class: "primary", "data-key": "leave-yes", disabled: busy, onclick: leave }, t("table.leave")),
          h("button", { type: "button", "data-key": "leave-no", onclick: () => confirm(false) }, t("table.stay")),
        ),
      ),
  );
}

/**
 * The table's settings: the turn sound (off unless switched on; the browser remembers it).
 * @param {{sound: boolean, onSound: (on: boolean) => void}} options
 */
export function settingsPanel({ sound, onSound }) {
  return h(
    "section",
    { class: "panel settings", "aria-labelledby": "settings-title" },
    h("h2", { id: "settings-title" }, t("settings.title")),
    h(
      "label",
      { class: "setting" },
      h("input", {
        type: "checkbox",
        id: "setting-sound",
        "data-key": "setting-sound",
        checked: sound,
        onchange: (/** @type {Event} */ event) => onSound(/** @type {HTMLInputElement} */ (event.target).checked),
      }),
      t("settings.sound"),
    ),
  );
}
