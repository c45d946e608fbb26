// Three people in three browsers: one creates the game, two join by its invitation links, all play it out live;
// then a fourth opens it, finished, and its log ends as theirs do, with who won.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, assertNoTokenInUrls, createGame, fairDealMarks, openPage, playToTheEnd, scenario } from "./browser.mjs";

await scenario(async (browser) => {
  const ana = await openPage(browser);
  await createGame(ana, { name: "Ana", target: 5, seats: ["you", "open", "open"] });
  const links = await ana.locator("[data-invite]").evaluateAll((fields) => fields.map((field) => field.value));
  assert.equal(links.length, 2);
  for (const link of links) assert.doesNotMatch(link, /token/i);

  const people = [ana];
  for (const [index, name] of ["Bo", "Cy"].entries()) {
    const page = await openPage(browser);
    await page.goto(links[index]);
    await page.fill("#join-name", name);
    await page.click("form button[type=submit]");
    await page.locator(".table").waitFor();
    people.push(page);
  }
  // Ana's page learns that both seats were taken from the event stream alone.
  await ana.locator(".table:not([data-status=waiting_for_players])").waitFor();

  for (const page of people) await page.evaluate(() => (window.stillTheSamePage = true));
  await playToTheEnd(people);
  for (const page of people) {
    assert.equal(await page.evaluate(() => window.stillTheSamePage), true, "a page was reloaded");
    await page.locator("#winner").waitFor();
    const marks = await fairDealMarks(page);
    assert.ok(marks.verified >= 1 && marks.failed === 0, JSON.stringify(marks));
  }
  const winners = await Promise.all(people.map((page) => page.locator("#winner").innerText()));
  assert.equal(new Set(winners.map((text) => text.replace(/ \(you\)/, ""))).size, 1, winners.join(" / "));
  // The players' logs end with who won; so does the log of someone who opens the game once it is over.
  const watcher = await openPage(browser);
  await watcher.goto(ana.url());
  await watcher.locator("#winner").waitFor();
  await watcher.locator(".log li").nth(20).waitFor(); // the moves, read from the game's actions
  for (const page of [...people, watcher]) {
    assert.match(await page.locator(".log li").last().innerText(), /won the game\.$/);
  }
  await assertNoTokenInUrls(...people);
  assertNoConsoleErrors(...people, watcher);
});
