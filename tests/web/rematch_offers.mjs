// Rematch offers in three browsers (contract 1.3): Ana offers a rematch and waits for Bo and Cy; their
// finished tables (anonymous seats, long-polling the finished game) show "Ana wants a rematch: Accept /
// Decline"; Cy declines and every table says so; Bo offers again, Cy accepts from his lobby and Ana,
// last, at her table (the answer with her token slowed), and all three tables open the new game, dealt
// only once the last seat accepted, Ana's with her seat.

import assert from "node:assert/strict";

import { assertAccessible, assertNoConsoleErrors, assertNoTokenInUrls, createGame, openPage, playToTheEnd, scenario, screenshot } from "./browser.mjs";

const gameOf = (page) => decodeURIComponent(new URL(page.url()).hash.split("/")[2]);

await scenario(async (browser) => {
  const ana = await openPage(browser, { viewport: { width: 1280, height: 720 } });
  const finishedId = await createGame(ana, { name: "Ana", target: 1, seats: ["you", "open", "open"] });
  const links = await ana.locator("[data-invite]").evaluateAll((fields) => fields.map((field) => field.value));
  const bo = await openPage(browser, { viewport: { width: 1280, height: 720 } });
  const cy = await openPage(browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  for (const [index, [page, name]] of [[bo, "Bo"], [cy, "Cy"]].entries()) {
    await page.goto(links[index]);
    await page.fill("#join-name", name);
    await page.click("form button[type=submit]");
    await page.locator(".table").waitFor();
  }
  const people = [ana, bo, cy];
  await ana.locator(".table:not([data-status=waiting_for_players])").waitFor();
  await playToTheEnd(people);

  // Ana offers: only her seat is taken; she waits for Bo and Cy, who are asked.
  await ana.click("button[data-key=rematch]");
  await ana.locator("#rematch-waiting").waitFor();
  assert.match(await ana.locator("#rematch-waiting").innerText(), /waiting for Bo and Cy/);
  assert.equal(gameOf(ana), finishedId, "the asker left the finished table before the others answered");
  for (const page of [bo, cy]) {
    await page.locator("#rematch-offered").waitFor();
    assert.match(await page.locator("#rematch-offered").innerText(), /Ana wants a rematch/);
  }
  const offer = await bo.evaluate(async (id) => (await (await fetch(`/v1/games/${id}`)).json()).rematch, finishedId);
  const waiting = await bo.evaluate(async (id) => (await (await fetch(`/v1/games/${id}`)).json()).status, offer);
  assert.equal(waiting, "waiting_for_players", "the rematch started before Bo and Cy accepted");
  await assertAccessible(bo, "a finished table with a rematch offer");
  await assertAccessible(cy, "a rematch offer on a phone");
  await screenshot(bo, "rematch-offer", { fullPage: false });
  await screenshot(cy, "rematch-offer-phone", { fullPage: false });
  await screenshot(ana, "rematch-waiting", { fullPage: false });

  // Cy declines: the offer is cancelled, every table says so, and Rematch can be pressed again.
  await cy.click("#rematch-offered button[data-key=decline]");
  for (const page of people) {
    await page.locator("#rematch-cancelled").waitFor();
    assert.match(await page.locator("#rematch-cancelled").innerText(), /declined/);
    await page.locator("button[data-key=rematch]").waitFor();
  }
  await assertAccessible(ana, "a declined rematch offer");

  // Bo offers again: a new offer; Ana and Cy accept, and the last accept deals it for all three.
  await bo.click("button[data-key=rematch]");
  await bo.locator("#rematch-waiting").waitFor();
  for (const page of [ana, cy]) {
    await page.locator("#rematch-offered").waitFor();
    assert.match(await page.locator("#rematch-offered").innerText(), /Bo wants a rematch/);
  }
  // Cy, back in the lobby, finds the offer for his anonymous seat there and accepts it.
  await cy.goto(`${cy.url().split("#")[0]}#/`);
  const offered = cy.locator("[data-challenge=rematch]");
  await offered.waitFor();
  assert.match(await offered.innerText(), /Bo: a rematch of your game/);
  await assertAccessible(cy, "a phone's lobby with a rematch offer");
  await offered.locator("[data-key=accept]").click();
  await ana.locator("#rematch-offered").waitFor();
  // Ana accepts last, at her table: her accept deals it. Its answer (with her new seat's token) comes after
  // the offer's feed has told her table of the start; the table opens the new game only with the token.
  await ana.route("**/v1/games/*/rematch", async (route) => {
    const answer = await route.fetch();
    await ana.waitForTimeout(2000);
    await route.fulfill({ response: answer });
  });
  await ana.click("#rematch-offered button[data-key=accept]");
  for (const page of people) {
    await page.waitForURL((url) => !url.hash.includes(finishedId));
    await page.locator(".table:not([data-status=waiting_for_players])").waitFor();
  }
  await ana.locator(".your-hand").waitFor({ timeout: 10_000 });
  assert.equal(await ana.getByText("You are watching").count(), 0, "Ana's table opened before her seat's token came");
  const rematches = new Set(people.map(gameOf));
  assert.equal(rematches.size, 1, [...rematches].join(" / "));
  assert.notEqual([...rematches][0], offer, "the declined offer was played");
  await assertNoTokenInUrls(...people);
  assertNoConsoleErrors(...people);
});
