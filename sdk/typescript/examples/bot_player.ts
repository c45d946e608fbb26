/**
 * A bot player, as examples/bot_player.py is in Python: it keeps a player key, queues for quick
 * play, and plays game after game from its own player feed (`GET /v1/players/me/events`, see
 * docs/players.md) alone: `player` → act in the games that wait, else queue; `match_found` and
 * `game_started` → a new table; `your_turn` → deal, or read the hand and play a random card of
 * it; `game_result` → the place and the rating change, then queue again until `games` are done.
 *
 * Every POST carries an `Idempotency-Key`, kept across its retries (network errors, 5xx, 429
 * after `Retry-After`, `409 idempotency_key_in_use`), so the server applies it once. A dropped
 * feed is resumed with `Last-Event-ID` after a growing, bounded pause; while a ticket waits, each
 * heartbeat of the feed re-reads it (an expired ticket is replaced). Run in Node 20 (compiled to
 * CommonJS as .ci/contract.sh does):
 *
 *   node -e 'require("./out/examples/bot_player.js").main(process.argv.slice(1))' -- \
 *     --base-url http://127.0.0.1:8000 --key-file ~/.coins-bot.key --games 3
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import type { components } from "../coins";
import { CoinsClient, CoinsProblem, type Card, type ProblemCode } from "../client";
import { readEvents } from "./follow";

type Schemas = components["schemas"];
export type PlayerEvent = Schemas["PlayerEvent"];
type Problem = Schemas["Problem"];

const RETRIES = 4; // a request is tried at most 5 times (a POST always with the same Idempotency-Key)
const MAX_ATTEMPTS = 8; // feed connections in a row that bring no event before giving up
const MAX_BACKOFF_MS = 10_000;
/** The game moved on before our request arrived (a stand-in played, an old `your_turn`): wait for the feed. */
const STALE: readonly ProblemCode[] = ["not_your_turn", "no_hand_in_progress", "hand_in_progress", "game_finished", "not_dealer"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const backoff = (attempt: number) => Math.min(MAX_BACKOFF_MS, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);

/** `fetch` with an `Idempotency-Key` on every POST and bounded retries of what may succeed later. */
export async function fetchWithRetries(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if ((init.method ?? "GET").toUpperCase() === "POST" && !headers.has("Idempotency-Key")) {
    headers.set("Idempotency-Key", crypto.randomUUID()); // the same key on every retry below
  }
  for (let attempt = 0; ; attempt++) {
    let wait: number;
    try {
      const response = await fetch(input, { ...init, headers });
      const inUse = response.status === 409 && (await isCode(response.clone(), "idempotency_key_in_use"));
      if (!(response.status >= 500 || response.status === 429 || inUse) || attempt >= RETRIES) return response;
      const retryAfter = Number(response.headers.get("Retry-After"));
      wait = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : backoff(attempt);
      await response.body?.cancel();
    } catch (error) {
      if (attempt >= RETRIES) throw error; // the network: the request may or may not have arrived
      wait = backoff(attempt);
    }
    await sleep(Math.min(wait, 30_000));
  }
}

async function isCode(response: Response, code: ProblemCode): Promise<boolean> {
  const problem = (await response.json().catch(() => null)) as Problem | null;
  return problem?.code === code;
}

export interface BotOptions {
  baseUrl: string;
  keyFile: string;
  name: string;
  games: number;
  queue: Schemas["Queue"];
  deadline: number; // Date.now() after which the bot gives up
  log?: (line: string) => void;
}

/** The key in `keyFile`; or a new player's, written there with mode 0600 (never printed). */
export async function loadKey(client: CoinsClient, keyFile: string, name: string, log: (line: string) => void): Promise<string> {
  if (existsSync(keyFile)) {
    if ((statSync(keyFile).mode & 0o077) !== 0) log(`warning: ${keyFile} is readable by others (chmod 600 it)`);
    return readFileSync(keyFile, "utf8").trim();
  }
  const created = await client.createPlayer({ name });
  writeFileSync(keyFile, `${created.key}\n`, { mode: 0o600, flag: "wx" }); // wx: never overwrite another run's key
  log(`created player ${created.name} (${created.id}); key saved in ${keyFile}`);
  return created.key;
}

/** Plays `options.games` games from the player feed; the `game_result` events, one per game. */
export async function runBot(options: BotOptions): Promise<Schemas["GameResultEvent"][]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const client = new CoinsClient(options.baseUrl, fetchWithRetries);
  const key = await loadKey(client, options.keyFile, options.name, log);
  const active = new Set<string>(); // games in progress the bot sits in
  const acted = new Map<string, number>(); // per game, the version it last acted on
  const results: Schemas["GameResultEvent"][] = [];
  let ticket: string | null = null; // its waiting ticket ("?": one of an earlier run)

  const queue = async () => {
    if (active.size > 0 || ticket !== null || results.length + active.size >= options.games) return;
    try {
      const made = await client.enterQueue(key, options.queue);
      ticket = made.id;
      log(`queued: ticket ${made.id} (first to ${made.target_score}, rated ${made.rated})`);
    } catch (error) {
      if (!(error instanceof CoinsProblem && error.code === "already_queued")) throw error;
      ticket = "?";
    }
  };
  const checkTicket = async () => {
    if (ticket === null || ticket === "?") return;
    const read = await client.getTicket(key, ticket);
    if (read.status === "matched" && read.game !== null) {
      ticket = null;
      active.add(read.game);
    } else if (read.status === "expired" || read.status === "cancelled") {
      log(`ticket ${ticket} ${read.status}: queueing again`);
      ticket = null;
      await queue();
    }
  };
  const act = async (game: string, version: number, action: "deal" | "play") => {
    if ((acted.get(game) ?? -1) >= version) return;
    acted.set(game, version);
    try {
      if (action === "deal") {
        await client.dealHand(game, key);
        return;
      }
      const hand = await client.getHand(game, key);
      const card: Card | undefined = hand.cards[Math.floor(Math.random() * hand.cards.length)];
      if (card === undefined) return; // no card left: the hand is over
      const { trick } = await client.playCard(game, key, card);
      if (trick.winner === hand.seat) log(`${game}: took trick ${trick.trick_number} of hand ${trick.hand_number} with ${card}`);
    } catch (error) {
      if (!(error instanceof CoinsProblem && STALE.some((code) => code === error.code))) throw error;
    }
  };
  const handle = async (event: PlayerEvent) => {
    switch (event.type) {
      case "player":
        log(`player ${event.player.name}: rating ${event.player.rating.value}, ${event.games.length} games in progress`);
        for (const game of event.games) {
          active.add(game.id);
          if (game.your_turn) await act(game.id, game.version, game.status === "waiting_for_deal" ? "deal" : "play");
        }
        break;
      case "match_found":
        log(`match found: game ${event.game}`);
        ticket = null;
        active.add(event.game);
        break;
      case "game_started":
        log(`game ${event.game} started: seat ${event.seat}`);
        active.add(event.game);
        if (ticket === "?") ticket = null;
        break;
      case "your_turn":
        active.add(event.game);
        if (event.action === "deal" || event.action === "play") await act(event.game, event.version, event.action);
        else log(`game ${event.game} asks for \`${event.action}\`, which this bot does not know: skipped`);
        break;
      case "game_result": {
        active.delete(event.game);
        acted.delete(event.game);
        results.push(event);
        const change = event.rating ? `rating ${event.rating.before} -> ${event.rating.after} (${signed(event.rating.after - event.rating.before)})` : "unrated";
        log(`game ${results.length}/${options.games} ${event.game} over: place ${event.place} (scores ${event.scores.join(", ")}); ${change}`);
        break;
      }
      case "rematch_offered":
        log(`rematch of ${event.game} offered by seat ${event.seat} (not taken)`);
        break;
      case "challenge_received":
        log(`challenged by ${event.challenger} to game ${event.game} (not taken: it is cancelled at ${event.expires_at})`);
        break;
      case "game_cancelled":
        log(`game ${event.game} cancelled (${event.reason})`);
        active.delete(event.game);
        break;
      default: {
        const unknown: never = event; // a type added to the spec fails to compile here until handled; at run time
        // an event of a type this build does not know (types are added within v1) is logged and skipped
        log(`unknown event ${JSON.stringify(unknown)}`);
      }
    }
    await queue();
  };

  let lastEventId: number | undefined;
  let failures = 0;
  while (results.length < options.games) {
    if (Date.now() >= options.deadline) throw new Error(`no end of ${options.games} games in time`);
    const connection = new AbortController();
    const timer = setTimeout(() => connection.abort(new Error("deadline")), Math.max(0, options.deadline - Date.now()));
    let retryAfterMs = 0;
    try {
      const headers: Record<string, string> = { Accept: "text/event-stream", Authorization: `Bearer ${key}` };
      if (lastEventId !== undefined) headers["Last-Event-ID"] = String(lastEventId);
      const response = await fetch(new URL("/v1/players/me/events", options.baseUrl), { headers, signal: connection.signal });
      if (response.status === 503 || response.status === 429) {
        retryAfterMs = Number(response.headers.get("Retry-After") ?? "0") * 1000 || 0;
        await response.body?.cancel();
      } else if (!response.ok || response.body === null) {
        throw new CoinsProblem((await response.json()) as Problem); // 401 invalid_key: retrying will not help
      } else {
        for await (const event of readEvents<PlayerEvent | null>(withHeartbeats(response.body), connection)) {
          if (event === null) {
            await checkTicket();
            continue;
          }
          failures = 0;
          await handle(event);
          lastEventId = event.id; // handled: a reconnect resumes after it
          if (results.length >= options.games) break;
        }
      }
    } catch (error) {
      if (error instanceof CoinsProblem) throw error;
      // Anything else is the network (refused, reset, silent too long) or the deadline: resume below.
    } finally {
      clearTimeout(timer);
      connection.abort();
    }
    if (results.length >= options.games) break;
    failures += 1;
    if (failures > MAX_ATTEMPTS) throw new Error(`no event after ${MAX_ATTEMPTS} attempts to reach the feed`);
    await sleep(Math.max(backoff(failures), retryAfterMs));
  }
  return results;
}

/** The body with each heartbeat (a `:` comment line) turned into a `data: null` event, so the bot sees it. */
function withHeartbeats(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = "";
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true });
        const end = pending.lastIndexOf("\n") + 1;
        const lines = pending.slice(0, end);
        pending = pending.slice(end);
        controller.enqueue(encoder.encode(lines.replace(/^:.*$/gm, "data: null\n")));
      },
      flush(controller) {
        controller.enqueue(encoder.encode(pending));
      },
    }),
  );
}

const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));

/** The command line: `--base-url`, `--key-file` (required), `--name`, `--games`, `--target-score`, `--unrated`, `--bots-after`, `--timeout`. */
export async function main(argv: string[]): Promise<void> {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i] ?? "";
    if (name === "--unrated") args.set(name, "1");
    else if (name.startsWith("--")) args.set(name, argv[++i] ?? "");
  }
  const keyFile = args.get("--key-file");
  if (!keyFile) throw new Error("--key-file is required");
  const queue: Schemas["Queue"] = { target_score: Number(args.get("--target-score") ?? 15), rated: !args.has("--unrated") };
  if (args.has("--bots-after")) queue.bots_after = Number(args.get("--bots-after"));
  const games = Number(args.get("--games") ?? 1);
  const started = Date.now();
  const results = await runBot({
    baseUrl: args.get("--base-url") ?? "http://127.0.0.1:8000",
    keyFile,
    name: args.get("--name") ?? "Bot",
    games,
    queue,
    deadline: started + Number(args.get("--timeout") ?? 3600) * 1000,
  });
  console.log(`${results.length} games played in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
