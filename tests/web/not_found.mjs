// Pages that are not a game: an unknown or malformed game id gets a page in the reader's language with the
// way back to the lobby (axe-core clean), and the API docs at /docs load without a failed request (no
// favicon 404). No console errors anywhere.

import assert from "node:assert/strict";

import { BASE_URL, assertAccessible, assertNoConsoleErrors, openPage, scenario, screenshot } from "./browser.mjs";

/**
 * Record every request that failed or was answered with an error status, on `page.failed`; not one the
 * browser gave up itself because the page moved on (`net::ERR_ABORTED`: a navigation cut a favicon's load
 * short in one CI run), which no server did.
 */
function recordFailures(page) {
  page.failed = [];
  page.on("requestfailed", (request) => {
    const error = request.failure()?.errorText;
    if (error !== "net::ERR_ABORTED") page.failed.push(`${request.url()} (${error})`);
  });
  page.on("response", (response) => response.status() >= 400 && page.failed.push(`${response.url()} (${response.status()})`));
}

/**
 * Only the lookup of the game that is not there may fail (404), nothing else; the browser reports that
 * answer in the console ("Failed to load resource"), which is the only console error allowed.
 */
function assertOnlyTheGameMissing(page, gameId) {
  const game = `${BASE_URL}/v1/games/${gameId}`;
  assert.deepEqual(page.failed, [`${game} (404)`]);
  const reported = (error) => error.includes("status of 404") && error.endsWith(`(${game})`);
  assert.equal(page.errors.filter(reported).length, 1);
  page.errors = page.errors.filter((error) => !reported(error));
  page.failed = [];
}

/** A link whose id cannot be a game's: its page comes without asking the service anything. */
function assertNothingAsked(page) {
  assert.deepEqual(page.failed, []);
  assert.deepEqual(page.urls.filter((url) => url.includes("/v1/games/")), []);
}

const UNKNOWN = "01jd00000000000000000000zz"; // 26 characters of Crockford base32, as a game's id is

await scenario(async (browser) => {
  const page = await openPage(browser, { viewport: { width: 1280, height: 720 } });
  recordFailures(page);
  await page.goto(`${BASE_URL}/#/game/${UNKNOWN}`);
  await page.locator("[data-missing=game]").waitFor();
  assert.equal(await page.locator("#missing-title").textContent(), "Game not found");
  assert.match(await page.locator("[data-missing=game]").textContent(), new RegExp(`no game with the id “${UNKNOWN}”`));
  await assertAccessible(page, "the unknown-game page");
  await screenshot(page, "unknown-game", { fullPage: false });
  assertOnlyTheGameMissing(page, UNKNOWN);
  // The way back works.
  await page.click("[data-missing=game] a[data-key=lobby]");
  await page.locator("#create-name").waitFor();

  // The same in Spanish, for an invitation link to a game that is not there, and for a cut-off escape.
  await page.selectOption("#language", "es");
  await page.goto(`${BASE_URL}/#/game/${UNKNOWN.replace("zz", "yy")}/join?seat=1`);
  await page.locator("[data-missing=game]").waitFor();
  assert.equal(await page.locator("#missing-title").textContent(), "No se encuentra la partida");
  assert.equal(await page.locator("[data-missing=game] a[data-key=lobby]").textContent(), "Volver al inicio");
  assertOnlyTheGameMissing(page, UNKNOWN.replace("zz", "yy"));
  page.urls = [];
  for (const id of ["NO-SUCH-GAME", "%E0%A4%A", "x".repeat(300)]) {
    await page.goto(`${BASE_URL}/#/game/${id}`);
    await page.locator("[data-missing=game]").waitFor();
    assert.equal(await page.locator("#missing-title").textContent(), "No se encuentra la partida");
  }
  await assertAccessible(page, "the unknown-game page, in Spanish");
  assertNothingAsked(page);
  assertNoConsoleErrors(page);

  // The API docs: Swagger UI from local assets, its icon included; nothing fails.
  const docs = await openPage(browser);
  recordFailures(docs);
  await docs.goto(`${BASE_URL}/docs`);
  await docs.locator(".swagger-ui .info .title").waitFor();
  await docs.waitForLoadState("networkidle");
  const icon = await docs.evaluate(() => fetch("/favicon.ico").then((answer) => ({ status: answer.status, type: answer.headers.get("content-type") })));
  assert.deepEqual(icon, { status: 200, type: "image/svg+xml; charset=utf-8" });
  assert.deepEqual(docs.failed, []);
  assertNoConsoleErrors(docs);
});
