// The API's bodies as the contract defines them: aliases of the types that openapi-typescript
// generates from openapi.yaml into contract.d.ts (`npm run types:web`; CI fails when it is not
// current). No shape of the API is written here by hand; only the client's own types are.

/** @template {keyof import("./contract.js").components["schemas"]} Name @typedef {import("./contract.js").components["schemas"][Name]} Schema */

/** @typedef {Schema<"Card">} CardCode A card as `<rank>-<suit>`, e.g. `ace-coins`. */
/** @typedef {Schema<"GameStatus">} GameStatus */
/** @typedef {Schema<"BotStrength">} BotStrength */
/** @typedef {Schema<"Seat">} Seat */
/** @typedef {Schema<"Play">} Play */
/** @typedef {Schema<"Trick">} Trick */
/** @typedef {Schema<"Game">} Game */
/** @typedef {Schema<"GamePage">} GamePage */
/** @typedef {Schema<"CreateGame">} CreateGame */
/** @typedef {Schema<"CreatedGame">} CreatedGame */
/** @typedef {Schema<"JoinGame">} JoinGame */
/** @typedef {Schema<"JoinedGame">} JoinedGame */
/** @typedef {Schema<"Rematch">} Rematch */
/** @typedef {Schema<"DealtHand">} DealtHand */
/** @typedef {Schema<"PlayResult">} PlayResult */
/** @typedef {Schema<"Hand">} Hand */
/** @typedef {Schema<"Credential">} Credential */
/** @typedef {Schema<"Hint">} Hint */
/** @typedef {Schema<"Action">} Action */
/** @typedef {Schema<"ActionPage">} ActionPage */
/** @typedef {Schema<"Record">} GameRecord The game record of `GET /v1/games/{id}/record` (docs/records.md). */
/** @typedef {Schema<"RecordHand">} RecordHand */
/** @typedef {Schema<"Review">} Review */
/** @typedef {Schema<"ReviewedPlay">} ReviewedPlay */
/** @typedef {Schema<"PendingReview">} PendingReview */
/** @typedef {Schema<"Player">} Player */
/** @typedef {Schema<"PlayerWithKey">} CreatedPlayer */
/** @typedef {Schema<"PlayerGame">} PlayerGame */
/** @typedef {Schema<"PlayerGamePage">} PlayerGamePage */
/** @typedef {Schema<"Rating">} Rating */
/** @typedef {Schema<"RatedGame">} RatedGame */
/** @typedef {Schema<"RatingHistory">} RatingHistory */
/** @typedef {Schema<"Ticket">} Ticket */
/** @typedef {Schema<"Leaderboard">} Leaderboard */
/** @typedef {Schema<"LeaderboardEntry">} LeaderboardEntry */
/** @typedef {Schema<"Problem">} Problem */
/** @typedef {Schema<"ProblemCode">} ProblemCode */

/** One event of `GET /v1/games/{id}/events`, told apart by its `type` (game, seat_taken, … game_finished). */
/** @typedef {Schema<"FeedEvent">} FeedEvent */
/** @typedef {Schema<"EventPage">} EventPage A page of a game's events (a long poll's answer). */
/** One event of `GET /v1/players/me/events`, told apart by its `type` (player, match_found, … rematch_offered). */
/** @typedef {Schema<"PlayerEvent">} PlayerEvent */

export {};
