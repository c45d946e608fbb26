/**
 * The TypeScript client of the Coins game service.
 *
 * - `createCoinsClient(baseUrl, { token })`: every REST operation, typed by the service's
 *   `openapi.yaml` (openapi-typescript's types, openapi-fetch's client):
 *   `await coins.POST("/v1/games/{game_id}/plays", { params: { path: { game_id } }, body: { card } })`.
 * - `followGame`, `followPlayer`: typed readers of the event feeds, resuming after a dropped connection.
 */
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";
export {
  CoinsProblem,
  FEED_EVENT_TYPES,
  FeedLost,
  PLAYER_EVENT_TYPES,
  followGame,
  followPlayer,
  isListedFeedEvent,
  isListedPlayerEvent,
} from "./events.js";
export type { FeedEvent, FollowOptions, PlayerEvent, Problem, UnlistedFeedEvent, UnlistedPlayerEvent } from "./events.js";
export { SSEDecoder, type ServerSentEvent } from "./sse.js";

type Schemas = components["schemas"];
export type Card = Schemas["Card"];
export type Game = Schemas["Game"];
export type Hand = Schemas["Hand"];
export type ProblemCode = Schemas["ProblemCode"];
export type YourTurnEvent = Schemas["YourTurnEvent"];
export type GameResultEvent = Schemas["GameResultEvent"];

/** The contract version this client was generated from (openapi.yaml's `info.version`). */
export const CONTRACT_VERSION = "1.3.0";

export type CoinsClient = Client<paths>;

/** A typed client of every operation. `token`: a seat's token or a player's key, sent as `Authorization: Bearer`. */
export function createCoinsClient(baseUrl: string, options: { token?: string } & Omit<ClientOptions, "baseUrl"> = {}): CoinsClient {
  const { token, headers, ...rest } = options;
  const merged = new Headers(headers as HeadersInit | undefined);
  if (token !== undefined) merged.set("Authorization", `Bearer ${token}`);
  return createClient<paths>({ ...rest, baseUrl: baseUrl.replace(/\/$/, ""), headers: merged });
}
