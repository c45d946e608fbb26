// Rematch offers between signed-in players in three browsers: Ana offers from her finished table; Bo's table
// hears of it on his player feed and shows Accept / Decline; Cy, back in the lobby, finds it beside
// challenges and accepts there; Bo accepts last, and all three tables open the rematch.

import assert from "node:assert/strict";

import { assertAccessible, assertNoConsoleErrors, openPage, playToTheEnd, scenario, screenshot } from "./browser.mjs";

/** Create a player by name in the lobby's player panel; returns the player's id. */
async function createPlayer(page, name) {
  await page.fill("#player-name", name);
  await page.click("#player-create button[type=submit]");
  await page.locator("#play-now").waitFor();
  return page.evaluate(() => JSON.parse(localStorage.getItem("coins.player") ?? "null").id);
}

/** A request with the page's player key. */
const asPlayer = (page, method, path, body) =>
  page.evaluate(
    async ({ method, path, body }) => {
      const { key } = JSON.parse(localStorage.getItem("coins.player") ?? "null");
      const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
      const response = await fetch(`/v1${path}`, { method, headers, body: body && JSON.stringify(body) });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
    { method, path, body },
  );

const base = (page) => page.url().split("#")[0];
const gameOf = (page) => decodeURIComponent(new URL(page.url()).hash.split("/")[2]);

await scenario(async (browser) => {
  const [ana, bo, cy] = await Promise.all([0, 1, 2].map(() => openPage(browser, { viewport: { width: 1280, height: 720 } })));
  await createPlayer(ana, "Ana");
  const boId = await createPlayer(bo, "Bo");
  const cyId = await createPlayer(cy, "Cy");
  const created = await asPlayer(ana, "POST", "/games", { seats: [{ player: "me" }, { player: boId }, { player: cyId }], target_score: 1 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const finishedId = created.body.id;
  for (const page of [bo, cy]) assert.equal((await asPlayer(page, "POST", `/games/${finishedId}/players`, { player: "me" })).status, 201);
  const people = [ana, bo, cy];
  for (const page of people) {
    await page.goto(`${base(page)}#/game/${finishedId}`);
    await page.locator(".table:not([data-status=waiting_for_players])").waitFor();
  }
  await playToTheEnd(people);

  await ana.click("button[data-key=rematch]");
  await ana.locator("#rematch-waiting").waitFor();
  await bo.locator("#rematch-offered").waitFor(); // from Bo's player feed
  assert.match(await bo.locator("#rematch-offered").innerText(), /Ana wants a rematch/);

  // Cy finds the offer in his lobby, beside challenges, and accepts it there.
  await cy.goto(`${base(cy)}#/`);
  const offered = cy.locator("[data-challenge=rematch]");
  await offered.waitFor();
  assert.match(await offered.innerText(), /Ana: a rematch of your game/);
  await assertAccessible(cy, "the lobby with a rematch offer");
  await screenshot(cy, "rematch-lobby", { fullPage: false });
  await offered.locator("[data-key=accept]").click();
  await cy.locator("#rematch-waiting").waitFor(); // back at the finished table, the offer waits for Bo
  assert.equal(gameOf(cy), finishedId);
  assert.match(await cy.locator("#rematch-waiting").innerText(), /waiting for Bo/);

  await bo.click("#rematch-offered button[data-key=accept]");
  for (const page of people) {
    await page.waitForURL((url) => !url.hash.includes(finishedId));
    await page.locator(".table:not([data-status=waiting_for_players])").waitFor();
  }
  assert.equal(new Set(people.map(gameOf)).size, 1);
  assertNoConsoleErrors(...people);
});
