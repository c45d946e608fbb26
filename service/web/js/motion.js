// Cards that move: a played card travels from its hand (or its player's seat) to the table, a completed trick
// to the seat that won it. Nothing moves with prefers-reduced-motion; only transforms move, so no layout does.

const PLAY_MS = 280;
const TAKE_MS = 420;

/** @typedef {{left: number, top: number, width: number, height: number}} Box */

const reducedMotion = () => globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? true;

/** @param {Element} element @returns {Box} */
const boxOf = (element) => {
  const { left, top, width, height } = element.getBoundingClientRect();
  return { left, top, width, height };
};

/** The table's trick slots holding a card, by card. @param {ParentNode} root @returns {Map<string, HTMLElement>} */
const slotsOf = (root) => new Map([...root.querySelectorAll(".trick-slots .slot.played")].map((slot) => [slot.getAttribute("data-card") ?? "", /** @type {HTMLElement} */ (slot)]));

/**
 * Call `before()` just before the table is drawn again and `after()` just after: what changed between
 * them moves. @param {HTMLElement} view the table's root
 */
export function cardMotion(view) {
  /** @type {Map<string, Box>} */ let hand = new Map();
  /** @type {Map<string, Box>} */ let seats = new Map();
  /** @type {Map<string, {box: Box, face: Node|null}>} */ let trick = new Map();
  /** @type {string|null} the winning seat of the completed trick that was on the table */ let winner = null;

  function before() {
    hand = new Map([...view.querySelectorAll(".your-hand .card-button")].map((button) => [button.getAttribute("data-card") ?? "", boxOf(button)]));
    seats = new Map([...view.querySelectorAll(".seat-card")].map((seat) => [seat.getAttribute("data-seat") ?? "", boxOf(seat)]));
    const slots = view.querySelector(".trick-slots");
    winner = slots?.classList.contains("complete") ? (slots.querySelector(".slot.winner")?.getAttribute("data-seat") ?? null) : null;
    trick = new Map([...slotsOf(view)].map(([card, slot]) => [card, { box: boxOf(slot.querySelector(".card-face") ?? slot), face: winner === null ? null : (slot.querySelector(".card-face")?.cloneNode(true) ?? null) }]));
  }

  function after() {
    if (reducedMotion() || !view.isConnected) return;
    const now = slotsOf(view);
    for (const [card, slot] of now) {
      if (trick.has(card)) continue;
      const face = slot.querySelector(".card-face");
      if (!face) continue;
      const to = boxOf(face);
      const fromHand = hand.get(card);
      const fromSeat = seats.get(slot.getAttribute("data-seat") ?? "");
      if (fromHand) travel(face, fromHand, to, fromHand.width / Math.max(to.width, 1));
      else if (fromSeat) travel(face, fromSeat, to, 0.5); // from the middle of its player's seat, small
    }
    const to = winner === null ? undefined : seats.get(winner);
    // A trick that goes as a hand's summary or the result is laid over the table stays under it: no copy of its
    // cards may cross what is now on top.
    if (!to || view.querySelector(".over-trick")) return;
    for (const [card, { box, face }] of trick) if (!now.has(card) && face) take(face, box, to);
  }

  return { before, after };
}

/** A card just put on the table comes from where it was. @param {Element} face @param {Box} from @param {Box} to @param {number} scale */
function travel(face, from, to, scale) {
  const dx = from.left + from.width / 2 - (to.left + to.width / 2);
  const dy = from.top + from.height / 2 - (to.top + to.height / 2);
  face.animate([{ transform: `translate(${dx}px, ${dy}px) scale(${scale})` }, { transform: "none" }], { duration: PLAY_MS, easing: "ease-out" });
}

/** A card of a trick just taken goes to the seat that won it (a copy, over the page, then gone). @param {Node} face @param {Box} from @param {Box} to */
function take(face, from, to) {
  const ghost = document.createElement("div");
  ghost.className = "card-ghost";
  ghost.setAttribute("aria-hidden", "true");
  ghost.style.left = `${from.left}px`;
  ghost.style.top = `${from.top}px`;
  ghost.style.width = `${from.width}px`;
  ghost.append(face);
  document.body.append(ghost);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const animation = ghost.animate(
    [{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(0.4)`, opacity: 0 }],
    { duration: TAKE_MS, easing: "ease-in", fill: "forwards" },
  );
  const remove = () => ghost.remove();
  animation.finished.then(remove, remove);
}
