// One play per intent: a double click, two quick clicks on two cards, a double tap and a connection
// dropped after the play reached the service each play exactly one card, every POST with an Idempotency-Key;
// and while a completed trick is held on the table the hand takes no click, though the turn came with it.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, createGame, dealIfAsked, openPage, playsOf, scenario, screenshot, waitForMyTurn } from "./browser.mjs";

/** A game against two bots, with this page's seat (0) to play. */
async function myTurnAgainstBots(page) {
  const gameId = await createGame(page, { name: "Ana", target: 30, seats: ["you", "bot:basic", "bot:basic"] });
  await dealIfAsked(page);
  await waitForMyTurn(page);
  return gameId;
}

/** Wait until the page's hand has `count` cards, no request is in flight, and the table has caught up. */
async function handSettles(page, count) {
  await page.waitForFunction(
    (n) => document.querySelectorAll(".hand .card-button").length === n && !document.querySelector("[aria-busy=true]") && document.querySelector(".table[data-paced=false]"),
    count,
  ).catch(async (error) => {
    const seen = await page.evaluate(() => [document.querySelectorAll(".hand .card-button").length, document.querySelector("[aria-busy]")?.getAttribute("aria-busy"), document.querySelector(".table")?.dataset.paced]);
    await screenshot(page, `one_play-unsettled-${count}`);
    throw new Error(`the hand did not settle at ${count} cards: ${JSON.stringify(seen)} ${page.errors} ${error.message}`);
  });
}

/**
 * In the page: watch whether this seat's hand is ever playable while a completed trick is held on the table, and
 * count the tricks held on this seat's turn (the title says whose turn it is), the case watched.
 */
function watchHeldTricks() {
  window.held = { onMyTurn: 0, playable: false };
  let before = false;
  new MutationObserver(() => {
    const held = document.querySelector(".trick-slots.complete") !== null;
    const mine = held && document.title.startsWith("▶");
    if (mine && !before) window.held.onMyTurn += 1;
    before = mine;
    if (held && document.querySelector(".your-hand.your-turn")) window.held.playable = true;
  }).observe(document, { childList: true, subtree: true, attributes: true, characterData: true });
}

/** Record the Idempotency-Key of every POST the page sends. */
function recordKeys(page) {
  const keys = [];
  page.on("request", (request) => {
    if (request.method() === "POST") keys.push({ url: new URL(request.url()).pathname, key: request.headers()["idempotency-key"] });
  });
  return keys;
}

await scenario(async (browser) => {
  // A double click on one card, then two clicks on two cards 20 ms apart.
  const desk = await openPage(browser, { trickPauseMs: 400 });
  const keys = recordKeys(desk);
  const gameId = await myTurnAgainstBots(desk);
  await desk.locator(".your-turn .card-button").first().dblclick();
  await handSettles(desk, 15);
  assert.equal((await playsOf(desk, gameId, 0)).length, 1, "a double click played two cards");
  await waitForMyTurn(desk);
  // Where the first two cards are now: the second click lands there 20 ms after the first, whatever the page shows by then.
  const [first, second] = await desk.locator(".your-turn .card-button").evaluateAll((buttons) =>
    buttons.slice(0, 2).map((button) => {
      const box = button.getBoundingClientRect();
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    }),
  );
  await desk.mouse.click(first.x, first.y);
  await desk.waitForTimeout(20);
  await desk.mouse.click(second.x, second.y);
  await handSettles(desk, 14);
  assert.equal((await playsOf(desk, gameId, 0)).length, 2, "two quick clicks played two cards");
  const posts = keys.filter((item) => item.url.endsWith("/plays") || item.url.endsWith("/games") || item.url.endsWith("/hands"));
  assert.ok(posts.length >= 3, JSON.stringify(posts));
  for (const post of posts) assert.match(post.key ?? "", /^[0-9a-f]{32}$/, `${post.url} was sent without an Idempotency-Key`);
  assert.equal(new Set(posts.map((post) => post.key)).size, posts.length, "two POSTs shared a key");
  assertNoConsoleErrors(desk);

  // A double tap on a phone.
  const phone = await openPage(browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, trickPauseMs: 400 });
  const phoneGame = await myTurnAgainstBots(phone);
  const box = await phone.locator(".your-turn .card-button").first().boundingBox();
  if (!box) throw new Error("no card to tap");
  await phone.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2);
  await phone.touchscreen.tap(box.x + box.width / 2, box.y + box.height / 2); // the second tap of a double tap
  await handSettles(phone, 15);
  assert.equal((await playsOf(phone, phoneGame, 0)).length, 1, "a double tap played two cards");
  assertNoConsoleErrors(phone);

  // The seat that takes a trick leads the next: the turn comes with the trick's last card, while the trick is
  // held on the table for a while (900 ms here). A card clicked the moment the hand can be played never goes
  // into the next trick before that one has been shown.
  const holder = await openPage(browser, { trickPauseMs: 900 });
  await myTurnAgainstBots(holder);
  await holder.evaluate(watchHeldTricks);
  for (let play = 0; play < 16 && (await holder.evaluate(() => window.held.onMyTurn)) < 2; play += 1) {
    await holder.locator(".your-turn .card-button").first().click({ timeout: 30_000 });
  }
  const held = await holder.evaluate(() => window.held);
  assert.ok(held.onMyTurn >= 1, `no trick was held on this seat's turn: ${JSON.stringify(held)}`);
  assert.equal(held.playable, false, "the hand could be played while the trick it took was still held on the table");
  assertNoConsoleErrors(holder);

  // The connection drops after the play reached the service: the client retries with the same key,
  // gets the first answer again, and the card is played once.
  const flaky = await openPage(browser);
  const flakyGame = await myTurnAgainstBots(flaky);
  const tries = [];
  await flaky.route("**/v1/games/*/plays", async (route) => {
    tries.push(route.request().headers()["idempotency-key"]);
    if (tries.length === 1) {
      await route.fetch(); // the service applies the play ...
      await route.abort("connectionreset"); // ... and the answer is lost on the way back
    } else {
      await route.continue();
    }
  });
  const played = await flaky.locator(".your-turn .card-button").first().getAttribute("data-card");
  await flaky.locator(".your-turn .card-button").first().click();
  await handSettles(flaky, 15);
  assert.equal(tries.length, 2, `the play was tried ${tries.length} times`);
  assert.equal(tries[0], tries[1], "the retry carried another Idempotency-Key");
  assert.deepEqual(await playsOf(flaky, flakyGame, 0), [played]);
  assert.equal(await flaky.locator("[data-problem]").count(), 0, "the retried play showed an error");
  // The browser itself reports the request the test cut off; nothing else may appear.
  flaky.errors = flaky.errors.filter((error) => !(error.includes("ERR_CONNECTION_RESET") && error.includes("/plays")));
  assertNoConsoleErrors(flaky);
});
