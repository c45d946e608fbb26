// "Notify me when it is my turn": a Web Push subscription for the signed-in player (asked for only
// after they turn the switch on), the Notifications API while a table's tab is hidden, and the
// service worker (/service-worker.js) that shows push messages while no tab is open.

import { h } from "./dom.js";
import { language, t } from "./i18n.js";
import * as api from "./api.js";
import { CHANGED, keyBytes } from "./resubscribe.js";

export { keyBytes };

const NOTIFY_KEY = "coins.notify"; // {player, id, endpoint}: the push subscription this browser made, and for whom
const WORKER = "/service-worker.js";
export const TYPES = ["your_turn"]; // what the switch asks for

/** Whether this browser can take push messages at all. */
export const supported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

/** @returns {{player: string, id: string, endpoint?: string}|null} */
function loadNotify() {
  try {
    const value = JSON.parse(localStorage.getItem(NOTIFY_KEY) ?? "null");
    return value && typeof value.player === "string" && typeof value.id === "string" ? value : null;
  } catch {
    return null;
  }
}

/** Whether notifications are on for `playerId` in this browser (the switch's state). @param {string} playerId */
export const notifyOn = (playerId) => supported() && Notification.permission === "granted" && loadNotify()?.player === playerId;

/** The service worker, registered for the whole site (its texts in the page's language). */
export const registerWorker = () => navigator.serviceWorker.register(`${WORKER}?lang=${encodeURIComponent(language())}`, { scope: "/", type: "module" });

/**
 * Turn push on for the key's player: permission (asked here, after the player's action), the
 * service worker, the browser's subscription with the service's VAPID key, and the service's record of it.
 * @param {string} key @param {string} playerId @returns {Promise<"on"|"blocked">}
 */
export async function turnOn(key, playerId) {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return "blocked";
  await registerWorker();
  const registration = await navigator.serviceWorker.ready;
  const { public_key: publicKey } = await api.getPushKey();
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
  await record(key, playerId, subscription.toJSON());
  return "on";
}

/** The service's record of `subscription` for the key's player, replacing this browser's earlier one. @param {string} key @param {string} playerId @param {PushSubscriptionJSON} subscription */
async function record(key, playerId, subscription) {
  const held = loadNotify();
  const made = await api.createPushSubscription(key, { ...subscription, types: TYPES });
  localStorage.setItem(NOTIFY_KEY, JSON.stringify({ player: playerId, id: made.id, endpoint: subscription.endpoint }));
  if (held && held.id !== made.id) await api.deletePushSubscription(key, held.id).catch(() => null); // gone already: nothing to undo
}

const kept = new Set(); // the players whose subscription this page keeps

/**
 * While notifications are on for the key's player, keep the service's record of this browser's
 * subscription current: when the service worker subscribed again (the browser replaced the
 * subscription: its message), and once now, for a change made while no tab was open.
 * @param {string} key @param {string} playerId @returns {Promise<void>}
 */
export async function keepSubscribed(key, playerId) {
  if (!notifyOn(playerId) || kept.has(playerId)) return;
  kept.add(playerId);
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data?.type === CHANGED && notifyOn(playerId)) record(key, playerId, event.data.subscription).catch(() => null);
  });
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = await registration?.pushManager.getSubscription();
  if (subscription && subscription.endpoint !== loadNotify()?.endpoint) await record(key, playerId, subscription.toJSON());
}

/** Turn push off: the service forgets the subscription, and the browser drops it. @param {string} key */
export async function turnOff(key) {
  const held = loadNotify();
  localStorage.removeItem(NOTIFY_KEY);
  if (held) await api.deletePushSubscription(key, held.id).catch(() => null); // gone already: nothing to undo
  if (!supported()) return;
  const registration = await navigator.serviceWorker.getRegistration("/");
  await (await registration?.pushManager.getSubscription())?.unsubscribe();
}

/** Signing out: the player's push subscription from this browser ends too (another player may sign in here). @param {string} key @param {string} playerId */
export function forgetNotify(key, playerId) {
  if (loadNotify()?.player === playerId) turnOff(key).catch(() => null);
}

/**
 * What to say when the browser, not the service, refused push (a DOMException: permission denied, a private
 * window's push service, no push here): a message key, or null for the service's own problems, said as any other.
 * @param {unknown} error
 */
export function refusal(error) {
  if (error instanceof api.ApiProblem || !(error instanceof Error || (error && typeof error === "object" && "name" in error))) return null;
  const name = /** @type {{name: string}} */ (error).name;
  if (name === "NotAllowedError") return "notify.blocked";
  if (name === "NotSupportedError") return "notify.unsupported";
  return "notify.refused"; // AbortError ("push service error", as in a private window), InvalidStateError, …
}

/**
 * The switch of the signed-in player's panel.
 * @param {string} key @param {string} playerId @param {(error: unknown) => void} onError
 */
export function notifySwitch(key, playerId, onError) {
  const note = h("p", { class: "notify-note", role: "status" });
  const input = h("input", { type: "checkbox", id: "notify-switch", role: "switch", checked: notifyOn(playerId), disabled: !supported() });
  keepSubscribed(key, playerId).catch(() => null);
  if (!supported()) note.textContent = t("notify.unsupported");
  input.addEventListener("change", async () => {
    input.disabled = true;
    note.textContent = "";
    try {
      if (input.checked && (await turnOn(key, playerId)) === "blocked") {
        input.checked = false;
        note.textContent = t("notify.blocked");
      } else if (!input.checked) await turnOff(key);
    } catch (error) {
      input.checked = notifyOn(playerId);
      const refused = refusal(error);
      if (refused) note.textContent = t(refused);
      else onError(error);
    } finally {
      input.disabled = false;
    }
  });
  return h("div", { class: "notify" }, h("label", { for: "notify-switch" }, input, " ", t("notify.label")), note);
}

/** A notification now (a table's tab is hidden), as the service worker shows a push message: one per game and turn. @param {string} gameId */
async function showTurn(gameId) {
  const options = { body: t("notify.body"), tag: `your_turn:${gameId}`, icon: "/web/img/favicon.svg", data: { game: gameId } };
  const registration = await navigator.serviceWorker.getRegistration("/");
  if (registration) return registration.showNotification(t("notify.title"), options);
  new Notification(t("notify.title"), options);
}

/**
 * The turn's notification for one table: `update(yourTurn, playerId)` after each render tells the
 * player, while the tab is hidden and their switch is on, when the turn becomes theirs.
 * @param {string} gameId
 */
export function turnNotice(gameId) {
  /** @type {boolean|null} */
  let was = null;
  return {
    /** @param {boolean} yourTurn @param {string|null} playerId */
    update(yourTurn, playerId) {
      if (was === false && yourTurn && document.hidden && playerId && notifyOn(playerId)) showTurn(gameId).catch(() => null);
      was = yourTurn;
    },
  };
}
