/**
 * Typed readers of the service's event feeds: a game's (`GET /v1/games/{id}/events`) and a
 * player's own (`GET /v1/players/me/events`), on `fetch` and a `ReadableStream` (Node 18+, browsers).
 *
 *   for await (const event of followPlayer(baseUrl, { token: playerKey })) {
 *     if (event.type === "your_turn") { ... }      // narrowed to YourTurnEvent
 *   }
 *
 * Each reader yields the events of the types this version of the spec lists, typed by the spec
 * (`switch (event.type)` narrows them), and skips the types it does not list (types are added within
 * v1; `unlisted: true` yields those too, typed `UnlistedFeedEvent` / `UnlistedPlayerEvent`). When the
 * connection drops it reconnects after the server's `retry` delay (doubled on each failure in a row,
 * with jitter) and resumes with `Last-Event-ID`: no event is lost or repeated. A connection silent
 * for `silenceTimeoutMs` (the server sends a heartbeat at least every 20 s) counts as dropped. After
 * `maxAttempts` failures in a row without an event it throws `FeedLost`; an answer that retrying
 * cannot change (`401 invalid_token`, `404 game_not_found` …) throws `CoinsProblem`. A game's feed
 * ends after `game_finished`, or at once when it resumes after a game's last event: a stream that ends
 * with nothing new, or an empty long-poll page, makes the reader ask the game's state.
 */
import type { components } from "./schema.js";
import { SSEDecoder } from "./sse.js";

type Schemas = components["schemas"];
export type FeedEvent = Schemas["FeedEvent"];
export type PlayerEvent = Schemas["PlayerEvent"];
export type UnlistedFeedEvent = Schemas["UnlistedFeedEvent"];
export type UnlistedPlayerEvent = Schemas["UnlistedPlayerEvent"];
export type Problem = Schemas["Problem"];

/** The types the spec lists, each feed's; the compiler checks these lists against the spec. */
export const FEED_EVENT_TYPES = [
  "game",
  "seat_taken",
  "seat_left",
  "hand_dealt",
  "hand",
  "card_played",
  "trick_won",
  "hand_ended",
  "game_finished",
  "rematch_created",
  "game_cancelled",
] as const satisfies readonly FeedEvent["type"][];
export const PLAYER_EVENT_TYPES = [
  "player",
  "match_found",
  "game_started",
  "your_turn",
  "game_result",
  "rematch_offered",
  "challenge_received",
  "game_cancelled",
] as const satisfies readonly PlayerEvent["type"][];
type Unknown<Listed, Known> = [Exclude<Listed, Known>] extends [never] ? true : Exclude<Listed, Known>;
const everyFeedType: Unknown<FeedEvent["type"], (typeof FEED_EVENT_TYPES)[number]> = true;
const everyPlayerType: Unknown<PlayerEvent["type"], (typeof PLAYER_EVENT_TYPES)[number]> = true;
void everyFeedType;
void everyPlayerType;

/**
 * Whether a game feed's event is of a type this version lists: a page's items (`GET …/events`) and
 * `followGame(…, { unlisted: true })` hold `FeedEvent | UnlistedFeedEvent`, whose unlisted `type` is
 * any string, so `switch (event.type)` narrows only once this guard has set the unlisted ones aside.
 */
export function isListedFeedEvent(event: FeedEvent | UnlistedFeedEvent): event is FeedEvent {
  return (FEED_EVENT_TYPES as readonly string[]).includes(event.type);
}

/** Whether a player feed's event is of a type this version lists (see `isListedFeedEvent`). */
export function isListedPlayerEvent(event: PlayerEvent | UnlistedPlayerEvent): event is PlayerEvent {
  return (PLAYER_EVENT_TYPES as readonly string[]).includes(event.type);
}

/** A refusal of the server: the RFC 9457 problem, with its stable `code`. */
export class CoinsProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
  ) {
    super(problem ? `${status} ${problem.code}: ${problem.detail}` : `${status}`);
    this.name = "CoinsProblem";
  }
  /** A `ProblemCode`, or a code added since this client was generated. */
  get code(): string | undefined {
    return this.problem?.code;
  }
}

/** The feed could not be reached or kept: `attempts` connections in a row brought no event. */
export class FeedLost extends Error {
  constructor(
    readonly attempts: number,
    readonly lastEventId: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(`the event feed ended unexpectedly: ${attempts} attempts in a row brought no event`, options);
    this.name = "FeedLost";
  }
}

export interface FollowOptions {
  /** A seat's token (a game's feed: adds that seat's private events) or a player's key (required for the player feed). */
  token?: string;
  /** Resume after this event id (the `id` of the last event you handled). */
  lastEventId?: number;
  /** Read the long poll (`?after=…&wait=25`) instead of the stream, where streams do not get through. */
  longPoll?: boolean;
  /** Also yield events of types this version does not list (default: skipped). */
  unlisted?: boolean;
  /** Failures in a row, without an event, before giving up (default 8). */
  maxAttempts?: number;
  /** A connection without a byte for this long counts as dropped (default 30 s). */
  silenceTimeoutMs?: number;
  /** Stops following: the reader then throws the abort reason. */
  signal?: AbortSignal;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

const DEFAULT_RETRY_MS = 2000; // until the server says (it sends `retry: 2000`)
const MAX_BACKOFF_MS = 30_000;
const SILENCE_TIMEOUT_MS = 30_000;
const LONG_POLL_WAIT_SECONDS = 25; // the server's `wait` is at most 30
const MAX_ATTEMPTS = 8;
const RETRIABLE = new Set([429, 500, 502, 503, 504]);

/** A game's events in order, none missing or repeated, until the game is over (`game_finished`). */
export function followGame(baseUrl: string, gameId: string, options?: FollowOptions & { unlisted?: false }): AsyncGenerator<FeedEvent>;
export function followGame(baseUrl: string, gameId: string, options: FollowOptions & { unlisted: true }): AsyncGenerator<FeedEvent | UnlistedFeedEvent>;
export function followGame(baseUrl: string, gameId: string, options: FollowOptions = {}): AsyncGenerator<FeedEvent | UnlistedFeedEvent> {
  const url = new URL(`v1/games/${encodeURIComponent(gameId)}/events`, withSlash(baseUrl));
  return follow<FeedEvent | UnlistedFeedEvent>(url, FEED_EVENT_TYPES, true, options);
}

/** Your own feed (`token`: your player key): the `player` event, then every event that concerns you
 * (`your_turn` carries the game's `state` and your `hand`), until you stop (`break`, or `signal`). */
export function followPlayer(baseUrl: string, options: FollowOptions & { token: string; unlisted?: false }): AsyncGenerator<PlayerEvent>;
export function followPlayer(baseUrl: string, options: FollowOptions & { token: string; unlisted: true }): AsyncGenerator<PlayerEvent | UnlistedPlayerEvent>;
export function followPlayer(baseUrl: string, options: FollowOptions & { token: string }): AsyncGenerator<PlayerEvent | UnlistedPlayerEvent> {
  const url = new URL("v1/players/me/events", withSlash(baseUrl));
  return follow<PlayerEvent | UnlistedPlayerEvent>(url, PLAYER_EVENT_TYPES, false, options);
}

function withSlash(baseUrl: string): string {
  return baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
}

interface Raw {
  id?: unknown;
  type?: unknown;
  game?: { status?: unknown };
}

/** What a reader knows across its connections: where to resume, how long to wait, when to give up. */
class Follower {
  lastEventId: number | undefined;
  retryMs = DEFAULT_RETRY_MS;
  failures = 0;
  finished = false;
  /** The last connection was answered with the feed (200). */
  answered = false;
  notBeforeMs = 0;

  constructor(
    private readonly listed: readonly string[],
    readonly gameFeed: boolean,
    private readonly options: FollowOptions,
  ) {
    this.lastEventId = options.lastEventId;
  }

  /** The event of one event's JSON, or null for a type this version does not list (skipped). */
  read(data: string): unknown {
    const raw = JSON.parse(data) as Raw;
    this.failures = 0; // an event came: the connection works
    if (typeof raw.id === "number") this.lastEventId = raw.id;
    const listed = typeof raw.type === "string" && this.listed.includes(raw.type);
    if (this.gameFeed && listed) {
      this.finished =
        raw.type === "game_finished" ||
        raw.type === "game_cancelled" ||
        (raw.type === "game" && (raw.game?.status === "finished" || raw.game?.status === "cancelled"));
    }
    return listed || this.options.unlisted ? raw : null;
  }

  /** Whether the answer is the feed; false to retry later; throws when retrying cannot help. */
  async check(response: Response): Promise<boolean> {
    this.answered = response.ok && response.body !== null;
    if (this.answered) return true;
    if (RETRIABLE.has(response.status)) {
      const retryAfter = Number(response.headers.get("Retry-After") ?? "");
      this.notBeforeMs = Number.isFinite(retryAfter) ? retryAfter * 1000 : 0;
      await response.body?.cancel();
      return false;
    }
    let problem: Problem | null = null;
    try {
      problem = (await response.json()) as Problem;
    } catch {
      problem = null;
    }
    throw new CoinsProblem(response.status, problem);
  }

  /** A game's feed answered, then ended with no event after `resumedFrom`: is the game over? */
  endedWithNothingNew(resumedFrom: number | undefined): boolean {
    return this.gameFeed && this.answered && !this.finished && this.lastEventId === resumedFrom;
  }

  /** A game over ends its feed: resumed after its last event, the server has nothing more to send. */
  async readGame(feedUrl: URL): Promise<void> {
    const url = new URL(feedUrl.pathname.replace(/\/events$/, ""), feedUrl);
    const init: RequestInit = { headers: { Accept: "application/json" }, cache: "no-store" };
    if (this.options.signal) init.signal = this.options.signal;
    const response = await (this.options.fetch ?? fetch)(url, init);
    if (!response.ok) return void (await response.body?.cancel());
    const game = (await response.json()) as { status?: unknown };
    this.finished = game.status === "finished" || game.status === "cancelled";
  }

  /** After a failed or ended connection: how long to wait before the next one (or FeedLost). */
  pause(error: unknown): number {
    this.failures += 1;
    const maxAttempts = this.options.maxAttempts ?? MAX_ATTEMPTS;
    if (this.failures > maxAttempts) throw new FeedLost(maxAttempts, this.lastEventId, { cause: error });
    const backoff = Math.min(MAX_BACKOFF_MS, this.retryMs * 2 ** (this.failures - 1));
    const wait = Math.max(backoff * (1 + Math.random() / 2), this.notBeforeMs);
    this.notBeforeMs = 0;
    return wait;
  }
}

async function* follow<Event>(url: URL, listed: readonly string[], gameFeed: boolean, options: FollowOptions): AsyncGenerator<Event> {
  const follower = new Follower(listed, gameFeed, options);
  const { signal } = options;
  while (!follower.finished) {
    let error: unknown = undefined;
    const resumedFrom = follower.lastEventId;
    follower.answered = false;
    try {
      const connection = options.longPoll ? poll(url, follower, options) : stream(url, follower, options);
      for await (const event of connection) yield event as Event;
      // A game over ends its feed; else it resumes as after a drop.
      if (follower.endedWithNothingNew(resumedFrom)) await follower.readGame(url);
    } catch (failure) {
      if (failure instanceof CoinsProblem || signal?.aborted) throw failure;
      error = failure; // the network: refused, reset, silent too long
    }
    if (follower.finished) return;
    await sleep(follower.pause(error), signal);
  }
}

function headersFor(options: FollowOptions, accept: string): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept };
  if (options.token !== undefined) headers["Authorization"] = `Bearer ${options.token}`;
  return headers;
}

/** One connection of the stream: its events until it ends (or the game's feed is over). */
async function* stream(url: URL, follower: Follower, options: FollowOptions): AsyncGenerator<unknown> {
  const connection = new AbortController(); // aborted by the caller's signal or by silence
  const stop = () => connection.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", stop, { once: true });
  const silenceMs = options.silenceTimeoutMs ?? SILENCE_TIMEOUT_MS;
  let silence = setTimeout(() => connection.abort(new Error("the stream went silent")), silenceMs);
  try {
    const headers = headersFor(options, "text/event-stream");
    if (follower.lastEventId !== undefined) headers["Last-Event-ID"] = String(follower.lastEventId);
    const response = await (options.fetch ?? fetch)(url, { headers, signal: connection.signal, cache: "no-store" });
    if (!(await follower.check(response))) return;
    const reader = response.body!.getReader();
    const decoder = new SSEDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        clearTimeout(silence);
        silence = setTimeout(() => connection.abort(new Error("the stream went silent")), silenceMs);
        const messages = decoder.feed(value);
        if (decoder.retryMs !== null) follower.retryMs = decoder.retryMs;
        for (const message of messages) {
          const event = follower.read(message.data);
          if (event !== null) yield event;
          if (follower.finished) return;
        }
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  } finally {
    clearTimeout(silence);
    options.signal?.removeEventListener("abort", stop);
  }
}

/** Long polls while they answer: each page's events, then the next page after them. */
async function* poll(url: URL, follower: Follower, options: FollowOptions): AsyncGenerator<unknown> {
  while (!follower.finished) {
    const page = new URL(url);
    page.searchParams.set("wait", String(LONG_POLL_WAIT_SECONDS));
    if (follower.lastEventId !== undefined) page.searchParams.set("after", String(follower.lastEventId));
    const init: RequestInit = { headers: headersFor(options, "application/json"), cache: "no-store" };
    if (options.signal) init.signal = options.signal;
    const response = await (options.fetch ?? fetch)(page, init);
    if (!(await follower.check(response))) return;
    const body = (await response.json()) as { items: unknown[]; last_id: number };
    follower.failures = 0; // a page came, even an empty one: the connection works
    for (const item of body.items) {
      const event = follower.read(JSON.stringify(item));
      if (event !== null) yield event;
      if (follower.finished) return;
    }
    follower.lastEventId = body.last_id;
    if (follower.gameFeed && body.items.length === 0) await follower.readGame(url); // `wait` ran out, or the game is over
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", abort, { once: true });
  });
}
