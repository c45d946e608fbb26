// Your cards as a row of buttons: play by click, tap or keyboard (arrow keys move, Enter plays).

import { cardFace } from "./cards.js";
import { h } from "./dom.js";
import { cardName } from "./i18n.js";

/** @typedef {import("./types.js").CardCode} CardCode */

/**
 * @param {{cards: CardCode[], playable: boolean, hinted: CardCode|null, onPlay: (card: CardCode) => void,
 *          label: string}} options
 */
export function handView({ cards, playable, hinted, onPlay, label }) {
  const list = h("ul", { class: "hand", "aria-label": label });
  cards.forEach((card, index) => {
    const name = cardName(card);
    const button = h(
      "button",
      {
        type: "button",
        class: `card-button${card === hinted ? " hinted" : ""}`,
        "data-key": `card:${card}`,
        "data-card": card,
        "aria-disabled": playable ? null : "true",
        tabindex: index === 0 ? "0" : "-1",
        // One play per intent: the second click of a double click (detail 2) is not a second play.
        onclick: (/** @type {MouseEvent} */ event) => playable && event.detail <= 1 && onPlay(card),
      },
      cardFace(card),
      h("span", { class: "visually-hidden" }, name),
    );
    list.append(h("li", {}, button));
  });
  list.addEventListener("keydown", (event) => moveFocus(list, event));
  list.addEventListener("focusin", (event) => {
    for (const button of list.querySelectorAll("button")) button.tabIndex = button === event.target ? 0 : -1;
  });
  return list;
}

const STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

/**
 * Roving focus: one card is in the tab order, the arrow keys, Home and End move among them.
 * @param {HTMLElement} list @param {KeyboardEvent} event
 */
function moveFocus(list, event) {
  const buttons = [...list.querySelectorAll("button")];
  const at = buttons.findIndex((button) => button === document.activeElement);
  if (at < 0) return;
  let next = at;
  if (event.key in STEPS) next = (at + STEPS[/** @type {keyof typeof STEPS} */ (event.key)] + buttons.length) % buttons.length;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = buttons.length - 1;
  else return;
  event.preventDefault();
  buttons[next].focus();
}
