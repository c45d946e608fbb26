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
