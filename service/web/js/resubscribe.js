// What the service worker does when the browser replaces its push subscription ("pushsubscriptionchange":
// it expired, or the push service rotated it): subscribe again with the same VAPID key (the old
// subscription's, else the service's GET /v1/push-key) and tell every open tab, which holds the player's key
// (localStorage, out of a service worker's reach) and records the new subscription with the service
// (notify.js, keepSubscribed). A tab opened later finds the change itself. No DOM here: the service worker imports it.

/** The base64url VAPID key as the bytes `pushManager.subscribe` takes. @param {string} text */
export function keyBytes(text) {
  const base64 = (text + "=".repeat((4 - (text.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
}

export const CHANGED = "coins.push-subscription"; // the message to the tabs

/**
 * @param {{oldSubscription?: PushSubscription|null, newSubscription?: PushSubscription|null}} event
 * @param {{pushManager: PushManager}} registration the service worker's
 * @param {{matchAll: (options: object) => Promise<ReadonlyArray<{postMessage: (message: unknown) => void}>>}} clients the service worker's
 * @param {typeof fetch} fetcher
 * @returns {Promise<PushSubscription>}
 */
export async function resubscribe(event, registration, clients, fetcher) {
  let subscription = event.newSubscription ?? null;
  if (!subscription) {
    /** @type {BufferSource|null} */
    let applicationServerKey = event.oldSubscription?.options?.applicationServerKey ?? null;
    if (!applicationServerKey) {
      const answer = await fetcher("/v1/push-key", { headers: { Accept: "application/json" } });
      applicationServerKey = keyBytes((await answer.json()).public_key);
    }
    subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
  }
  const tabs = await clients.matchAll({ type: "window", includeUncontrolled: true });
  for (const tab of tabs) tab.postMessage({ type: CHANGED, subscription: subscription.toJSON() });
  return subscription;
}
