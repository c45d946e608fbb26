/**
 * A small typed client for the Coins API, over the types openapi-typescript generates
 * from openapi.yaml (`npm run types` writes ./coins.d.ts). Every request and response type
 * below comes from the spec, so `npm run typecheck` fails as soon as the client and the
 * contract disagree. No dependencies: the platform's fetch (browsers, Node 18+, Deno, Bun).
 */
import type { components, operations } from "./coins";

type Schemas = components["schemas"];
export type Card = Schemas["Card"];
export type Game = Schemas["Game"];
export type GameStatus = Schemas["GameStatus"];
export type Problem = Schemas["Problem"];
export type ProblemCode = Schemas["ProblemCode"];

/** Not `never` (which would let any use type-check): a type nothing can be read from. */
type Missing<What extends string, Op> = { readonly missing: [What, Op] };
/** The JSON body of an operation's answer with the given status. */
type Answer<Op extends keyof operations, Status extends keyof operations[Op]["responses"]> =
  operations[Op]["responses"][Status] extends { content: { "application/json": infer Body } }
    ? Body
    : Missing<"application/json answer", Op>;
/** The JSON body an operation takes (required or optional). */
type Body<Op extends keyof operations> =
  NonNullable<operations[Op]["requestBody"]> extends { content: { "application/json": infer B } }
    ? B
    : Missing<"application/json body", Op>;
/** The query string an operation takes. */
type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

/** A failed request: the RFC 9457 problem the server answered, with its stable `code`. */
export class CoinsProblem extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail}`);
  }
  /** A `ProblemCode`, or a code added to the contract since this client was generated. */
  get code(): Problem["code"] {
    return this.problem.code;
  }
}

/** A read answered with its ETag, or `null` body when the server said 304 (nothing changed). */
export interface Versioned<T> {
  body: T | null;
  etag: string | null;
}

interface RequestOptions {
  token?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  ifNoneMatch?: string;
  ifMatch?: string;
}

export class CoinsClient {
  constructor(
    private readonly baseUrl: string,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  private async request<T>(method: "GET" | "POST", path: string, options: RequestOptions = {}): Promise<Versioned<T>> {
    const url = new URL(path, this.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { Accept: "application/json, application/problem+json" };
    if (options.token) headers["Authorization"] = `Bearer ${options.token}`;
    if (options.ifNoneMatch) headers["If-None-Match"] = options.ifNoneMatch;
    if (options.ifMatch) headers["If-Match"] = options.ifMatch;
    const init: RequestInit = { method, headers };
    if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(options.body);
    }
    const response = await this.fetchImpl(url, init);
    const etag = response.headers.get("ETag");
    if (response.status === 304) return { body: null, etag };
    const payload: unknown = await response.json();
    if (!response.ok) throw new CoinsProblem(payload as Problem);
    return { body: payload as T, etag };
  }

  private async json<T>(method: "GET" | "POST", path: string, options: RequestOptions = {}): Promise<T> {
    const { body } = await this.request<T>(method, path, options);
    if (body === null) throw new Error(`${method} ${path}: unexpected 304`);
    return body;
  }

  // -- games ------------------------------------------------------------------------

  listGames(query: Query<"listGames"> = {}): Promise<Answer<"listGames", 200>> {
    return this.json("GET", "/v1/games", { query });
  }

  /** Every field has a default: `createGame()` makes a game of three open seats, to 15. */
  createGame(body: Body<"createGame"> = {}): Promise<Answer<"createGame", 201>> {
    return this.json("POST", "/v1/games", { body });
  }

  getGame(gameId: string, ifNoneMatch?: string): Promise<Versioned<Answer<"getGame", 200>>> {
    return this.request("GET", `/v1/games/${encodeURIComponent(gameId)}`, ifNoneMatch ? { ifNoneMatch } : {});
  }

  getScores(gameId: string): Promise<Answer<"getScores", 200>> {
    return this.json("GET", `/v1/games/${encodeURIComponent(gameId)}/scores`);
  }

  // -- seats, hands, plays ----------------------------------------------------------

  joinGame(gameId: string, body: Body<"joinGame">): Promise<Answer<"joinGame", 201>> {
    return this.json("POST", `/v1/games/${encodeURIComponent(gameId)}/players`, { body });
  }

  dealHand(gameId: string, token: string): Promise<Answer<"dealHand", 201>> {
    return this.json("POST", `/v1/games/${encodeURIComponent(gameId)}/hands`, { token });
  }

  getHand(gameId: string, token: string): Promise<Answer<"getHand", 200>> {
    return this.json("GET", `/v1/games/${encodeURIComponent(gameId)}/hand`, { token });
  }

  playCard(gameId: string, token: string, card: Card, ifMatch?: string): Promise<Answer<"playCard", 201>> {
    const options: RequestOptions = { token, body: { card } satisfies Body<"playCard"> };
    if (ifMatch) options.ifMatch = ifMatch;
    return this.json("POST", `/v1/games/${encodeURIComponent(gameId)}/plays`, options);
  }

  listTricks(gameId: string, query: Query<"listTricks"> = {}): Promise<Answer<"listTricks", 200>> {
    return this.json("GET", `/v1/games/${encodeURIComponent(gameId)}/tricks`, { query });
  }

  getHint(gameId: string, token: string, query: Query<"getHint"> = {}): Promise<Answer<"getHint", 200>> {
    return this.json("GET", `/v1/games/${encodeURIComponent(gameId)}/hint`, { token, query });
  }

  leaveGame(gameId: string, seat: number, token: string, body: Body<"leaveGame"> = {}): Promise<Answer<"leaveGame", 200>> {
    return this.json("POST", `/v1/games/${encodeURIComponent(gameId)}/players/${seat}/leave`, { token, body });
  }

  listActions(gameId: string, query: Query<"listActions"> = {}): Promise<Answer<"listActions", 200>> {
    return this.json("GET", `/v1/games/${encodeURIComponent(gameId)}/actions`, { query });
  }

  // -- players and quick play (the token is a player key) -----------------------------

  /** The answer holds the player's key, once: keep it like a password. */
  createPlayer(body: Body<"createPlayer">): Promise<Answer<"createPlayer", 201>> {
    return this.json("POST", "/v1/players", { body });
  }

  getMyPlayer(key: string): Promise<Answer<"getMyPlayer", 200>> {
    return this.json("GET", "/v1/players/me", { token: key });
  }

  /** Every field has a default: `enterQueue(key)` asks for a rated game to 15. */
  enterQueue(key: string, body: Body<"enterQueue"> = {}): Promise<Answer<"enterQueue", 201>> {
    return this.json("POST", "/v1/queue", { token: key, body });
  }

  getTicket(key: string, ticketId: string): Promise<Answer<"getTicket", 200>> {
    return this.json("GET", `/v1/queue/${encodeURIComponent(ticketId)}`, { token: key });
  }

  // -- operations ---------------------------------------------------------------------

  getLiveness(): Promise<Answer<"getLiveness", 200>> {
    return this.json("GET", "/healthz");
  }

  getReadiness(): Promise<Answer<"getReadiness", 200>> {
    return this.json("GET", "/readyz");
  }
}

/** A whole game with three seats at one table, playing the first card of each hand. */
export async function playOneGame(client: CoinsClient): Promise<void> {
  await client.getReadiness();
  const created = await client.createGame({
    target_score: 10,
    seats: [{ name: "Ana", age: 41 }, { name: "Bo" }, null],
    first_dealer: 0,
  });
  const tokens = new Map<number, string>(created.credentials.map((c) => [c.seat, c.token]));
  const joined = await client.joinGame(created.id, { name: "Cy", age: 30 });
  if (joined.token !== null) tokens.set(joined.seat, joined.token); // null only for a player's seat (key)

  const lobby = await client.listGames({ status: "waiting_for_players", limit: 10 });
  console.log(`${lobby.items.length} games wait for players`);

  let etag: string | undefined;
  for (;;) {
    const { body: game, etag: tag } = await client.getGame(created.id, etag);
    etag = tag ?? undefined;
    if (game === null) continue; // 304: nothing changed since the last read
    const status = game.status; // a GameStatus, or a status added since: neither deal nor play then
    if (status === "finished" || game.turn === null) break;
    const token = tokens.get(game.turn);
    if (token === undefined) throw new Error(`no token for seat ${game.turn}`);
    if (status === "waiting_for_deal") {
      const dealt = await client.dealHand(game.id, token);
      console.log(`hand ${dealt.hand_number}: ${dealt.cutter} cut, ${dealt.leader} leads`);
      continue;
    }
    if (game.hand_number === 1 && game.trick === null) {
      const hint = await client.getHint(game.id, token, { strength: "expert" });
      console.log(`hint for seat ${hint.seat}: ${hint.card} (${hint.reason})`);
    }
    const hand = await client.getHand(game.id, token);
    const card: Card | undefined = hand.cards[0];
    if (card === undefined) throw new Error("my turn with no cards");
    try {
      const result = await client.playCard(game.id, token, card, etag);
      if (result.trick.winner !== null) console.log(`seat ${result.trick.winner} took ${result.trick.points}`);
    } catch (error) {
      if (error instanceof CoinsProblem && error.code === "precondition_failed") continue; // raced: read again
      throw error;
    }
  }
  const scores = await client.getScores(created.id);
  for (const score of scores.scores) console.log(`${score.name ?? `seat ${score.seat}`}: ${score.score}`);
  const tricks = await client.listTricks(created.id, { limit: 200 });
  console.log(`${tricks.items.length} tricks, winner seat ${scores.winner}`);
  const actions = await client.listActions(created.id, { limit: 500 });
  console.log(`${actions.items.length} actions`);

  // A second table, where the third player leaves and a bot takes the seat over.
  const other = await client.createGame({ seats: [{ name: "Di" }, { name: "Ed" }, { name: "Flo" }] });
  const leaver = other.credentials[2];
  if (leaver) {
    const left = await client.leaveGame(other.id, leaver.seat, leaver.token, { bot: "basic" });
    console.log(`seat ${leaver.seat} is now a ${left.seats[leaver.seat]?.bot ?? "?"} bot`);
  }
}
