// "Notify me when it is my turn": a signed-in player turns the switch on; permission is asked only then (granted
// here through the browser context); the service worker registers at /service-worker.js for the whole site; the
// browser's subscription is POSTed to the service (201) with the page's key; off, or signing out, deletes it. Headless Chromium has
// no push service to subscribe with, so the page's PushManager.subscribe answers a stand-in subscription (an
// endpoint on loopback, which the test server allows: WEBHOOK_ALLOW_NETWORKS) made of a real P-256 key.

import assert from "node:assert/strict";

import { BASE_URL, STEP_MS, assertAccessible, assertNoConsoleErrors, openPage, scenario, screenshot } from "./browser.mjs";

/** Before any script of the page: a PushManager that subscribes with a stand-in, and a count of permission asks. */
function standInPush() {
  window.permissionAsks = 0;
  const ask = Notification.requestPermission.bind(Notification);
  Notification.requestPermission = (...args) => ((window.permissionAsks += 1), ask(...args));
  let held = null;
  const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  PushManager.prototype.getSubscription = async () => held;
  PushManager.prototype.subscribe = async (options) => {
    window.subscribedWith = b64url(options.applicationServerKey);
    const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
    const p256dh = b64url(await crypto.subtle.exportKey("raw", pair.publicKey));
    const auth = b64url(crypto.getRandomValues(new Uint8Array(16)));
    const json = { endpoint: `https://127.0.0.1:9/push/${auth}`, expirationTime: null, keys: { p256dh, auth } };
    held = { toJSON: () => json, unsubscribe: async () => ((held = null), true) };
    return held;
  };
}

await scenario(async (browser) => {
  const page = await openPage(browser, { permissions: ["notifications"] });
  await page.context().addInitScript(standInPush);
  await page.reload();
  await page.fill("#player-name", "Ana");
  await page.click("#player-create button[type=submit]");
  const toggle = page.locator("#notify-switch");
  await toggle.waitFor();
  assert.equal(await toggle.isChecked(), false, "off until the player turns it on");
  assert.equal(await page.evaluate(() => window.permissionAsks), 0, "no permission asked before the player's action");
  assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0);
  assert.equal(await page.locator("label[for=notify-switch]").innerText(), "Notify me when it is my turn");
  await assertAccessible(page, "the notify switch");

  const created = page.waitForResponse((response) => response.url().endsWith("/v1/players/me/push-subscriptions") && response.request().method() === "POST");
  await toggle.check();
  const response = await created;
  assert.equal(response.status(), 201, await response.text());
  const posted = response.request().postDataJSON();
  assert.deepEqual(posted.types, ["your_turn"]);
  assert.match(posted.keys.p256dh, /^[A-Za-z0-9_-]{87}$/);
  assert.ok(response.request().headers().authorization?.startsWith("Bearer "), "sent with the player's key");
  const made = await response.json();
  assert.deepEqual(Object.keys(made).sort(), ["created_at", "id", "types"]);
  await page.waitForFunction(() => JSON.parse(localStorage.getItem("coins.notify") ?? "null")?.id);
  assert.equal(await page.evaluate(() => window.permissionAsks), 1, "asked once, after the switch");
  const key = await page.evaluate(async () => (await (await fetch("/v1/push/key")).json()).public_key);
  assert.equal(await page.evaluate(() => window.subscribedWith), key, "subscribed with the service's VAPID key");

  const worker = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return { scope: registration.scope, script: registration.active?.scriptURL ?? null };
  });
  assert.equal(worker.scope, `${BASE_URL}/`);
  assert.match(worker.script, /\/service-worker\.js\?lang=en$/);
  const served = await page.evaluate(async () => {
    const answer = await fetch("/service-worker.js");
    return { type: answer.headers.get("content-type"), allowed: answer.headers.get("service-worker-allowed"), csp: answer.headers.get("content-security-policy") };
  });
  assert.match(served.type, /javascript/);
  assert.equal(served.allowed, "/");
  assert.match(served.csp, /script-src 'self'/);
  await screenshot(page, "notify-on");

  // A push message reaches the service worker (delivered through the DevTools protocol, as a push service would):
  // it shows the turn's notification in the page's language, tagged by game.
  const cdp = await page.context().newCDPSession(page);
  const registrations = [];
  cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations: updated }) => registrations.push(...updated));
  await cdp.send("ServiceWorker.enable"); // the registrations come as events, after the answer: wait for ours
  let registration;
  for (let waited = 0; !registration && waited < STEP_MS; waited += 100) {
    registration = registrations.find((each) => each.scopeURL === `${BASE_URL}/` && !each.isDeleted);
    if (!registration) await page.waitForTimeout(100);
  }
  assert.ok(registration, JSON.stringify(registrations));
  const game = "0".repeat(26);
  const data = JSON.stringify({ type: "your_turn", game, turn_deadline: null });
  await cdp.send("ServiceWorker.deliverPushMessage", { origin: BASE_URL, registrationId: registration.registrationId, data });
  let shown = [];
  for (let waited = 0; shown.length === 0 && waited < STEP_MS; waited += 100) {
    shown = await page.evaluate(async () => {
      const notes = await (await navigator.serviceWorker.ready).getNotifications();
      return notes.map((note) => ({ title: note.title, body: note.body, tag: note.tag }));
    });
    if (shown.length === 0) await page.waitForTimeout(100);
  }
  assert.deepEqual(shown, [{ title: "Your turn", body: "It is your turn in a game of Coins.", tag: `your_turn:${game}` }]);

  // A reload keeps the switch on; off deletes the service's subscription.
  await page.reload();
  await page.locator("#notify-switch").waitFor();
  assert.equal(await page.locator("#notify-switch").isChecked(), true);
  const deleted = page.waitForResponse((answer) => answer.url().includes(`/push-subscriptions/${made.id}`) && answer.request().method() === "DELETE");
  await page.locator("#notify-switch").uncheck();
  assert.equal((await deleted).status(), 204);
  assert.equal(await page.evaluate(() => localStorage.getItem("coins.notify")), null);

  // On again, then signing out of this browser ends the subscription too (another player may sign in here).
  const again = page.waitForResponse((answer) => answer.url().endsWith("/push-subscriptions") && answer.request().method() === "POST");
  await page.locator("#notify-switch").check();
  const second = await (await again).json();
  await page.waitForFunction(() => localStorage.getItem("coins.notify"));
  const ended = page.waitForResponse((answer) => answer.url().includes(`/push-subscriptions/${second.id}`) && answer.request().method() === "DELETE");
  await page.goto(`${BASE_URL}/#/me`);
  await page.click("#key-forget");
  await page.click("#key-confirm");
  assert.equal((await ended).status(), 204);
  assert.equal(await page.evaluate(() => localStorage.getItem("coins.notify")), null);

  // Blocked notifications: the switch stays off and says why.
  const blocked = await openPage(browser);
  await blocked.context().addInitScript(standInPush);
  await blocked.context().addInitScript(() => {
    Notification.requestPermission = async () => "denied";
  });
  await blocked.reload();
  await blocked.fill("#player-name", "Bo");
  await blocked.click("#player-create button[type=submit]");
  await blocked.locator("#notify-switch").click(); // it turns itself off again
  await blocked.locator(".notify-note", { hasText: "blocked" }).waitFor();
  assert.equal(await blocked.locator("#notify-switch").isChecked(), false);
  await screenshot(blocked, "notify-blocked");
  assertNoConsoleErrors(page, blocked);
});
