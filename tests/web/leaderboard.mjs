// The leaderboard once ratings settle: a player made in the browser plays rated games against two bots (by the API,
// target 1, as many as it takes, bounded) until the leaderboard lists them; the page ranks them, marks "you",
// and links their entry to their profile (with their key); a bot's profile shows none; an invitation taken as the
// player. (The bots, who met only this one player, stay provisional: games against the same opponent within a day
// count less, docs/ratings.md, so they need not be ranked.) On a phone, in every language, both boards fit the screen.

import assert from "node:assert/strict";
import http from "node:http";

import { BASE_URL, assertAccessible, assertNoConsoleErrors, openPage, scenario, screenshot } from "./browser.mjs";

const MAX_GAMES = 80; // a newcomer settles after about 25 such games (10 at least, and a sigma low enough)
const MAX_MS = 180_000;
const MAX_STEPS = 300; // requests within one game
const BASIC_BOT = "00000000000000000000000002"; // the basic bot's player (service/games/ids.py)

/** The addresses this scenario's API calls come from: their own, so that its many games leave the browser's (127.0.0.1)
 *  allowance for the scenarios after this one; and three, one per game in turn, since a newcomer needs some 40 games
 *  to settle and one address may create 30 a minute (the wait for the next minute was most of this scenario's time). */
const API_ADDRESSES = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];
let address = API_ADDRESSES[0];

/** One request from the current address: its status, headers and body text. */
function request(method, url, headers, body) {
  return new Promise((resolve, reject) => {
    const sent = http.request(url, { method, headers, localAddress: address, timeout: 30_000 }, (answer) => {
      let text = "";
      answer.setEncoding("utf8");
      answer.on("data", (chunk) => (text += chunk));
      answer.on("end", () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, text }));
    });
    sent.on("timeout", () => sent.destroy(new Error(`${method} ${url}: no answer in 30 s`)));
    sent.on("error", reject);
    sent.end(body);
  });
}

/** One call of the API with the player's key (a POST with an Idempotency-Key of its own). */
async function call(key, method, path, body) {
  const headers = { Authorization: `Bearer ${key}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method === "POST") headers["Idempotency-Key"] = crypto.randomUUID();
  for (let attempt = 0; ; attempt += 1) {
    const response = await request(method, `${BASE_URL}/v1${path}`, headers, body === undefined ? undefined : JSON.stringify(body));
    const data = JSON.parse(response.text);
    if (response.status >= 200 && response.status < 300) return data;
    // Games made quickly hit the creations' limit per address (30 a minute): wait as told, as a client should.
    if (response.status !== 429 || attempt >= 3) throw new Error(`${method} ${path}: ${response.status} ${data.code}`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(Number(response.headers["retry-after"] ?? "5"), 60) * 1000));
  }
}

/** A rated game, the player against two bots, played to its end (the first card in hand each time: hints are off in
 *  rated games). Bots of three strengths in turn: the leaderboard lists a player who has met three distinct opponents. */
async function playRatedGame(key, number) {
  address = API_ADDRESSES[number % API_ADDRESSES.length];
  const bots = [["random", "basic"], ["basic", "expert"], ["random", "expert"]][number % 3];
  const created = await call(key, "POST", "/games", { target_score: 1, rated: true, seats: [{ player: "me" }, ...bots.map((bot) => ({ bot }))] });
  const id = created.id;
  let game = created;
  for (let step = 0; step < MAX_STEPS && game.status !== "finished"; step += 1) {
    if (game.turn !== 0) {
      await new Promise((resolve) => setTimeout(resolve, 20)); // a bot's move, made by the server
      game = await call(key, "GET", `/games/${id}`);
    } else if (game.status === "waiting_for_deal") {
      game = (await call(key, "POST", `/games/${id}/hands`)).game;
    } else {
      const hand = await call(key, "GET", `/games/${id}/hand`);
      game = (await call(key, "POST", `/games/${id}/plays`, { card: hand.cards[0] })).game;
    }
  }
  assert.equal(game.status, "finished", `game ${id} did not finish`);
}

/** The worker applies a game's result just after it ends (docs/ratings.md): wait, bounded, until the player's rating
 *  counts every game played, so that the leaderboard and the profile read the same settled value. */
async function settle(key, id, games) {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const player = await call(key, "GET", `/players/${id}`);
    if (player.rating.games === games) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the rating of ${id} does not count ${games} games after 10 s`);
}

await scenario(async (browser) => {
  const page = await openPage(browser);
  await page.fill("#player-name", "Lee");
  await page.click("#player-create button[type=submit]");
  await page.locator("#play-now").waitFor();
  const { id, key } = await page.evaluate(() => JSON.parse(localStorage.getItem("coins.player") ?? "null"));

  const started = Date.now();
  let games = 0;
  const listed = async () => (await call(key, "GET", "/leaderboard?limit=100")).items.some((entry) => entry.player.id === id);
  while (!(await listed())) {
    assert.ok(games < MAX_GAMES && Date.now() - started < MAX_MS, `not on the leaderboard after ${games} rated games`);
    await playRatedGame(key, games);
    games += 1;
    await settle(key, id, games);
  }
  assert.ok(games >= 10, `listed after ${games} rated games: fewer than 10 is provisional`);

  await page.goto(`${BASE_URL}/#/leaderboard`);
  await page.locator(".ranking:not(.rising)").waitFor();
  const rows = await page.locator(".ranking:not(.rising) tbody tr").evaluateAll((lines) =>
    lines.map((line) => ({ player: line.getAttribute("data-player"), me: line.classList.contains("me"), cells: [...line.children].map((cell) => cell.textContent) })),
  );
  assert.deepEqual(rows.map((row) => Number(row.cells[0])), rows.map((_, index) => index + 1), "ranks 1, 2, 3 …");
  const values = rows.map((row) => Number(row.cells[2]));
  assert.deepEqual(values, [...values].sort((a, b) => b - a), "best first");
  const mine = rows.find((row) => row.player === id);
  assert.ok(mine && mine.me && mine.cells[1] === "Lee (you)", JSON.stringify(rows));
  await screenshot(page, "leaderboard");
  await assertAccessible(page, "the leaderboard");

  // On a phone, in every language, both boards (the bots are still rising) keep within the screen.
  const phone = await openPage(browser, { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await phone.goto(`${BASE_URL}/#/leaderboard`);
  for (const code of ["en", "es", "nl", "zh-Hant", "fr", "uk"]) {
    await phone.evaluate((language) => localStorage.setItem("coins.language", language), code);
    await phone.reload();
    await phone.locator(".ranking.rising tbody tr").first().waitFor();
    await phone.locator(".ranking:not(.rising) tbody tr").first().waitFor();
    // A phone's page grows to fit what is wider (innerWidth with it): measure against the screen and the panels.
    const overflow = await phone.evaluate(() => ({
      page: document.documentElement.scrollWidth - screen.width,
      boards: [...document.querySelectorAll(".ranking")].map((board) => board.getBoundingClientRect().right - board.closest(".panel").getBoundingClientRect().right),
    }));
    assert.ok(overflow.page <= 0 && overflow.boards.every((px) => px <= 0), `${code}: the leaderboard is wider than a phone ${JSON.stringify(overflow)}`);
    if (code === "es") await screenshot(phone, "leaderboard-phone-es");
  }

  // Your entry leads to your profile, settled, with your key; a bot's to its public profile, with none.
  await page.click(`.ranking:not(.rising) tr[data-player="${id}"] a`);
  await page.locator("#profile-rating[data-provisional=false]").waitFor();
  assert.equal(await page.locator("#profile-rating").innerText(), mine.cells[2]);
  assert.ok(Number(await page.locator("#profile-rated-games").innerText()) >= games);
  await page.locator(".key-panel").waitFor();
  await page.goto(`${BASE_URL}/#/player/${BASIC_BOT}`);
  await page.locator("#profile-rating").waitFor();
  assert.equal(await page.locator("#profile-title").innerText(), "Basic bot");
  assert.equal(await page.locator(".key-panel").count(), 0);

  // An invitation taken as the player: the seat is theirs by id, no seat token is kept, the key acts for it.
  const invited = await fetch(`${BASE_URL}/v1/games`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
    body: JSON.stringify({ target_score: 3, seats: [{ name: "Host" }, null, { bot: "basic" }] }),
  }).then((response) => response.json());
  await page.goto(`${BASE_URL}/#/game/${invited.id}/join?seat=1`);
  await page.click("#join-as-player");
  await page.locator(".table .your-hand").waitFor();
  const seated = await call(key, "GET", `/games/${invited.id}`);
  assert.equal(seated.seats[1].player, id);
  assert.equal(await page.evaluate((game) => localStorage.getItem(`coins.seat.${game}`), invited.id), null);
  await page.locator(`.seat-rating[data-player="${id}"]`).waitFor();
  assertNoConsoleErrors(page, phone);
});
