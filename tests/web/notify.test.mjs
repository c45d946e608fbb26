// The turn's notification (service/web/js/notify.js): shown only when the turn becomes the player's while the tab is
// hidden and their switch is on (permission granted, this browser's subscription theirs), under the push message's
// tag; and the VAPID key's bytes as pushManager.subscribe takes them.

import assert from "node:assert/strict";
import { test } from "node:test";

const stored = new Map();
const shown = [];
globalThis.localStorage = { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => stored.set(key, value), removeItem: (key) => stored.delete(key) };
globalThis.document = { hidden: true };
globalThis.Notification = class {
  static permission = "granted";
  constructor(title, options) {
    shown.push({ title, ...options });
  }
};
globalThis.window = { PushManager: class {}, Notification: globalThis.Notification };
Object.defineProperty(globalThis, "navigator", { value: { serviceWorker: { getRegistration: async () => undefined }, languages: ["en"] }, configurable: true });

const { keyBytes, notifyOn, turnNotice } = await import("../../service/web/js/notify.js");
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("the VAPID key's base64url is its 65 bytes", () => {
  const bytes = Uint8Array.from({ length: 65 }, (_, index) => (index * 37) % 256);
  const text = Buffer.from(bytes).toString("base64url");
  assert.deepEqual(keyBytes(text), bytes);
});

test("the turn is notified once it becomes the player's while the tab is hidden and the switch is on", async () => {
  assert.equal(notifyOn("p1"), false, "off until this browser subscribed for the player");
  stored.set("coins.notify", JSON.stringify({ player: "p1", id: "s1" }));
  assert.equal(notifyOn("p1"), true);
  assert.equal(notifyOn("p2"), false, "another player's subscription is not theirs");
  const notice = turnNotice("g1");
  notice.update(true, "p1"); // the state the page opened on: not news
  notice.update(false, "p1");
  document.hidden = false;
  notice.update(true, "p1"); // looking at the table: nothing
  notice.update(false, "p1");
  document.hidden = true;
  notice.update(true, "p2"); // another player's switch is off
  notice.update(false, "p1");
  notice.update(true, "p1");
  await settle();
  assert.deepEqual(shown.map(({ title, tag, body }) => ({ title, tag, body })), [{ title: "Your turn", tag: "your_turn:g1", body: "It is your turn in a game of Coins." }]);
});

test("a browser's refusal of push is said in words, not as \"Something went wrong (20)\"", async () => {
  const { refusal } = await import("../../service/web/js/notify.js");
  const { ApiProblem } = await import("../../service/web/js/api.js");
  const refused = (name, code = 0) => Object.assign(new Error("refused"), { name, code });
  assert.equal(refusal(refused("AbortError", 20)), "notify.refused", "a private window's push service error");
  assert.equal(refusal(refused("InvalidStateError", 11)), "notify.refused");
  assert.equal(refusal(refused("NotAllowedError", 0)), "notify.blocked", "permission denied");
  assert.equal(refusal(refused("NotSupportedError", 9)), "notify.unsupported");
  assert.equal(refusal(new ApiProblem("network_error", 0, "down")), null, "the service's problems are said as any other");
});
