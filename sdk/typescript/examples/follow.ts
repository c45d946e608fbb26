/**
 * Follow a Coins game's event feed (`GET /v1/games/{id}/events`, see docs/events.md) with
 * typed events: every event is a `FeedEvent` from the generated types, and `switch
 * (event.type)` narrows it to the one schema of that type.
 *
 * The stream is read with `fetch` and a `ReadableStream` line reader, not `EventSource`:
 * that works the same in browsers and Node 20, and it can send a seat's token in the
 * `Authorization` header (a token never goes in a URL). A dropped connection is resumed with
 * `Last-Event-ID` after a growing, bounded pause, a bounded number of times in a row.
 *
 *   for await (const event of followGame("http://127.0.0.1:8000", gameId, { token })) {
 *     console.log(describe(event));
 *   }
 */
import type { components } from "../coins";
import { CoinsProblem } from "../client";

export type FeedEvent = components["schemas"]["FeedEvent"];
type Problem = components["schemas"]["Problem"];

export interface FollowOptions {
  /** A seat's token: the feed then also carries that seat's private `hand` events. */
  token?: string;
  /** Resume after this event id (the `id` of the last event you handled). */
  lastEventId?: number;
  /** Stops following (the generator then throws the abort reason). */
  signal?: AbortSignal;
  /** Connections in a row that bring no event before giving up (default 8). */
  maxAttempts?: number;
  /** First pause before reconnecting, doubled on each failed attempt up to 10 s (default 500 ms). */
  backoffMs?: number;
}

/** The server sends an event or a comment at least every 20 s: longer silence is a dead connection. */
const SILENCE_MS = 30_000;
const MAX_BACKOFF_MS = 10_000;

/** Every event of the game in order, none missing, across reconnects; ends after `game_finished`. */
export async function* followGame(
  baseUrl: string,
  gameId: string,
  options: FollowOptions = {},
): AsyncGenerator<FeedEvent, void, undefined> {
  const { token, signal, maxAttempts = 8, backoffMs = 500 } = options;
  let lastEventId = options.lastEventId;
  let failures = 0;
  for (;;) {
    let retryAfterMs = 0;
    // One controller per connection: aborted by the caller's signal or by a silent connection.
    const connection = new AbortController();
    const stop = () => connection.abort(signal?.reason);
    signal?.addEventListener("abort", stop, { once: true });
    try {
      const headers: Record<string, string> = { Accept: "text/event-stream" };
      if (token !== undefined) headers["Authorization"] = `Bearer ${token}`;
      if (lastEventId !== undefined) headers["Last-Event-ID"] = String(lastEventId);
      const url = `${baseUrl.replace(/\/$/, "")}/v1/games/${encodeURIComponent(gameId)}/events`;
      const response = await fetch(url, { headers, signal: connection.signal, cache: "no-store" });
      if (response.status === 503) {
        // too_many_streams (or the database is away): retry, but not before Retry-After.
        retryAfterMs = Number(response.headers.get("Retry-After") ?? "0") * 1000 || 0;
        await response.body?.cancel();
      } else if (!response.ok || response.body === null) {
        throw new CoinsProblem((await response.json()) as Problem); // 401, 404…: retrying will not help
      } else {
        for await (const event of readEvents(response.body, connection)) {
          failures = 0;
          lastEventId = event.id;
          yield event;
          // The last event is `game_finished` (a game already over: its `game` event alone).
          if (event.type === "game_finished" || (event.type === "game" && event.game.status === "finished")) return;
        }
      }
    } catch (error) {
      if (error instanceof CoinsProblem || signal?.aborted) throw error;
      // Anything else is the network: refused, reset, silent too long. Resume below.
    } finally {
      signal?.removeEventListener("abort", stop);
    }
    failures += 1;
    if (failures > maxAttempts) throw new Error(`no event after ${maxAttempts} attempts to reach the feed`);
    const backoff = Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** (failures - 1)) * (0.5 + Math.random() / 2);
    await new Promise((resolve) => setTimeout(resolve, Math.max(backoff, retryAfterMs)));
  }
}

/**
 * The events of one Server-Sent Events body, each as its blank line arrives (a game's feed by
 * default; `readEvents<PlayerEvent>` reads a player's). `connection` is aborted after
 * `SILENCE_MS` without a byte: heartbeats included, so an idle feed stays open.
 */
export async function* readEvents<Event = FeedEvent>(
  body: ReadableStream<Uint8Array>,
  connection: AbortController,
): AsyncGenerator<Event> {
  let data: string[] = [];
  for await (const line of readLines(body, connection)) {
    if (line === "") {
      if (data.length > 0) yield JSON.parse(data.join("\n")) as Event;
      data = [];
    } else if (line.startsWith("data:")) {
      data.push(line.slice(5).replace(/^ /, ""));
    }
    // `id:` and `event:` repeat what `data` holds (`id`, `type`); `:` lines are heartbeats;
    // `retry:` is for EventSource (we pace our own reconnects).
  }
}

/** Lines of a byte stream (LF or CRLF), read with a plain reader: no async iteration of streams needed. */
async function* readLines(body: ReadableStream<Uint8Array>, connection: AbortController): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder(); // UTF-8; `stream: true` keeps a character split across chunks
  let buffer = "";
  let silence = setTimeout(() => connection.abort(new Error("the stream went silent")), SILENCE_MS);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      clearTimeout(silence);
      silence = setTimeout(() => connection.abort(new Error("the stream went silent")), SILENCE_MS);
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n")) >= 0) {
        yield buffer.slice(0, end).replace(/\r$/, "");
        buffer = buffer.slice(end + 1);
      }
    }
  } finally {
    clearTimeout(silence);
    await reader.cancel().catch(() => undefined);
  }
}

/** One line about an event: `event.type` narrows `event` to its own schema's fields. */
export function describe(event: FeedEvent): string {
  switch (event.type) {
    case "game":
      return `game ${event.game.id}: ${event.game.status}` + (event.hand ? `, your cards ${event.hand.cards.join(" ")}` : "");
    case "seat_taken":
      return `seat ${event.seat} taken by ${event.bot ? `a ${event.bot} bot` : (event.name ?? "someone")}`;
    case "seat_left":
      return `seat ${event.seat} left` + (event.bot ? `; a ${event.bot} bot plays it now` : "; it is open again");
    case "hand_dealt":
      return `hand ${event.hand_number} dealt by seat ${event.dealer} (${event.cause}); commitment ${event.commitment}`;
    case "hand":
      return `your cards (seat ${event.seat}): ${event.cards.join(" ")}`;
    case "card_played":
      return `seat ${event.seat} played ${event.card} (trick ${event.trick_number})`;
    case "trick_won":
      return `trick ${event.trick.trick_number}: seat ${event.trick.winner} takes ${event.trick.points}`;
    case "hand_ended":
      return `hand ${event.hand_number} over; seed ${event.seed}; scores ${event.scores.join(" ")}`;
    case "game_finished":
      return `game over: seat ${event.winner} wins; scores ${event.scores.join(" ")}`;
    case "rematch_created":
      return `a rematch was created: game ${event.rematch}`;
    case "game_cancelled":
      return `the game was cancelled (${event.reason}): it never starts`;
    default: {
      const unknown: never = event; // a new type of event in the spec fails to compile here
      return `unknown event ${JSON.stringify(unknown)}`;
    }
  }
}

/** Print a game's events until it is over; returns the id of the last one (to resume later). */
export async function printGame(baseUrl: string, gameId: string, token?: string): Promise<number | undefined> {
  let last: number | undefined;
  for await (const event of followGame(baseUrl, gameId, token === undefined ? {} : { token })) {
    console.log(`${event.id} ${describe(event)}`);
    last = event.id;
  }
  return last;
}
