// A game's event stream: Server-Sent Events read with fetch (the token in a header), resumed on reconnect.

import { ApiProblem } from "./api.js";

/** @typedef {import("./types.js").FeedEvent} FeedEvent */
/** @typedef {{id: string|null, event: string, data: string}} SseMessage */

const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 15000;
/** A stream that sends nothing for this long is taken as lost: the service sends a heartbeat every 15 s by default, 19 at most. */
const SILENCE_MS = 20000;

/**
 * The SSE parser of the WHATWG HTML standard, fed text as it arrives: `feed` returns the
 * messages completed by that text. Comment lines (heartbeats) and `retry:` are skipped.
 */
export class SseParser {
  constructor() {
    this.buffer = "";
    /** @type {string[]} */
    this.data = [];
    this.event = "";
    /** @type {string|null} */
    this.id = null;
  }

  reset() {
    this.data = [];
    this.event = "";
    this.id = null;
  }

  /** @param {string} text @returns {SseMessage[]} */
  feed(text) {
    this.buffer += text;
    const held = this.buffer.endsWith("\r") ? "\r" : ""; // maybe the first half of a CRLF
    const lines = this.buffer.slice(0, this.buffer.length - held.length).split(/\r\n|\r|\n/);
    this.buffer = (lines.pop() ?? "") + held; // an unfinished line waits for more text
    /** @type {SseMessage[]} */
    const messages = [];
    for (const line of lines) {
      if (line === "") {
        if (this.data.length) messages.push({ id: this.id, event: this.event || "message", data: this.data.join("\n") });
        this.reset();
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") this.data.push(value);
      else if (field === "event") this.event = value;
      else if (field === "id" && !value.includes("\0")) this.id = value;
    }
    return messages;
  }
}

/**
 * The messages of an SSE response body, as they arrive.
 * @param {ReadableStream<Uint8Array<ArrayBuffer>>} body
 * @param {() => void} [heard] called on every piece of text, a heartbeat's too
 * @returns {AsyncGenerator<SseMessage>}
 */
export async function* readMessages(body, heard = () => {}) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      heard();
      yield* parser.feed(value);
    }
  } finally {
    reader.releaseLock();
  }
}

/** The browser's online and offline signals (none where there is no window: node's tests). @param {string} type @param {() => void} listener */
const onWindow = (type, listener) => globalThis.addEventListener?.(type, listener);
/** @param {string} type @param {() => void} listener */
const offWindow = (type, listener) => globalThis.removeEventListener?.(type, listener);

/** A pause before trying again, cut short when the browser comes back online. @param {number} ms @param {AbortSignal} signal @returns {Promise<void>} */
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const done = () => (clearTimeout(timer), offWindow("online", done), resolve());
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    onWindow("online", done);
  });

/**
 * Follow a game's events until the game is finished or `stop()` is called. A dropped
 * connection is opened again after a growing pause, with `Last-Event-ID` set to the last
 * event seen, so no event is missed or seen twice.
 * @param {string} gameId
 * @param {{token?: string|null, onEvent: (event: FeedEvent) => void, onStatus?: OnStatus}} options
 * @returns {() => void} stop
 */
export function followGame(gameId, { token, onEvent, onStatus = () => {} }) {
  return followFeed(`/v1/games/${encodeURIComponent(gameId)}/events`, { token, onEvent, onStatus, ends: (event) => event.game.status === "finished" || event.game.status === "cancelled" });
}

/**
 * Follow a player's own feed (`GET /v1/players/me/events`, the key in the header) until `stop()`:
 * it never ends by itself; a replaced key ends it (`ended`, with the problem).
 * @param {string} key
 * @param {{onEvent: (event: import("./types.js").PlayerEvent) => void, onStatus?: OnStatus}} options
 * @returns {() => void} stop
 */
export function followPlayer(key, { onEvent, onStatus = () => {} }) {
  return followFeed("/v1/players/me/events", { token: key, onEvent, onStatus, ends: () => false });
}

/** @typedef {(status: "live"|"reconnecting"|"ended", problem?: ApiProblem) => void} OnStatus */

/**
 * An event stream, read with fetch and resumed from the last event seen, until `ends` says an
 * event was its last, the service refuses it (a 4xx other than 429), or `stop()` is called. A
 * resume the feed cannot take (`unknown_event_id`: it has no event of that id) starts it again
 * from the whole state, at once.
 * A connection is given up (and opened again) when it falls silent past the heartbeats, or when the
 * browser says it went offline: a lost network shows as "reconnecting", never as "live".
 * @template {{id: number}} Event
 * @param {string} url
 * @param {{token?: string|null, onEvent: (event: Event) => void, onStatus: OnStatus, ends: (event: Event) => boolean}} options
 * @returns {() => void} stop
 */
function followFeed(url, { token, onEvent, onStatus, ends }) {
  const controller = new AbortController();
  const { signal } = controller;
  /** @type {string|null} */
  let lastId = null;
  let finished = false;

  async function connectOnce() {
    /** @type {Record<string, string>} */
    const headers = { Accept: "text/event-stream" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (lastId !== null) headers["Last-Event-ID"] = lastId;
    const connection = new AbortController(); // this connection only: silence or going offline ends it
    const drop = () => connection.abort();
    signal.addEventListener("abort", drop, { once: true });
    onWindow("offline", drop);
    /** @type {ReturnType<typeof setTimeout>|undefined} */
    let silence;
    const heard = () => (clearTimeout(silence), (silence = setTimeout(drop, SILENCE_MS)));
    try {
      heard();
      const response = await fetch(url, { headers, signal: connection.signal, cache: "no-store" });
      if (!response.ok || !response.body) {
        const problem = await response.json().catch(() => ({}));
        throw new ApiProblem(problem.code ?? "internal_error", response.status, problem.detail ?? response.statusText);
      }
      onStatus("live");
      let received = 0;
      for await (const message of readMessages(response.body, heard)) {
        received += 1;
        /** @type {Event} */
        const event = JSON.parse(message.data);
        lastId = message.id ?? String(event.id);
        finished ||= ends(event);
        onEvent(event);
      }
      return received;
    } finally {
      clearTimeout(silence);
      signal.removeEventListener("abort", drop);
      offWindow("offline", drop);
    }
  }

  (async () => {
    let pause = FIRST_RETRY_MS;
    while (!signal.aborted && !finished) {
      try {
        if (await connectOnce()) pause = FIRST_RETRY_MS; // events came through: start the backoff again
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiProblem && error.code === "unknown_event_id" && lastId !== null) {
          lastId = null; // the feed has no event of that id (a database restored, say): start again from the whole state
          continue;
        }
        const refused = error instanceof ApiProblem && error.status >= 400 && error.status < 500 && error.status !== 429;
        if (refused) return onStatus("ended", error); // a bad token or no such game: retrying will not help
      }
      if (signal.aborted || finished) break;
      onStatus("reconnecting");
      await sleep(pause + Math.random() * pause * 0.3, signal);
      pause = Math.min(pause * 2, LAST_RETRY_MS);
    }
    if (!signal.aborted) onStatus("ended");
  })();

  return () => controller.abort();
}
