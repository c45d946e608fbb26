// Shared steps of the browser tests: start chromium, open pages that record console errors, drive the client.

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

import { AxeBuilder } from "@axe-core/playwright";
import { chromium } from "playwright-core";

export const BASE_URL = process.env.COINS_BASE_URL ?? "http://127.0.0.1:8000";
export const ARTIFACTS = process.env.COINS_WEB_ARTIFACTS ?? "web-artifacts";
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];
export const STEP_MS = 30_000; // the longest a single step (a bot's reply, an event) may take

/** Chromium, headless. */
export const launch = () => chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });

/**
 * A page in a fresh context (its own localStorage, like another person's browser) that
 * records every console error and uncaught exception in `page.errors`.
 * @param {import("playwright-core").Browser} browser
 * @param {import("playwright-core").BrowserContextOptions} [options]
 */
export async function openPage(browser, { trickPauseMs = 60, ...options } = {}) {
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1280, height: 900 }, ...options });
  // A short trick pause keeps whole games quick; the pacing scenario sets its own.
  await context.addInitScript((pause) => localStorage.setItem("coins.trickPauseMs", String(pause)), trickPauseMs);
  await context.addInitScript(() => {
    // What appeared on the page at any moment, however briefly: a trick held with its reason, a hand's summary.
    window.seen = new Set();
    new MutationObserver(() => {
      for (const id of ["trick-reason", "hand-summary"]) if (document.getElementById(id)) window.seen.add(id);
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.errors = [];
  page.urls = [];
  page.intents = [];
  page.on("request", (request) => {
    page.urls.push(request.url());
    if (request.method() === "POST") page.intents.push(`${new URL(request.url()).pathname} ${request.headers()["idempotency-key"] ?? ""}`);
  });
  page.on("console", (message) => {
    if (message.type() === "error") page.errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => page.errors.push(`page: ${error.message}`));
  await page.goto(`${BASE_URL}/`);
  await page.locator("#create-name").waitFor();
  return page;
}

/**
 * How many intents the page POSTed to `path` (each Idempotency-Key once: the retries of one intent are one):
 * a double click that made two games, two challenges or two answers counts two.
 */
export const postsTo = (page, path) => new Set(page.intents.filter((intent) => intent.startsWith(`${path} `))).size;

/** The plays of a game's seat so far, read from the API (listActions). */
export async function playsOf(page, gameId, seat) {
  return page.evaluate(
    async ({ id, who }) => {
      const answer = await fetch(`/v1/games/${id}/actions?limit=500`).then((response) => response.json());
      return answer.items.filter((action) => action.kind === "play" && action.seat === who).map((action) => action.card);
    },
    { id: gameId, who: seat },
  );
}

/** What the page has shown at some moment (see openPage): e.g. "trick-reason", "hand-summary". */
export const seenOnPage = (page) => page.evaluate(() => [...window.seen]);

/** Wait until this seat may play: its turn, nothing in flight, the table caught up. */
export async function waitForMyTurn(page) {
  await page.locator(".table[data-paced=false] .your-turn .card-button").first().waitFor();
}

/** The cards and the hand's buttons the shown hint lies over (their card codes, or their keys). @param {import("playwright-core").Page} page */
export function coveredByHint(page) {
  return page.evaluate(() => {
    const boxes = [document.getElementById("hint"), document.querySelector("#hint [data-key=dismiss-hint]")].map((element) => element.getBoundingClientRect());
    const overlaps = (box) => boxes.some((hint) => hint.top < box.bottom && box.top < hint.bottom && hint.left < box.right && box.left < hint.right);
    return [...document.querySelectorAll(".your-hand .card-button, .hand-head button")].filter((element) => overlaps(element.getBoundingClientRect())).map((element) => element.dataset.card ?? element.dataset.key);
  });
}

/**
 * What the table cuts off as it is drawn now: a button of the hand whose label does not fit it or that lies past the
 * hand's head, a seat's line (its name, rating, counts, roles) longer or taller than its box, the status line (with its
 * turn clock) taller than its lines. Each as "what: its text".
 * The seats' names must be short enough to be whole (a long name is cut by design). @param {import("playwright-core").Page} page
 */
export function cutOnTable(page) {
  return page.evaluate(() => {
    const cut = (element) => element.scrollWidth > element.clientWidth + 1 || element.scrollHeight > element.clientHeight + 1;
    const head = document.querySelector(".hand-head")?.getBoundingClientRect();
    const outside = (element) => {
      const box = element.getBoundingClientRect();
      return !head || box.left < head.left - 1 || box.right > head.right + 1 || box.top < head.top - 1 || box.bottom > head.bottom + 1;
    };
    const buttons = [...document.querySelectorAll(".hand-head button")].filter((button) => cut(button) || outside(button));
    const lines = [...document.querySelectorAll(".seat-card > div, .seat-given")].filter(cut);
    const status = [...document.querySelectorAll(".status-line")].filter((line) => line.scrollHeight > line.clientHeight + 1); // its clock's margin may pass its end
    return [...buttons, ...lines, ...status].map((element) => `${element.dataset.key ?? element.className}: ${element.textContent}`);
  });
}

/** Fail if any page logged an error (a CSP violation is one too). */
export function assertNoConsoleErrors(...pages) {
  assert.deepEqual(pages.flatMap((page) => page.errors), []);
}

/** Fail if a seat's token (as the pages keep them in localStorage) appears in any URL any page requested. */
export async function assertNoTokenInUrls(...pages) {
  const tokens = [];
  for (const page of pages) {
    const stored = await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("coins.seat.")).map((key) => localStorage.getItem(key)));
    tokens.push(...stored.map((value) => JSON.parse(value).token));
  }
  assert.ok(tokens.length > 0, "no token was kept");
  const leaks = pages.flatMap((page) => page.urls).filter((url) => tokens.some((token) => url.includes(token) || url.includes(encodeURIComponent(token))));
  assert.deepEqual(leaks, []);
}

export async function screenshot(page, name, { fullPage = true } = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
}

/** Fail on any serious or critical axe-core violation on the page as it is now (WCAG 2 A and AA rules). */
export async function assertAccessible(page, what) {
  const { violations } = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const bad = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  assert.deepEqual(
    bad.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).slice(0, 3).join(", ")}`),
    [],
    `axe-core on ${what}`,
  );
}

/** Fail unless every element `selector` matches lies wholly inside the viewport (no scrolling needed). */
export async function assertOnScreen(page, selector, what) {
  const outside = await page.locator(selector).evaluateAll((elements) =>
    elements
      .map((element) => element.getBoundingClientRect())
      .filter((box) => box.top < 0 || box.left < 0 || box.bottom > window.innerHeight || box.right > window.innerWidth)
      .map((box) => `${Math.round(box.left)},${Math.round(box.top)}–${Math.round(box.right)},${Math.round(box.bottom)}`),
  );
  const size = page.viewportSize();
  assert.deepEqual(outside, [], `${what} is not all on a ${size?.width}×${size?.height} screen`);
}

/**
 * Create a game from the lobby form. `seats`: three of "you", "open", "bot:random|basic|expert".
 * @returns {Promise<string>} the game's id
 */
export async function createGame(page, { name, target = 5, seats = ["you", "bot:basic", "bot:random"] }) {
  await page.fill("#create-name", name);
  await page.fill("#create-target", String(target));
  for (const [seat, choice] of seats.entries()) await page.selectOption(`#create-seat-${seat}`, choice);
  await page.click("form[aria-labelledby=create-title] button[type=submit]"); // the lobby's player form comes first
  await page.locator(".table").waitFor();
  return decodeURIComponent(new URL(page.url()).hash.split("/")[2]);
}

/** The table's status attribute and version. */
export const tableState = (page) =>
  page.locator(".table").evaluate((table) => ({ status: table.dataset.status, version: Number(table.dataset.version) }));

/**
 * Wait until a fresh table has its hand in play or asks this seat to deal, and deal if asked. The
 * deal button appears only once the table has its state and is not busy, so a look the moment the
 * table appears can miss it (and then the game waits for this seat forever). `tap`: a touch, not a click.
 */
export async function dealIfAsked(page, { tap = false } = {}) {
  const deal = page.locator("button[data-key=deal]");
  await page.locator(".table[data-status=playing]").or(deal).first().waitFor({ timeout: STEP_MS });
  if (await deal.isVisible()) await (tap ? deal.tap() : deal.click());
  await page.locator(".table[data-status=playing]").waitFor({ timeout: STEP_MS });
}

/**
 * Take this seat's next action if it is its turn: deal, or play its first card (by keyboard
 * when `keyboard`). Returns whether it acted.
 */
export async function actIfMyTurn(page, { keyboard = false } = {}) {
  const deal = page.locator("button[data-key=deal]");
  if (await deal.isVisible()) {
    await deal.click();
    return true;
  }
  const cards = page.locator(".your-turn .card-button");
  if (!(await cards.count())) return false;
  if (keyboard) {
    await cards.first().focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Enter");
  } else {
    await cards.first().click();
  }
  return true;
}

/**
 * Wait until the table's version passes `version`, the game is finished, or this seat may act
 * (the hand unlocks once a play's events are shown, which need not change the version).
 */
export async function waitForChange(page, version) {
  await page.waitForFunction(
    (seen) => {
      const table = document.querySelector(".table");
      const canAct = document.querySelector(".your-turn .card-button, button[data-key=deal]");
      return table && (Number(table.dataset.version) > seen || table.dataset.status === "finished" || canAct);
    },
    version,
    { timeout: STEP_MS },
  );
}

/**
 * Play on from these pages (one per person at the table) until the game is finished: in each
 * step the first page whose turn it is acts; when none can, wait for a change to arrive.
 * Nothing ever reloads a page, so every other player's move must arrive live.
 */
export async function playToTheEnd(pages, { maxSteps = 600, keyboard = false, onStep = async () => {} } = {}) {
  for (let step = 0; step < maxSteps; step += 1) {
    const states = await Promise.all(pages.map(tableState));
    if (states.every((state) => state.status === "finished")) return step;
    await onStep(step);
    let acted = false;
    for (const [index, page] of pages.entries()) {
      if (states[index].status === "finished" || !(await actIfMyTurn(page, { keyboard }))) continue;
      await waitForChange(page, states[index].version);
      acted = true;
      break;
    }
    if (!acted) await Promise.any(pages.map((page, index) => waitForChange(page, states[index].version)));
  }
  throw new Error(`the game did not finish within ${maxSteps} steps`);
}

/** The fair-deal marks the page shows: how many hands were verified and whether any warning is up. */
export async function fairDealMarks(page) {
  await page.locator("[data-verified]").first().waitFor();
  await page.waitForFunction(() => !document.querySelector("[data-check]:not([data-verified])"), null, { timeout: STEP_MS });
  return {
    verified: await page.locator("[data-verified=true]").count(),
    failed: await page.locator("[data-verified=false]").count(),
  };
}

/** Run a scenario: chromium up, `body(browser)`, chromium down; a failure exits non-zero with its message. */
export async function scenario(body) {
  const browser = await launch();
  try {
    await body(browser);
  } finally {
    await browser.close();
  }
}
