// The Coins HTTP API (openapi.yaml): fetch with JSON bodies, bearer tokens and RFC 9457 problems.

/** @typedef {import("./types.js").Game} Game */
/** @typedef {import("./types.js").Hand} Hand */
/** @typedef {import("./types.js").Hint} Hint */
/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").ActionPage} ActionPage */

/** An `application/problem+json` answer: `code` is the stable ProblemCode to branch on. */
export class ApiProblem extends Error {
  /**
   * @param {string} code @param {number} status @param {string} detail
   * @param {Record<string, unknown>|null} [problem] the problem's body, with the members a code adds (`already_queued`'s `ticket`)
   */
  constructor(code, status, detail, problem = null) {
    super(`${status} ${code}: ${detail}`);
    this.code = code;
    this.status = status;
    this.detail = detail;
    this.problem = problem;
  }
}

const ATTEMPTS = 5; // one request and up to four retries, through network failures
const FIRST_RETRY_MS = 300;

/** A fresh `Idempotency-Key`: 128 random bits as hex (getRandomValues works on plain http too). */
export function idempotencyKey() {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One request, sent again (a bounded number of times, with a growing pause) when the network
 * failed or, for a POST, when the service says the first try with its key is still running.
 * Every POST carries one `Idempotency-Key` for all its tries, so a retry whose first try did
 * reach the service gets that try's answer and nothing is applied twice.
 * @param {string} method
 * @param {string} path under /v1
 * @param {{token?: string|null, body?: unknown, text?: boolean, key?: string, full?: boolean}} [options] `text`: answer the body's text, not
 *   its JSON; `key`: a POST's Idempotency-Key, when the caller keeps it to send the same intent again later; `full`: answer
 *   `{status, body, retryAfter}`, for an operation whose successes differ by status (a 202 is a success, not an error)
 */
async function call(method, path, { token, body, text = false, key, full = false } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method === "POST") headers["Idempotency-Key"] = key ?? idempotencyKey();
  const payload = body === undefined ? undefined : JSON.stringify(body);
  for (let attempt = 1; ; attempt += 1) {
    const last = attempt === ATTEMPTS;
    let response;
    let raw;
    try {
      response = await fetch(`/v1${path}`, { method, headers, body: payload });
      raw = response.status === 204 ? "" : await response.text(); // a connection lost mid-answer is a network failure too
    } catch {
      if (last) throw new ApiProblem("network_error", 0, "the service could not be reached");
      await sleep(FIRST_RETRY_MS * 2 ** (attempt - 1));
      continue;
    }
    let data = null;
    try {
      data = raw ? JSON.parse(raw) : null;
    } catch {
      data = null;
    }
    if (response.ok && full) return { status: response.status, body: data, retryAfter: Number(response.headers.get("Retry-After")) || null };
    if (response.ok) return text ? raw : data;
    if (data?.code === "idempotency_key_in_use" && !last) {
      await sleep(FIRST_RETRY_MS * 2 ** (attempt - 1));
      continue;
    }
    throw new ApiProblem(data?.code ?? "internal_error", response.status, data?.detail ?? response.statusText, data && typeof data === "object" ? data : null);
  }
}

const game = (id) => `/games/${encodeURIComponent(id)}`;

/** @param {unknown} body @param {string|null} [key] a player's key, for `{"player": "me"}` seats @returns {Promise<import("./types.js").CreatedGame>} */
export const createGame = (body, key = null) => call("POST", "/games", { body, token: key });
/** @returns {Promise<import("./types.js").GamePage>} */
export const listOpenGames = () => call("GET", "/games?status=waiting_for_players&limit=20");
/** @returns {Promise<import("./types.js").GamePage>} */
export const listGamesInPlay = () => call("GET", "/games?status=playing&limit=20");
/** @returns {Promise<import("./types.js").Rematch>} */
export const rematch = (id, token) => call("POST", `${game(id)}/rematch`, { token });
/** @returns {Promise<Game>} */
export const getGame = (id) => call("GET", game(id));
/** A long poll of a game's events after `after`, waiting up to `wait` seconds for one. @returns {Promise<import("./types.js").EventPage>} */
export const gameEvents = (id, after, wait) => call("GET", `${game(id)}/events?after=${after}&wait=${wait}`);
/** Decline a finished game's rematch offer (or withdraw your own): it is cancelled for every seat. */
export const declineRematch = (id, token) => call("DELETE", `${game(id)}/rematch`, { token });
/** @param {string|null} [token] a player's key, to join with `{"player": "me"}` @returns {Promise<import("./types.js").JoinedGame>} */
export const joinGame = (id, body, token = null) => call("POST", `${game(id)}/players`, { body, token });
/** @returns {Promise<Hand>} */
export const getHand = (id, token) => call("GET", `${game(id)}/hand`, { token });
/** @returns {Promise<import("./types.js").DealtHand>} */
export const dealHand = (id, token) => call("POST", `${game(id)}/hands`, { token });
/** @param {string} [key] the play's Idempotency-Key (one per intent) @returns {Promise<import("./types.js").PlayResult>} */
export const playCard = (id, token, card, key) => call("POST", `${game(id)}/plays`, { token, body: { card }, key });
/**
 * A finished game's review: `202` (PendingReview, `retryAfter` seconds) while the worker computes it, then `200` (Review).
 * @returns {Promise<{status: 202, body: import("./types.js").PendingReview, retryAfter: number|null} | {status: 200, body: import("./types.js").Review, retryAfter: number|null}>}
 */
export const getReview = (id) => call("GET", `${game(id)}/review`, { full: true });
/** @returns {Promise<Hint>} */
export const getHint = (id, token) => call("GET", `${game(id)}/hint?strength=expert`, { token });
/** @returns {Promise<Game>} */
export const leaveGame = (id, token, seat) => call("POST", `${game(id)}/players/${seat}/leave`, { token, body: { bot: "basic" } });

const me = "/players/me";
/** @returns {Promise<import("./types.js").CreatedPlayer>} a new player, with their key (shown once) */
export const createPlayer = (name) => call("POST", "/players", { body: { name } });
/** @returns {Promise<import("./types.js").Player>} the key's player */
export const getMe = (key) => call("GET", me, { token: key });
/** @returns {Promise<import("./types.js").CreatedPlayer>} the player with a new key; the old one stops at once */
export const replaceKey = (key) => call("POST", `${me}/key`, { token: key });
/** @returns {Promise<import("./types.js").Player>} */
export const getPlayer = (id) => call("GET", `/players/${encodeURIComponent(id)}`);
/** @returns {Promise<null>} decline the seat reserved for you (a challenge): the game is cancelled */
export const declineChallenge = (id, key) => call("DELETE", `${game(id)}/players/me`, { token: key });
/** @param {"everyone"|"nobody"} challenges @returns {Promise<import("./types.js").Player>} who may challenge you */
export const setChallenges = (key, challenges) => call("PATCH", me, { token: key, body: { challenges } });
/** @returns {Promise<import("./types.js").PlayerGamePage>} the games waiting for players that you sit in or have a seat reserved in */
export const listMyWaitingGames = (key) => call("GET", `${me}/games?status=waiting_for_players&limit=20`, { token: key });
/** @returns {Promise<import("./types.js").PlayerGamePage>} the player's games, newest first */
export const listPlayerGames = (id, limit = 20) => call("GET", `/players/${encodeURIComponent(id)}/games?limit=${limit}`);
/** @returns {Promise<import("./types.js").RatingHistory>} the player's rated games, newest first, each rating before and after */
export const listPlayerRatings = (id, limit = 20) => call("GET", `/players/${encodeURIComponent(id)}/ratings?limit=${limit}`);
/** @returns {Promise<{public_key: string}>} the service's VAPID public key, for `pushManager.subscribe` */
export const getPushKey = () => call("GET", "/push/key");
/** @param {unknown} subscription a `PushSubscription.toJSON()` with `types` @returns {Promise<{id: string, types: string[], created_at: string}>} */
export const createPushSubscription = (key, subscription) => call("POST", `${me}/push-subscriptions`, { token: key, body: subscription });
/** @returns {Promise<null>} */
export const deletePushSubscription = (key, id) => call("DELETE", `${me}/push-subscriptions/${encodeURIComponent(id)}`, { token: key });
/** @returns {Promise<import("./types.js").Ticket>} */
export const enterQueue = (key, body) => call("POST", "/queue", { token: key, body });
/** @returns {Promise<import("./types.js").Ticket>} */
export const getTicket = (key, id) => call("GET", `/queue/${encodeURIComponent(id)}`, { token: key });
/** @returns {Promise<null>} */
export const cancelTicket = (key, id) => call("DELETE", `/queue/${encodeURIComponent(id)}`, { token: key });
/** @param {string|null} [cursor] @param {boolean} [provisional] the rising players instead @returns {Promise<import("./types.js").Leaderboard>} */
export const getLeaderboard = (cursor = null, provisional = false) =>
  call("GET", `/leaderboard?limit=50${provisional ? "&provisional=true" : ""}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);

/**
 * The game's record (getRecord), as served: its text, to save byte for byte, and the document.
 * @returns {Promise<{text: string, record: import("./types.js").GameRecord}>}
 */
export async function getRecord(id) {
  const text = await call("GET", `${game(id)}/record`, { text: true });
  return { text, record: JSON.parse(text) };
}

/**
 * Every deal and play of a game, oldest first (all pages).
 * @returns {Promise<Action[]>}
 */
export async function listActions(id) {
  const actions = [];
  let cursor = null;
  do {
    const query = cursor ? `?limit=500&cursor=${encodeURIComponent(cursor)}` : "?limit=500";
    /** @type {ActionPage} */
    const page = await call("GET", `${game(id)}/actions${query}`);
    actions.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return actions;
}
