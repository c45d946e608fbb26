// A tiny DOM builder: h("button", {class: "primary", onclick}, "Deal"), and text helpers.

/** @typedef {Node|string|number|null|false|undefined} Leaf */
/** A child to append: a node or text (null, undefined and false are skipped), or arrays of them. */
/** @typedef {Leaf|Array<Leaf|Leaf[]>} Child */

/**
 * An element with attributes, properties (`on…` listeners, `value`, `checked`, `disabled`)
 * and children (nodes or strings; null and false are skipped).
 * @template {keyof HTMLElementTagNameMap} Tag
 * @param {Tag} tag
 * @param {Record<string, any>} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[Tag]}
 */
export function h(tag, attrs = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "value" || name === "checked" || name === "disabled") Object.assign(element, { [name]: value });
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** @param {Element} parent @param {Child[]} children */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

/** Replace everything inside `parent` with `children`. @param {Element} parent @param {...Child} children */
export function replace(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * Keep the keyboard where it was after a render: on the element with the same `data-key`, or,
 * when it is gone (a card just played), on the one of `fallback` that took its place.
 * @param {Element} root @param {string|undefined} key @param {number} index @param {string} fallback
 */
export function restoreFocus(root, key, index, fallback) {
  if (!key) return;
  let target = root.querySelector(`[data-key="${CSS.escape(key)}"]`);
  if (!target && key.startsWith("card:")) {
    const candidates = root.querySelectorAll(fallback);
    target = candidates[Math.min(Math.max(index, 0), candidates.length - 1)] ?? null;
  }
  if (target instanceof HTMLElement) target.focus({ preventScroll: true }); // drawn again where it was: no scroll
}

/**
 * A handler that runs one request at a time (a POST: a game made, a seat taken, a challenge sent or answered):
 * while it is in flight a second call does nothing, and the control that started it (a button, or a form's
 * submit buttons) is disabled and marked busy, so a double click or a second tap makes it once.
 * @template {Event} E @param {(event: E) => unknown} step @returns {(event: E) => Promise<void>}
 */
export function oneAtATime(step) {
  let running = false;
  return async (event) => {
    if (event.type === "submit") event.preventDefault();
    if (running) return;
    running = true;
    const from = event.currentTarget;
    const controls = from instanceof HTMLFormElement ? [...from.querySelectorAll("button")].filter((button) => button.type === "submit") : from instanceof HTMLButtonElement ? [from] : [];
    for (const control of controls) (control.disabled = true), control.setAttribute("aria-busy", "true");
    try {
      await step(event);
    } finally {
      running = false;
      for (const control of controls) (control.disabled = false), control.removeAttribute("aria-busy");
    }
  };
}
