// A person who lets the turn clock run out twice in a row loses the seat to a bot (contract 1.3): the table says
// so, shows no hand, Hint or Leave, and stays live as a spectator's; so does a browser that comes back to the
// game later with the seat's token still kept (a reload; the server's bots may have finished the game by then), with
// no refused request on the way, and with the log's line saying why the seat went.

import assert from "node:assert/strict";

import { assertNoConsoleErrors, openPage, scenario, screenshot, tableState } from "./browser.mjs";

const CLOCK_SECONDS = 5; // the service's shortest turn clock (the form offers 15 s and up): two lapses in about 10 s
const LOST_MS = 60_000; // two deadlines, the worker's stand-in moves and the pacer's pauses, with room to spare

/** The table as a spectator of a seat given to a bot sees it. */
async function assertSeatLost(page, gameId, what) {
  await page.locator(".table-main .message.info", { hasText: "a bot plays your seat now" }).waitFor({ timeout: LOST_MS });
  assert.equal(await page.locator(".your-hand").count(), 0, `${what}: no hand`);
  assert.equal(await page.locator("button[data-key=leave], button[data-key=hint]").count(), 0, `${what}: no Leave, no Hint`);
  assert.doesNotMatch(await page.locator("#status-line").innerText(), /your turn/i, `${what}: the status line`);
  assert.equal(await page.locator(".seat-you").count(), 0, `${what}: no seat is this browser's`);
  assert.equal(await page.locator(".dismissable .message.error").count(), 0, `${what}: no problem shown`);
  assert.equal(await page.evaluate((id) => localStorage.getItem(`coins.seat.${id}`), gameId), null, `${what}: the seat is forgotten`);
  // Live: the bots play on, and the table shows it (to the end, if the server's bots got there first).
  const { version } = await tableState(page);
  await page.waitForFunction((seen) => Number(document.querySelector(".table")?.dataset.version) > seen || document.getElementById("winner"), version, { timeout: LOST_MS });
}

await scenario(async (browser) => {
  const page = await openPage(browser);
  await page.locator("#create-timeout").evaluate((select, seconds) => select.append(new Option(`${seconds} s`, String(seconds))), CLOCK_SECONDS);
  await page.selectOption("#create-timeout", String(CLOCK_SECONDS));
  // Created with Enter in the form: the table then has the focus, the form being gone.
  await page.fill("#create-name", "Away");
  await page.fill("#create-target", "15");
  for (const [seat, choice] of ["you", "bot:basic", "bot:basic"].entries()) await page.selectOption(`#create-seat-${seat}`, choice);
  await page.press("#create-target", "Enter");
  await page.locator(".table").waitFor();
  await page.waitForFunction(() => document.activeElement?.classList.contains("table-view"));
  await page.keyboard.press("Tab"); // the next Tab is the table's, not the header's
  assert.ok(await page.evaluate(() => document.querySelector(".table-view").contains(document.activeElement)), "Tab left the table");
  const gameId = decodeURIComponent(new URL(page.url()).hash.split("/")[2]);
  const token = await page.evaluate((id) => localStorage.getItem(`coins.seat.${id}`), gameId);
  assert.ok(token, "the seat's token is kept");
  // Nobody plays: the worker's stand-in moves for the seat at each deadline, and at the second a bot takes it.
  await assertSeatLost(page, gameId, "live");
  const seat = await page.evaluate((id) => fetch(`/v1/games/${id}`).then((answer) => answer.json()).then((game) => game.seats[0]), gameId);
  assert.equal(seat.bot, "basic");
  const log = await page.locator(".log").innerText();
  assert.match(log, /Your time ran out; a bot plays seat 1 now\./, "the log says whose seat it was, and why it went");
  assert.doesNotMatch(log, /Seat 1 (left|ran out)|You left/, "not as another's, nor as a Leave");
  assert.doesNotMatch(log, /Away ran out of time/, "the stand-in's moves told as another's once the seat was lost");
  await screenshot(page, "lapse-live");
  // The clock was urgent as the seat's time ran out; with nothing left to count (a bot's turn has no deadline), no
  // empty mark stays.
  assert.equal(await page.locator(".turn-clock.urgent").count(), 0, "the clock's urgent mark outlived its text");

  // A browser that was closed meanwhile still keeps the token: coming back, the table says what happened, and its log
  // has the line the live table wrote, at the same place (read back from the game's feed: the stream starts with the
  // state, not the changes before it).
  const lost = "Your time ran out; a bot plays seat 1 now.";
  const untilLost = (text) => text.slice(0, text.indexOf(lost) + lost.length);
  await page.evaluate(([id, kept]) => localStorage.setItem(`coins.seat.${id}`, kept), [gameId, token]);
  await page.reload();
  await assertSeatLost(page, gameId, "after a reload");
  await page.locator(".log", { hasText: lost }).waitFor();
  const reloaded = await page.locator(".log").innerText();
  assert.equal(untilLost(reloaded), untilLost(log), "the log after a reload, up to the seat lost");
  assert.equal(reloaded.split(lost).length, 2, "the line once");
  await screenshot(page, "lapse-reload");
  assertNoConsoleErrors(page);
});
