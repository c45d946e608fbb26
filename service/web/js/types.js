// JSDoc types of the API's bodies (openapi.yaml's schemas) and of the event stream; no code.

/** @typedef {string} CardCode A card as `<rank>-<suit>`, e.g. `ace-coins` (the Card enum). */
/** @typedef {"waiting_for_players"|"waiting_for_deal"|"playing"|"finished"} GameStatus */
/** @typedef {"random"|"basic"|"expert"} BotStrength */

/**
 * @typedef {object} Seat
 * @property {number} seat
 * @property {string|null} name
 * @property {BotStrength|null} bot
 * @property {boolean} open
 * @property {number} score
 * @property {number} cards_in_hand
 * @property {number} tricks_won
 */

/** @typedef {{seat: number, card: CardCode}} Play */

/**
 * @typedef {object} Trick
 * @property {number} hand_number
 * @property {number} trick_number
 * @property {number} leader
 * @property {Play[]} plays
 * @property {boolean} complete
 * @property {number|null} winner
 * @property {number|null} points
 */

/**
 * @typedef {object} Game
 * @property {string} id
 * @property {GameStatus} status
 * @property {number} target_score
 * @property {boolean} seeded
 * @property {boolean} auto_deal
 * @property {number} version
 * @property {Seat[]} seats
 * @property {number} hand_number
 * @property {number|null} dealer
 * @property {number|null} turn
 * @property {string|null} turn_deadline
 * @property {number|null} turn_timeout_seconds
 * @property {Trick|null} trick
 * @property {Trick|null} last_trick
 * @property {string|null} commitment
 * @property {number|null} winner
 */

/** @typedef {{seat: number, hand_number: number, cards: CardCode[]}} Hand */
/** @typedef {{seat: number, token: string}} Credential */
/** @typedef {{card: CardCode, reason: string, seat: number, strength: BotStrength}} Hint */

/**
 * @typedef {object} Action
 * @property {number} seq
 * @property {"deal"|"play"} kind
 * @property {number} seat
 * @property {number} hand_number
 * @property {CardCode|null} card
 * @property {string|null} commitment
 * @property {string|null} seed
 */

/**
 * An event of `GET /v1/games/{id}/events`: `type` is one of game, seat_taken, seat_left,
 * hand_dealt, hand, card_played, trick_won, hand_ended, game_finished; the other fields
 * depend on it.
 * @typedef {object} GameEvent
 * @property {number} id
 * @property {string} type
 * @property {number} version
 * @property {Game} game
 * @property {Hand} [hand]
 * @property {number} [seat]
 * @property {CardCode[]} [cards]
 * @property {CardCode} [card]
 * @property {string} [cause]
 * @property {number} [hand_number]
 * @property {number} [dealer]
 * @property {number} [shuffler]
 * @property {number} [cutter]
 * @property {string} [commitment]
 * @property {Trick} [trick]
 * @property {string} [seed]
 * @property {number[]} [scores]
 * @property {number} [winner]
 */

export {};
