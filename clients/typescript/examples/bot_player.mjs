// @ts-check
/**
 * A bot player, as examples/bot_player.py is in Python, on the coins-client package: it keeps a
 * player key, queues for quick play, and plays game after game from its own feed (`followPlayer`,
 * the package's typed reader: resumes with `Last-Event-ID`, a silence timeout, an error when the
 * feed is lost): `player` → act in the games that wait, else queue; `match_found`, `game_started`
 * → a new table; `your_turn` → deal, or play a random card of the hand it carries; `game_result`
 * → the place and the rating change, then queue again until `--games` are done. A waiting ticket
 * is re-read every 25 seconds (it expires after 30 unread); a ticket of an earlier run (`409
 * already_queued`, whose `ticket` member names it) is cancelled and this run's queued in its place
 * (one matched meanwhile brings its game, which is played); with no game and no ticket, it queues
 * again within 5 seconds. Every POST carries an
 * `Idempotency-Key`, kept across its retries (network errors, 5xx, 429 after `Retry-After`,
 * `409 idempotency_key_in_use`), so the server applies it once.
 *
 *   node examples/bot_player.mjs --base-url http://127.0.0.1:8000 --key-file ~/.coins-bot.key --games 3
 *
 * With `--webhook URL` it follows no stream: it makes a webhook pointing at `URL` (the public https
 * address where `--listen HOST:PORT` is reached: HTTPS with `--tls-cert` and `--tls-key`, or plain
 * HTTP behind a proxy that ends TLS), sleeps until a signed delivery arrives, verifies it (`verify`:
 * the Standard Webhooks scheme, docs/players.md "Notifications") and acts on it as on a feed event;
 * a delivery that does not verify is answered 401 and ignored. It deletes the webhook as it stops.
 *
 * As it stops, however (done, out of time, an error, Ctrl-C or SIGTERM), it cancels a waiting ticket
 * and deletes its webhook. It takes the options examples/bot_player.py takes (`--help` lists them;
 * `--seed` seeds its own generator, so a seed repeats a run of this bot, not of the Python one), and
 * exits as it does: 0 the games were played; 1 an error (the problem is printed); 2 `--timeout` ran
 * out, or the options were wrong; 130 (SIGINT) or 143 (SIGTERM) stopped.
 */
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createCoinsClient, followPlayer } from "coins-client";

/** @typedef {import("coins-client").PlayerEvent} PlayerEvent */
/** @typedef {import("coins-client").components["schemas"]} Schemas */

const RETRIES = 4; // a request is tried at most 5 times
const TICKET_EVERY_MS = 25_000; // between reads of a waiting ticket (it expires after 30 s unread)
const QUEUE_AGAIN_EVERY_MS = 5_000; // between looks at the ticket (and tries to queue when there is none)
const TOLERANCE_SECONDS = 300; // a delivery's timestamp at most five minutes from now
const MOST_BODY = 1024 * 1024;
/** Refusals that only mean the game moved on before our request arrived: the feed says what next. */
const STALE = ["not_your_turn", "no_hand_in_progress", "hand_in_progress", "game_finished", "not_dealer"];
const WEBHOOK_TYPES = /** @type {const} */ (["your_turn", "match_found", "game_started", "game_result", "rematch_offered"]);

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `--timeout` ran out before the games were played. */
class OutOfTime extends Error {}

/** A signal stopped the bot before its games were played; `status` is the process's exit status. */
export class Stopped extends Error {
  constructor(/** @type {string} */ message, /** @type {number} */ status) {
    super(message);
    this.status = status;
  }
}

/** `fetch` with an `Idempotency-Key` on every POST and bounded retries of what may succeed later. */
export async function fetchWithRetries(/** @type {Request} */ request) {
  if (request.method === "POST" && !request.headers.has("Idempotency-Key")) request.headers.set("Idempotency-Key", randomUUID());
  for (let attempt = 0; ; attempt++) {
    let wait = Math.min(250 * 2 ** attempt, 30_000) * (0.5 + Math.random() / 2);
    try {
      const response = await fetch(request.clone());
      const inUse = response.status === 409 && (await response.clone().text()).includes("idempotency_key_in_use");
      if (!(response.status >= 500 || response.status === 429 || inUse) || attempt >= RETRIES) return response;
      wait = Number(response.headers.get("Retry-After")) * 1000 || wait;
    } catch (error) {
      if (attempt >= RETRIES) throw error; // the network: the request may or may not have arrived
    }
    await sleep(Math.min(wait, 30_000));
  }
}

/**
 * The event a delivery carries, if its Standard Webhooks signature is `secret`'s and its timestamp
 * recent; else null. The HMAC-SHA256, keyed with the secret's bytes (base64 after `whsec_`), of
 * `<webhook-id>.<webhook-timestamp>.<body>`, in base64, is one of the `v1,` signatures.
 * @param {string} secret @param {Record<string, string | string[] | undefined>} headers @param {Buffer} body
 * @returns {PlayerEvent | null}
 */
export function verify(secret, headers, body, now = Date.now() / 1000) {
  const [id, timestamp, signatures] = ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => String(headers[name] ?? ""));
  if (!id || !/^\d+$/.test(timestamp ?? "") || Math.abs(now - Number(timestamp)) > TOLERANCE_SECONDS) return null;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
  const matches = (signatures ?? "").split(" ").some((signature) => {
    const [version, value] = signature.split(",");
    const given = Buffer.from(value ?? "", "base64");
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? JSON.parse(body.toString("utf8")) : null;
}

/** A server listening on `listen` (`host:port`) whose verified deliveries go to `onEvent`, each `webhook-id` once. */
async function receive(/** @type {string} */ secret, /** @type {string} */ listen, /** @type {{cert?: string, key?: string}} */ tls, /** @type {(event: PlayerEvent) => void} */ onEvent) {
  const seen = new Set(); // a retry of a delivery handled is acknowledged, not handled again
  /** @type {import("node:http").RequestListener} */
  const handler = (request, response) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    request.on("data", (/** @type {Buffer} */ chunk) => {
      size += chunk.length;
      if (size <= MOST_BODY) chunks.push(chunk);
    });
    request.on("end", () => {
      const event = size <= MOST_BODY ? verify(secret, request.headers, Buffer.concat(chunks)) : null;
      response.writeHead(size > MOST_BODY ? 413 : event ? 204 : 401).end();
      const id = request.headers["webhook-id"];
      if (event && !seen.has(id)) {
        seen.add(id);
        onEvent(event);
      }
    });
  };
  const server = tls.cert && tls.key
    ? createHttpsServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, handler)
    : createHttpServer(handler);
  const colon = listen.lastIndexOf(":");
  await new Promise((resolve, reject) => {
    server.once("error", reject); // a port taken, an address not ours
    server.listen(Number(listen.slice(colon + 1)), listen.slice(0, colon) || "127.0.0.1", () => resolve(undefined));
  });
  return server;
}

/** Numbers in [0, 1): seeded (mulberry32) when `seed` is given, else `Math.random`. */
export function randomSource(/** @type {number | undefined} */ seed) {
  if (seed === undefined) return Math.random;
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs the bot until its games are played, `--timeout` runs out (`finished` false) or `interrupt`
 * aborts (its reason is thrown); the `game_result` events, one per game, and the events read.
 * @param {Options} options @param {AbortSignal | undefined} interrupt
 */
export async function runBot(options, interrupt = undefined) {
  const { baseUrl, games } = options;
  const random = randomSource(options.seed);
  const key = await loadKey(baseUrl, options.keyFile, options.name);
  const deadline = Date.now() + options.timeout * 1000;
  const me = createCoinsClient(baseUrl, { token: key, fetch: fetchWithRetries });
  /** @type {Schemas["Queue"]} */
  const queueBody = { target_score: options.targetScore, rated: !options.unrated };
  if (options.botsAfter !== undefined) queueBody.bots_after = options.botsAfter;
  let events = 0;
  const active = new Set(); // games in progress it sits in
  const finished = new Set(); // games whose game_result it has seen: a later event of one is stale
  /** Count `game` among those in progress, unless it has finished: deliveries may come out of order,
   * and a `your_turn` after the `game_result` would stop the bot queueing again. */
  const sit = (/** @type {string} */ game) => void (finished.has(game) || active.add(game));
  const acted = new Map(); // per game, the version it last acted on
  /** @type {Schemas["GameResultEvent"][]} */
  const results = [];
  /** @type {string | null} */
  let ticket = null; // its waiting ticket (perhaps an earlier run's, taken over)
  let ticketRead = 0; // when it was last read (Date.now())
  const ok = async (/** @type {Promise<{data?: any, error?: any}>} */ answer) => {
    const { data, error } = await answer;
    if (error) throw Object.assign(new Error(`${error.status} ${error.code}: ${error.detail}`), { code: error.code });
    return data;
  };

  const queue = async () => {
    if (active.size > 0 || ticket !== null || results.length + active.size >= games) return;
    await enterQueue();
  };
  /** POST /v1/queue. `409 already_queued`: a ticket of an earlier run still waits, on that run's
   * terms; the problem's `ticket` names it, and it is replaced (once a call; one that stopped waiting
   * meanwhile is named by no member, and the next look queues again). */
  let entering = false; // a POST /v1/queue on its way: the timer's and an event's never overlap
  const enterQueue = async (replacing = true) => {
    if (entering) return;
    entering = true;
    const { data, error } = await me.POST("/v1/queue", { body: queueBody }).finally(() => (entering = false));
    if (error) {
      if (error.code !== "already_queued") throw new Error(`${error.status} ${error.code}: ${error.detail}`);
      console.log(`already queued: ${error.status} ${error.code}: ${error.detail}`);
      if (replacing && error.ticket) await replace(error.ticket);
      return;
    }
    [ticket, ticketRead] = [data.id, Date.now()];
    console.log(`queued: ticket ${data.id} (first to ${data.target_score}, rated ${data.rated})`);
  };
  /** Cancels an earlier run's waiting ticket and queues ours; if it was matched meanwhile
   * (`409 ticket_matched`), its game is ours instead. */
  const replace = async (/** @type {string} */ earlier) => {
    const path = { params: { path: { ticket_id: earlier } } };
    const { error } = await me.DELETE("/v1/queue/{ticket_id}", path);
    if (error?.code === "ticket_matched") {
      const { game } = await ok(me.GET("/v1/queue/{ticket_id}", path));
      console.log(`ticket ${earlier} of an earlier run was matched: game ${game}`);
      if (game) sit(game);
      return;
    }
    console.log(`ticket ${earlier} of an earlier run cancelled`);
    await enterQueue(false);
  };
  /** Every QUEUE_AGAIN_EVERY_MS: with no ticket, queue (unless a game is in progress or enough were
   * played); every TICKET_EVERY_MS, read our ticket: expired, it is replaced; matched, its game is ours. */
  const checkTicket = async () => {
    if (ticket === null) return void (await queue());
    if (Date.now() - ticketRead < TICKET_EVERY_MS) return;
    const read = await ok(me.GET("/v1/queue/{ticket_id}", { params: { path: { ticket_id: ticket } } }));
    ticketRead = Date.now();
    if (read.status === "matched" && read.game) {
      ticket = null;
      sit(read.game);
      await queue(); // its game may be over already
    } else if (read.status === "expired" || read.status === "cancelled") {
      console.log(`ticket ${ticket} ${read.status}: queueing again`);
      ticket = null;
      await queue();
    }
  };
  const act = async (/** @type {string} */ game, /** @type {number} */ version, /** @type {string} */ action, /** @type {Schemas["Hand"] | null} */ hand) => {
    if ((acted.get(game) ?? -1) >= version) return;
    acted.set(game, version);
    const path = { params: { path: { game_id: game } } };
    try {
      if (action === "deal") return void (await ok(me.POST("/v1/games/{game_id}/hands", path)));
      if (action !== "play") return console.log(`game ${game} asks for \`${action}\`, which this bot does not know: skipped`);
      const held = hand ?? (await ok(me.GET("/v1/games/{game_id}/hand", path)));
      const card = held.cards[Math.floor(random() * held.cards.length)];
      if (card === undefined) return;
      const { trick } = await ok(me.POST("/v1/games/{game_id}/plays", { ...path, body: { card } }));
      if (trick.winner !== null && trick.winner === held.seat) console.log(`${game}: took trick ${trick.trick_number} of hand ${trick.hand_number} with ${card}`);
    } catch (error) {
      if (!STALE.includes(/** @type {any} */ (error).code)) throw error;
    }
  };
  const handle = async (/** @type {PlayerEvent} */ event) => {
    events += 1;
    switch (event.type) {
      case "player":
        console.log(`player ${event.player.name}: rating ${event.player.rating.value}, ${event.games.length} games in progress`);
        for (const game of event.games) {
          if (finished.has(game.id)) continue;
          active.add(game.id);
          if (game.your_turn) await act(game.id, game.version, game.status === "waiting_for_deal" ? "deal" : "play", null);
        }
        break;
      case "match_found":
        console.log(`match found: game ${event.game}`);
        if (ticket === event.ticket) ticket = null; // not a late one of an earlier match
        sit(event.game);
        break;
      case "game_started":
        console.log(`game ${event.game} started: seat ${event.seat}`);
        sit(event.game);
        break;
      case "your_turn":
        if (finished.has(event.game)) break;
        active.add(event.game);
        await act(event.game, event.version, event.action, event.hand);
        break;
      case "game_result": {
        if (finished.has(event.game)) return; // told twice: counted once
        finished.add(event.game);
        active.delete(event.game);
        acted.delete(event.game);
        results.push(event);
        const r = event.rating;
        const change = r ? `rating ${r.before} -> ${r.after} (${r.after >= r.before ? "+" : ""}${r.after - r.before})` : "unrated";
        console.log(`game ${results.length}/${games} ${event.game} over: place ${event.place} (scores ${event.scores.join(", ")}); ${change}`);
        break;
      }
      case "rematch_offered":
        console.log(`rematch ${event.rematch} of ${event.game} offered to your seat ${event.seat} (not taken)`);
        break;
      default: // challenges, cancelled games, and types added since: not this bot's business
    }
    await queue();
  };

  const stop = new AbortController();
  interrupt?.addEventListener("abort", () => stop.abort(interrupt.reason), { once: true });
  const timer = setTimeout(() => stop.abort(new OutOfTime()), Math.max(0, deadline - Date.now()));
  const ticketTimer = setInterval(() => void checkTicket().catch((error) => stop.abort(error)), QUEUE_AGAIN_EVERY_MS);
  try {
    if (options.webhook) {
      await byWebhook(me, options, handle, () => results.length >= games, stop.signal);
    } else {
      for await (const event of followPlayer(baseUrl, { token: key, signal: stop.signal })) {
        await handle(event);
        if (results.length >= games) break;
      }
    }
  } catch (error) {
    if (!(error instanceof OutOfTime)) throw error;
  } finally {
    clearTimeout(timer);
    clearInterval(ticketTimer);
    // A ticket left waiting could be matched into a game that only stand-ins would play.
    if (ticket !== null) await me.DELETE("/v1/queue/{ticket_id}", { params: { path: { ticket_id: ticket } } }).catch(() => {});
  }
  return { results, events, finished: results.length >= games };
}

/** Plays from verified deliveries to a webhook of `options.webhook` until `done()`; the webhook is deleted as it ends;
 * one of an earlier run to the same URL (a run killed before it could delete its own) is deleted before it is made. */
async function byWebhook(/** @type {import("coins-client").CoinsClient} */ me, /** @type {Options} */ options, /** @type {(event: PlayerEvent) => Promise<void>} */ handle, /** @type {() => boolean} */ done, /** @type {AbortSignal} */ signal) {
  const { data: listed, error: unlisted } = await me.GET("/v1/players/me/webhooks");
  if (unlisted) throw new Error(`${unlisted.status} ${unlisted.code}: ${unlisted.detail}`);
  for (const earlier of listed.items.filter((webhook) => webhook.url === options.webhook)) {
    await me.DELETE("/v1/players/me/webhooks/{webhook_id}", { params: { path: { webhook_id: earlier.id } } });
    console.log(`webhook ${earlier.id} of an earlier run to ${options.webhook} deleted`);
  }
  const { data: made, error } = await me.POST("/v1/players/me/webhooks", { body: { url: options.webhook ?? "", types: [...WEBHOOK_TYPES] } });
  if (error) throw new Error(`${error.status} ${error.code}: ${error.detail}`);
  /** @type {PlayerEvent[]} */
  const waiting = [];
  /** @type {() => void} */
  let wake = () => {};
  const tls = { ...(options.tlsCert ? { cert: options.tlsCert } : {}), ...(options.tlsKey ? { key: options.tlsKey } : {}) };
  /** @type {import("node:http").Server | undefined} */
  let server;
  signal.addEventListener("abort", () => wake());
  try { // from here on the webhook is deleted however it ends: a certificate missing, a port taken …
    server = await receive(made.secret, options.listen, tls, (event) => {
      waiting.push(event);
      wake();
    });
    console.log(`webhook ${made.id}: deliveries to ${options.webhook}, received on ${options.listen}`);
    const first = await me.GET("/v1/players/me/events", { params: { query: { wait: 0 } } });
    const state = typeof first.data === "object" ? first.data.items[0] : undefined; // the JSON page, not the stream
    if (state?.type === "player") await handle(/** @type {PlayerEvent} */ (state));
    while (!done()) {
      signal.throwIfAborted();
      const event = waiting.shift();
      if (event) await handle(event);
      else await new Promise((resolve) => (wake = () => resolve(undefined))); // asleep until a delivery
    }
  } finally {
    server?.close();
    await me.DELETE("/v1/players/me/webhooks/{webhook_id}", { params: { path: { webhook_id: made.id } } });
  }
}

/** The key in `keyFile`; or a new player's, written there with mode 0600 (never printed). */
async function loadKey(/** @type {string} */ baseUrl, /** @type {string} */ keyFile, /** @type {string} */ name) {
  if (existsSync(keyFile)) {
    if ((statSync(keyFile).mode & 0o077) !== 0) console.error(`warning: ${keyFile} is readable by others (chmod 600 it)`);
    return readFileSync(keyFile, "utf8").trim();
  }
  const { data, error } = await createCoinsClient(baseUrl, { fetch: fetchWithRetries }).POST("/v1/players", { body: { name } });
  if (error) throw new Error(`${error.status} ${error.code}: ${error.detail}`);
  writeFileSync(keyFile, `${data.key}\n`, { mode: 0o600, flag: "wx" }); // wx: never overwrite another run's key
  console.log(`created player ${data.name} (${data.id}); key saved in ${keyFile}`);
  return data.key;
}

const USAGE = `usage: bot_player.mjs [-h] [--base-url URL] --key-file FILE [--name NAME] [--games N]
                      [--target-score N] [--unrated] [--bots-after SECONDS] [--seed N] [--timeout SECONDS]
                      [--webhook URL] [--listen HOST:PORT] [--tls-cert FILE] [--tls-key FILE]`;
const HELP = `${USAGE}

A bot player for Coins: keeps a player key, queues for quick play, plays game after game from its feed.

options:
  -h, --help            show this help message and exit
  --base-url URL        the server (default http://127.0.0.1:8000)
  --key-file FILE       the player's key: read, or created 0600
  --name NAME           the new player's name (default Bot)
  --games N             games to play, then stop (default 1)
  --target-score N      the games' target (default 15)
  --unrated             queue for unrated games (default: rated)
  --bots-after SECONDS  seconds after which bots may fill the table (default: the server's)
  --seed N              seed for the random card choices
  --timeout SECONDS     give up after this many seconds (default 3600)
  --webhook URL         play from signed deliveries to this public https URL, not from the feed
  --listen HOST:PORT    --webhook: where to receive (default 127.0.0.1:8443)
  --tls-cert FILE       --webhook: the receiver's certificate (else plain HTTP behind a proxy)
  --tls-key FILE        --webhook: the certificate's private key`;

/**
 * @typedef {object} Options The command line's options, examples/bot_player.py's.
 * @property {string} baseUrl @property {string} keyFile @property {string} name @property {number} games
 * @property {number} targetScore @property {boolean} unrated @property {number | undefined} botsAfter
 * @property {number | undefined} seed @property {number} timeout seconds @property {string | undefined} webhook
 * @property {string} listen @property {string | undefined} tlsCert @property {string | undefined} tlsKey
 */

/** A command line that asks for help, or that cannot be run: the message, and the exit status. */
class Usage extends Error {
  constructor(/** @type {string} */ message, /** @type {number} */ status) {
    super(message);
    this.status = status;
  }
}

/** The options of `argv`; `Usage` for `--help`, an unknown option, a missing value or a bad number. */
export function parseOptions(/** @type {string[]} */ argv) {
  const text = /** @type {const} */ ({ type: "string" });
  /** @type {ReturnType<typeof parseArgs>["values"]} */
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        help: { type: "boolean", short: "h" }, unrated: { type: "boolean" },
        "base-url": text, "key-file": text, name: text, games: text, "target-score": text, "bots-after": text,
        seed: text, timeout: text, webhook: text, listen: text, "tls-cert": text, "tls-key": text,
      },
      strict: true,
    }));
  } catch (error) {
    throw new Usage(`${USAGE}\nbot_player.mjs: error: ${/** @type {Error} */ (error).message}`, 2);
  }
  if (values.help) throw new Usage(HELP, 0);
  const fail = (/** @type {string} */ message) => new Usage(`${USAGE}\nbot_player.mjs: error: ${message}`, 2);
  const number = (/** @type {string} */ name, /** @type {RegExp} */ form, /** @type {string} */ kind) => {
    const given = values[name];
    if (given === undefined) return undefined;
    if (typeof given !== "string" || !form.test(given)) throw fail(`argument --${name}: invalid ${kind} value: '${given}'`);
    return Number(given);
  };
  const integer = (/** @type {string} */ name) => number(name, /^[+-]?\d+$/, "int");
  if (typeof values["key-file"] !== "string") throw fail("the following arguments are required: --key-file");
  const string = (/** @type {string} */ name) => (typeof values[name] === "string" ? /** @type {string} */ (values[name]) : undefined);
  return /** @type {Options} */ ({
    baseUrl: string("base-url") ?? "http://127.0.0.1:8000",
    keyFile: values["key-file"],
    name: string("name") ?? "Bot",
    games: integer("games") ?? 1,
    targetScore: integer("target-score") ?? 15,
    unrated: values.unrated === true,
    botsAfter: integer("bots-after"),
    seed: integer("seed"),
    timeout: number("timeout", /^[+-]?(\d+\.?\d*|\.\d+)$/, "float") ?? 3600,
    webhook: string("webhook"),
    listen: string("listen") ?? "127.0.0.1:8443",
    tlsCert: string("tls-cert"),
    tlsKey: string("tls-key"),
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  /** @type {Options} */
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof Usage)) throw error;
    (error.status === 0 ? console.log : console.error)(error.message);
    process.exit(error.status);
  }
  const interrupt = new AbortController();
  for (const [name, status] of /** @type {const} */ ([["SIGINT", 130], ["SIGTERM", 143]])) {
    // once: the bot then deletes its webhook and cancels its ticket; a second signal ends it at once
    process.once(name, () => interrupt.abort(new Stopped(`stopped by ${name}`, status)));
  }
  runBot(options, interrupt.signal).then(
    ({ results, events, finished }) => {
      console.log(`${results.length} games played; ${events} events read`);
      if (!finished) console.error(`no end of ${options.games} games within ${options.timeout.toFixed(0)}s`);
      process.exit(finished ? 0 : 2); // exit: a delivery's kept connection may still be open
    },
    (error) => {
      console.error(error instanceof Stopped ? error.message : `error: ${error.message}`);
      process.exit(error instanceof Stopped ? error.status : 1);
    },
  );
}
