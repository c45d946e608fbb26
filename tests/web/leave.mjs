// Leaving hands the seat to a bot: the page says so, its log says you left, it turns into a spectator's, and the bots
// play the game out. Then seeded games, which the lobby, the table and the record panel mark (and no other game). Last,
// a seat open in two browsers: a card played in both at once is one play, which the browser that lost the race shows as
// what happened (no error; a real refusal is still shown), and a Leave in one is told in the other as yours, not as the
// turn clock's; a Deal in both at once deals once, and neither shows an error.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, createGame, openPage, playsOf, scenario, screenshot, waitForMyTurn } from "./browser.mjs";

await scenario(async (browser) => {
  const page = await openPage(browser);
  const gameId = await createGame(page, { name: "Ana", target: 3, seats: ["you", "bot:random", "bot:random"] });
  await page.click("button[data-key=leave]");
  await page.click("button[data-key=leave-yes]");
  await page.locator(".message.info", { hasText: "You left the game; a bot plays your seat" }).waitFor();
  await page.locator(".log", { hasText: "You left seat 1; a bot plays it now." }).waitFor();
  assert.doesNotMatch(await page.locator(".log").innerText(), /Seat 1 left/, "your own Leave logged as another's");
  await page.locator("#winner").waitFor(); // three bots finish the game by themselves
  assert.equal(await page.locator("button[data-key=leave]").count(), 0);
  assert.equal(await page.evaluate((id) => localStorage.getItem(`coins.seat.${id}`), gameId), null);
  assert.equal(await page.locator("[data-seeded]").count(), 0, "an unseeded game is not marked seeded");

  const create = (body) =>
    page.evaluate(async (json) => {
      const response = await fetch("/v1/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(json) });
      return (await response.json()).id;
    }, body);
  const openSeats = [{ bot: "random" }, null, null];
  const seededOpen = await create({ seats: openSeats, target_score: 3, seed: "browser-seeded-open" });
  const unseededOpen = await create({ seats: openSeats, target_score: 3 });
  const seededBots = await create({ seats: [{ bot: "random" }, { bot: "random" }, { bot: "random" }], target_score: 1, seed: "browser-seeded-bots" });

  await page.evaluate(() => (location.hash = "#/"));
  await page.locator(`.open-games li[data-game="${seededOpen}"]`).waitFor();
  await page.locator(`.open-games li[data-game="${unseededOpen}"]`).waitFor();
  const badge = page.locator(`li[data-game="${seededOpen}"] .badge.seeded`);
  assert.equal(await badge.textContent(), "Seeded");
  assert.match(await badge.getAttribute("title") ?? "", /anyone who knows the seed knows every hand/);
  assert.equal(await page.locator(`li[data-game="${unseededOpen}"] [data-seeded]`).count(), 0);

  await page.evaluate((id) => (location.hash = `#/game/${encodeURIComponent(id)}`), seededOpen);
  await page.locator(".table-main .message.seeded", { hasText: "anyone who knows the seed knows every hand" }).waitFor();

  await page.evaluate((id) => (location.hash = `#/game/${encodeURIComponent(id)}`), seededBots);
  await page.locator("#winner").waitFor(); // three bots to one point, played out by the server
  assert.equal(await page.locator(".table-main .message.seeded").count(), 1, "the finished table marks a seeded game");
  assert.equal(await page.locator(".game-record .message.seeded").count(), 1, "its record panel too");
  assertNoConsoleErrors(page);

  // One seat open in two browsers (its token in both), in a game with a turn clock, dealt by the server for seat 1 to
  // lead; seats 2 and 3 are people who do not play, so that nothing else moves.
  const created = await page.evaluate(async () => {
    const body = { target_score: 15, turn_timeout_seconds: 600, auto_deal: true, first_dealer: 2, seats: [{ name: "Di" }, { name: "Ed" }, { name: "Flo" }] };
    const answer = await fetch("/v1/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    return answer.json();
  });
  const held = { seat: 0, token: created.credentials[0].token };
  const [here, there] = [await openPage(browser), await openPage(browser)];
  for (const device of [here, there]) {
    await device.evaluate(([id, seat]) => localStorage.setItem(`coins.seat.${id}`, JSON.stringify(seat)), [created.id, held]);
    await device.evaluate((id) => (location.hash = `#/game/${encodeURIComponent(id)}`), created.id);
    await device.locator(".your-hand").waitFor();
  }
  // Chromium reports a refused play's 409 in the console: those are expected.
  const refused = (line) => /status of 409 .*\/plays\)$/.test(line);

  // A refusal with nothing moved on is an error, shown as such: the game is where the page shows it.
  await waitForMyTurn(here);
  await here.route("**/plays", (route) =>
    route.fulfill({ status: 409, contentType: "application/problem+json", body: JSON.stringify({ type: "urn:coins:problem:not_your_turn", title: "Not your turn", status: 409, detail: "it is not your turn", code: "not_your_turn" }) }),
  );
  await here.locator(".card-button").first().click();
  await here.locator('.dismissable [data-problem="not_your_turn"]').waitFor();
  here.errors = here.errors.filter((line) => !refused(line));
  await here.unroute("**/plays");
  await here.click("button[data-key=dismiss]");

  // A card in each at the same moment (both sent before either is answered): one is played. The browser whose card
  // lost shows the other's play, says so in its log, and shows no error: the player did nothing wrong.
  for (const device of [here, there]) await waitForMyTurn(device);
  let release = () => {};
  const bothSent = new Promise((resolve) => (release = resolve));
  let sent = 0;
  for (const device of [here, there]) await device.route("**/plays", async (route) => ((sent += 1) === 2 && release(), await bothSent, route.continue()));
  const cards = await here.locator(".card-button").evaluateAll((buttons) => buttons.slice(0, 2).map((button) => button.dataset.card));
  await Promise.all([here.click(`.card-button[data-card="${cards[0]}"]`), there.click(`.card-button[data-card="${cards[1]}"]`)]);
  const note = "Your seat had already played this turn";
  const lost = await Promise.any([here, there].map((device) => device.locator(".log", { hasText: note }).waitFor().then(() => device)));
  const [played] = await playsOf(here, created.id, 0);
  const mine = lost === here ? cards[0] : cards[1];
  assert.equal(played, lost === here ? cards[1] : cards[0], "the card of the browser that won the race");
  await lost.locator(`.card-button[data-card="${played}"]`).waitFor({ state: "detached" }); // the other's play, shown here
  assert.equal(await lost.locator(`.card-button[data-card="${mine}"]`).count(), 1, "the card that lost stays in the hand");
  for (const device of [here, there]) assert.equal(await device.locator(".dismissable .message.error").count(), 0, "no error for a race lost");
  await screenshot(lost, "leave-race-lost");
  lost.errors = lost.errors.filter((line) => !refused(line));
  await Promise.all([here.unroute("**/plays"), there.unroute("**/plays")]);

  // Leave in one, and the other says you left, not that your time ran out.
  await there.click("button[data-key=leave]");
  await there.click("button[data-key=leave-yes]");
  await here.locator(".table-main .message.info", { hasText: "You left the game; a bot plays your seat" }).waitFor();
  await here.locator(".log", { hasText: "You left seat 1; a bot plays it now." }).waitFor();
  assert.doesNotMatch(await here.locator(".table-main").innerText(), /time ran out/, "a Leave elsewhere told as the clock");

  // Deal in both at the same moment (both sent before either is answered): the hand is dealt once, and the browser
  // whose Deal was refused (409 hand_in_progress) shows the hand dealt, not an error.
  const undealt = await page.evaluate(async () => {
    const body = { target_score: 15, first_dealer: 0, seats: [{ name: "Gus" }, { name: "Hal" }, { name: "Ivy" }] };
    const answer = await fetch("/v1/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    return answer.json();
  });
  const dealer = { seat: 0, token: undealt.credentials[0].token };
  for (const device of [here, there]) {
    await device.evaluate(([id, seat]) => localStorage.setItem(`coins.seat.${id}`, JSON.stringify(seat)), [undealt.id, dealer]);
    await device.evaluate((id) => (location.hash = `#/game/${encodeURIComponent(id)}`), undealt.id);
    await device.locator("button[data-key=deal]").waitFor();
  }
  let releaseDeals = () => {};
  const bothDealt = new Promise((resolve) => (releaseDeals = resolve));
  let deals = 0;
  for (const device of [here, there]) await device.route("**/hands", async (route) => ((deals += 1) === 2 && releaseDeals(), await bothDealt, route.continue()));
  const dealAnswer = (device) => device.waitForResponse((answer) => answer.url().endsWith("/hands") && answer.request().method() === "POST");
  const gameRead = (device) => device.waitForResponse((answer) => answer.request().method() === "GET" && answer.url().endsWith(`/games/${undealt.id}`));
  const answers = Promise.all([dealAnswer(here), dealAnswer(there)]);
  const reads = [gameRead(here), gameRead(there)].map((read) => read.catch(() => null)); // the winner reads none: closed unanswered
  await Promise.all([here.click("button[data-key=deal]"), there.click("button[data-key=deal]")]);
  const statuses = (await answers).map((answer) => answer.status());
  assert.equal(statuses.filter((status) => status === 409).length, 1, `one Deal dealt, the other refused: ${statuses}`);
  const refusedHere = statuses[0] === 409;
  const [loser, loserRead] = refusedHere ? [here, reads[0]] : [there, reads[1]];
  await Promise.race([loserRead, loser.locator(".dismissable .message.error").waitFor()]); // the game read again, or an error shown
  for (const device of [here, there]) await device.locator(".your-hand .card-button").first().waitFor();
  assert.equal(await loser.locator(".dismissable .message.error").count(), 0, "no error for a Deal the other browser made first");
  loser.errors = loser.errors.filter((line) => !/status of 409 .*\/hands\)$/.test(line));
  await Promise.all([here.unroute("**/hands"), there.unroute("**/hands")]);
  assertNoConsoleErrors(here, there);
});
