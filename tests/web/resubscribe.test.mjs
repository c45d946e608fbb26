// A replaced push subscription (service/web/js/resubscribe.js, service/web/js/notify.js): the service worker
// subscribes again with the same VAPID key and tells the open tabs; a tab records the new subscription with the
// service under the player's key and removes the one it replaces, also when the change came while no tab was open.

import assert from "node:assert/strict";
import { test } from "node:test";

const stored = new Map();
const requests = [];
let madeCount = 0;
const listeners = [];
let current = null; // the browser's subscription, as the page's registration answers it
globalThis.localStorage = { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => stored.set(key, value), removeItem: (key) => stored.delete(key) };
globalThis.document = { hidden: false };
globalThis.Notification = class {
  static permission = "granted";
};
globalThis.window = { PushManager: class {}, Notification: globalThis.Notification };
const serviceWorker = {
  addEventListener: (type, listener) => listeners.push({ type, listener }),
  getRegistration: async () => ({ pushManager: { getSubscription: async () => current } }),
};
Object.defineProperty(globalThis, "navigator", { value: { serviceWorker, languages: ["en"] }, configurable: true });
globalThis.fetch = async (url, options = {}) => {
  requests.push({ url, method: options.method ?? "GET", auth: options.headers?.Authorization, body: options.body ? JSON.parse(options.body) : null });
  const made = options.method === "POST" ? { id: `s${(madeCount += 1)}` } : null;
  return new Response(made ? JSON.stringify(made) : null, { status: made ? 201 : 204, headers: { "Content-Type": "application/json" } });
};

const { CHANGED, keyBytes, resubscribe } = await import("../../service/web/js/resubscribe.js");
const { keepSubscribed } = await import("../../service/web/js/notify.js");

const subscription = (endpoint) => ({ endpoint, toJSON: () => ({ endpoint, keys: { p256dh: "P", auth: "A" } }) });

test("the service worker subscribes again with the old subscription's key and tells every open tab", async () => {
  const key = keyBytes("BA");
  const subscribed = [];
  const registration = { pushManager: { subscribe: async (options) => (subscribed.push(options), subscription("https://push.example/new")) } };
  const told = [];
  const clients = { matchAll: async () => [{ postMessage: (message) => told.push(message) }, { postMessage: (message) => told.push(message) }] };
  const fetcher = async () => assert.fail("the old subscription's key is used, not fetched");
  await resubscribe({ oldSubscription: { options: { applicationServerKey: key } } }, registration, clients, fetcher);
  assert.deepEqual(subscribed, [{ userVisibleOnly: true, applicationServerKey: key }]);
  assert.equal(told.length, 2);
  assert.deepEqual(told[0], { type: CHANGED, subscription: { endpoint: "https://push.example/new", keys: { p256dh: "P", auth: "A" } } });
});

test("without the old subscription's key it takes the service's, and a new subscription given is used as it is", async () => {
  const publicKey = Buffer.from(Uint8Array.from({ length: 65 }, (_, index) => index)).toString("base64url");
  const subscribed = [];
  const registration = { pushManager: { subscribe: async (options) => (subscribed.push(options), subscription("https://push.example/b")) } };
  const clients = { matchAll: async () => [] };
  const fetcher = async (url) => (assert.equal(url, "/v1/push-key"), new Response(JSON.stringify({ public_key: publicKey })));
  await resubscribe({ oldSubscription: null }, registration, clients, fetcher);
  assert.deepEqual(subscribed[0].applicationServerKey, keyBytes(publicKey));
  const given = await resubscribe({ newSubscription: subscription("https://push.example/c") }, registration, clients, fetcher);
  assert.equal(given.endpoint, "https://push.example/c");
  assert.equal(subscribed.length, 1, "the browser's new subscription is not replaced again");
});

test("a tab records the replaced subscription under the player's key and removes the old record", async () => {
  stored.set("coins.notify", JSON.stringify({ player: "p1", id: "old", endpoint: "https://push.example/a" }));
  current = subscription("https://push.example/b"); // replaced while no tab was open
  await keepSubscribed("KEY", "p1");
  assert.deepEqual(
    requests.map(({ url, method, auth }) => ({ url, method, auth })),
    [
      { url: "/v1/players/me/push-subscriptions", method: "POST", auth: "Bearer KEY" },
      { url: "/v1/players/me/push-subscriptions/old", method: "DELETE", auth: "Bearer KEY" },
    ],
  );
  assert.deepEqual(requests[0].body, { endpoint: "https://push.example/b", keys: { p256dh: "P", auth: "A" }, types: ["your_turn"] });
  assert.equal(JSON.parse(stored.get("coins.notify")).endpoint, "https://push.example/b");
  requests.length = 0;
  const [{ type, listener }] = listeners;
  assert.equal(type, "message");
  listener({ data: { type: CHANGED, subscription: { endpoint: "https://push.example/c", keys: { p256dh: "P2", auth: "A2" } } } });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(requests.map(({ method }) => method), ["POST", "DELETE"]);
  assert.equal(requests[0].body.endpoint, "https://push.example/c");
  await keepSubscribed("KEY", "p1");
  assert.equal(listeners.length, 1, "kept once per page");
});
