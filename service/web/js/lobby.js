// The lobby: what Coins is and Play (before you sign in), you as a player (Play now), your games and results, create a game (seats for you, people and bots), games with open seats and games to watch (kept fresh).

import * as api from "./api.js";
import { idleText, isIdle } from "./age.js";
import { h, oneAtATime, replace } from "./dom.js";
import { durationText, formatDate, onLanguageChange, t } from "./i18n.js";
import { DATE_FROM_SECONDS } from "./clock.js";
import { seatName } from "./names.js";
import { problemNotice, seededBadge } from "./notice.js";
import { CHALLENGE_CLOCKS, incomingChallenges } from "./challenge.js";
import { playerPanel } from "./player-panel.js";
import { playerSeat } from "./player.js";
import { listSeats, loadName, loadPlayer, loadSeat, saveName, saveSeat } from "./store.js";

/** The turn clocks a new game offers, in seconds a turn ("": none; a rated game without one gets 60 s):
 * quick games, then a challenge's clocks, live to correspondence. */
const GAME_CLOCKS = ["", "15", "30", ...CHALLENGE_CLOCKS.map(String)];
/** The clock the service gives a rated game created without one (contract 1.3), as the form shows it. */
const RATED_CLOCK = "60";

const SEAT_CHOICES = ["you", "open", "bot:random", "bot:basic", "bot:expert"];
const DEFAULT_SEATS = ["you", "bot:basic", "bot:expert"];
/** The lists refresh themselves this often, while the lobby is shown (at most REFRESHES times). */
const REFRESH_MS = 10_000;
const REFRESHES = 360;
/** How many of this browser's own games are listed. */
const OWN_GAMES = 10;

/** @param {HTMLElement} root @returns {() => void} unmount */
export function mountLobby(root) {
  /**
   * @type {{games: import("./types.js").Game[]|null, playing: import("./types.js").Game[]|null,
   *         own: import("./types.js").Game[], error: unknown, formError: unknown, introError: boolean}}
   */
  const state = { games: null, playing: null, own: [], error: null, formError: null, introError: false };
  /** A game is being made: Play and the form make no second one meanwhile. */
  let creating = false;

  /** Play: a game at once against the basic and the expert bot, made once however often it is clicked. */
  const play = oneAtATime(() => create({ target_score: 15, turn_timeout_seconds: null, rated: false, auto_deal: true, seats: [{ name: loadName() || t("home.guest") }, { bot: "basic" }, { bot: "expert" }] }, 0, true));

  /** @type {ReturnType<typeof createForm>|null} */
  let form = null;
  const challenges = incomingChallenges(() => refresh());
  const intro = h("div");
  // Signed in or out (a player made or a key pasted here): the first screen's Play, the form and the offers follow,
  // and a change of player reads the lists again at once ("Your games" are the player's), not at the next refresh.
  let signedInAs = loadPlayer()?.id ?? null;
  const player = playerPanel({
    onChange: () => {
      renderIntro();
      form?.render(state.introError ? null : state.formError);
      const now = loadPlayer()?.id ?? null;
      if (now === signedInAs) return void challenges.refresh();
      signedInAs = now;
      refresh(); // the offers too
    },
  });
  form = createForm();
  const listing = h("section", { class: "panel", "aria-labelledby": "open-title" });
  const watching = h("section", { class: "panel", "aria-labelledby": "playing-title" });
  const resume = h("div");
  // Offers first (a challenge, a rematch): on a phone they are not below the fold under Play now.
  replace(root, intro, challenges.element, player.element, resume, form.element, listing, watching);
  render();
  refresh();
  let refreshes = 0;
  const timer = setInterval(() => (refreshes += 1) > REFRESHES ? clearInterval(timer) : refresh(), REFRESH_MS);
  const stopLanguage = onLanguageChange(render);

  async function refresh() {
    try {
      const [open, playing, own] = await Promise.all([api.listOpenGames(), api.listGamesInPlay(), ownGames(), challenges.refresh()]);
      state.games = open.items;
      state.playing = playing.items;
      state.own = own;
      state.error = null;
    } catch (error) {
      state.error = error;
    }
    renderListing();
  }

  /**
   * Your games (the newest first), read to show each as a seat to resume or a result: the signed-in
   * player's (their player seats, quick play's included), then this browser's anonymous seats.
   */
  async function ownGames() {
    const held = loadPlayer();
    // Not a game the player left while it is played (a bot holds the seat: nothing to resume; it is there to watch).
    const yours = (/** @type {import("./types.js").PlayerGame} */ item) => !item.reserved && !(item.left && item.status !== "finished");
    const players = held ? (await api.listPlayerGames(held.id, OWN_GAMES).catch(() => ({ items: [] }))).items.filter(yours).map((item) => item.id) : [];
    const ids = [...new Set([...players, ...listSeats().slice(-OWN_GAMES).reverse()])].slice(0, OWN_GAMES);
    const games = await Promise.all(ids.map((id) => api.getGame(id).catch(() => null)));
    return /** @type {import("./types.js").Game[]} */ (games.filter(Boolean));
  }

  function render() {
    player.render(); // the form follows it (onChange)
    renderIntro();
    renderListing();
  }

  /**
   * The first screen's one line of what Coins is, with one Play button: a game at once against two bots, as the
   * name this browser remembers (or a guest). Signed in, the player panel's "Play now" is the way in instead.
   */
  function renderIntro() {
    if (loadPlayer()) return replace(intro);
    replace(
      intro,
      h(
        "section",
        { class: "panel intro", "aria-labelledby": "intro-title" },
        h("h2", { id: "intro-title" }, t("home.pitch")),
        h("button", { type: "button", class: "primary", id: "play-first", disabled: creating, onclick: play }, t("home.play")),
        state.formError && state.introError ? problemNotice(state.formError) : null,
      ),
    );
  }

  /** The open games and this browser's own seats; the form is left alone, so typing is not disturbed. */
  function renderListing() {
    replace(
      listing,
      h("h2", { id: "open-title" }, t("lobby.open")),
      state.error ? problemNotice(state.error) : null,
      state.games && !state.games.length && h("p", {}, t("lobby.none")),
      h("ul", { class: "open-games" }, (state.games ?? []).map(openGameItem)),
      h("button", { type: "button", onclick: refresh }, t("lobby.refresh")),
    );
    // Games to watch: those in play where this browser holds no seat (its own are under "Your games", to resume).
    const toWatch = (state.playing ?? []).filter((game) => loadSeat(game.id) === null && playerSeat(game) === null);
    replace(
      watching,
      h("h2", { id: "playing-title" }, t("lobby.playing")),
      state.playing && !toWatch.length && h("p", {}, t("lobby.nonePlaying")),
      h("ul", { class: "open-games" }, inPlayFirst(toWatch).map(playingItem)),
    );
    // Your games in play (yours to resume), then your results: a finished game leaves the games in play.
    const over = (game) => game.status === "finished" || game.status === "cancelled";
    const playing = inPlayFirst(state.own.filter((game) => !over(game)));
    // A cancelled game (a challenge declined or never answered) was never played: it is no result, with no scores.
    const results = state.own.filter((game) => game.status === "finished");
    replace(
      resume,
      playing.length > 0 &&
        h("section", { class: "panel", "aria-labelledby": "own-title" }, h("h2", { id: "own-title" }, t(loadPlayer() ? "lobby.yourGames" : "lobby.rejoin")), h("ul", { class: "own-games", id: "own-playing" }, playing.map(ownItem))),
      results.length > 0 &&
        h("section", { class: "panel", "aria-labelledby": "results-title" }, h("h2", { id: "results-title" }, t("lobby.results")), h("ul", { class: "own-games", id: "own-results" }, results.map(ownItem))),
    );
  }

  /** A game in play: who plays it, the scores, and a link to watch it. @param {import("./types.js").Game} game */
  function playingItem(game) {
    const scores = game.seats.map((seat) => `${seatName(seat)} ${seat.score}`).join(" · ");
    return h(
      "li",
      { class: "panel", "data-game": game.id },
      h("span", {}, t("lobby.inPlay", { scores, target: game.target_score }), idleText(game.updated_at) && h("span", { class: "idle", "data-idle": "true" }, ` · ${idleText(game.updated_at)}`)),
      seededBadge(game),
      h("a", { class: "button", href: `#/game/${encodeURIComponent(game.id)}`, "data-key": "watch" }, t("lobby.watch")),
    );
  }

  /** A line's text begun as a sentence ("your turn" is said mid-line elsewhere). @param {string} text */
  const sentence = (text) => text.charAt(0).toLocaleUpperCase() + text.slice(1);

  /** One of this browser's games: its result once finished, else a link back to the seat. @param {import("./types.js").Game} game */
  function ownItem(game) {
    const seat = loadSeat(game.id)?.seat ?? playerSeat(game)?.seat ?? null;
    const names = game.seats.map((item) => `${seatName(item, seat)} ${item.score}`).join(" · ");
    const href = `#/game/${encodeURIComponent(game.id)}`;
    const yourTurn = game.status !== "finished" && seat !== null && game.turn === seat;
    const resume = yourTurn ? sentence(`${t("profile.yourTurn")} — ${t("lobby.resume")}`) : t("lobby.resume");
    const idle = idleText(game.updated_at);
    if (game.status !== "finished") {
      // Whose turn it is, and until when once that is a day or more away (a correspondence game's clock), as the profile says.
      const toAct = game.status === "playing" && game.turn !== null && !yourTurn ? t("profile.theirTurn", { name: seatName(game.seats[game.turn], seat) }) : "";
      const deadline = game.status === "playing" && game.turn_deadline ? Date.parse(game.turn_deadline) : NaN;
      const until = deadline - Date.now() >= DATE_FROM_SECONDS * 1000 ? t("clock.until", { date: formatDate(deadline) }) : "";
      const stands = [names, toAct, until].filter(Boolean).join(" · ");
      return h("li", { "data-game": game.id, "data-your-turn": yourTurn ? "true" : "false" }, h("a", { href }, `${resume}: ${stands}`), idle && h("span", { class: "idle", "data-idle": "true" }, ` · ${idle}`), seededBadge(game));
    }
    const result = game.winner === seat ? t("lobby.won") : t("lobby.lost", { name: seatName(game.seats[game.winner ?? 0], seat) });
    return h("li", { "data-game": game.id, "data-result": game.winner === seat ? "won" : "lost" }, h("a", { href }, `${result} · ${names}`), seededBadge(game));
  }

  /** @param {import("./types.js").Game} game */
  function openGameItem(game) {
    const open = game.seats.filter((seat) => seat.open);
    const names = game.seats.filter((seat) => !seat.open).map((seat) => seatName(seat)).join(", ");
    return h(
      "li",
      { class: "panel", "data-game": game.id },
      h("span", {}, t("lobby.summary", { names, target: game.target_score, open: open.length })),
      seededBadge(game),
      open.length > 0 && h("a", { class: "button", href: `#/game/${encodeURIComponent(game.id)}/join?seat=${open[0].seat}` }, t("lobby.join")),
    );
  }

  /** Create the game; the seat is this browser's (a token kept) or, signed in, the player's (their key acts). */
  async function create(body, yourSeat, fromIntro = false) {
    if (creating) return;
    creating = true;
    state.formError = null;
    state.introError = fromIntro;
    try {
      const game = await api.createGame(body, loadPlayer()?.key ?? null);
      const credential = game.credentials.find((item) => item.seat === yourSeat);
      if (credential) saveSeat(game.id, credential);
      if (body.seats[yourSeat]?.name && !fromIntro) saveName(body.seats[yourSeat].name); // not "Guest"
      location.hash = `#/game/${encodeURIComponent(game.id)}`;
    } catch (error) {
      state.formError = error;
    } finally {
      creating = false;
    }
    if (state.formError === null) return;
    if (fromIntro) renderIntro();
    else form?.render(state.formError);
  }

  /**
   * The turn clock select of the form, its options in the current language, the choice kept. A rated game always has
   * a clock: while Rated is ticked, "No time limit" cannot be chosen, and a form that had it shows the 60 s the
   * service gives such a game. @param {HTMLSelectElement} select @param {boolean} rated
   */
  function clockChoices(select, rated) {
    const chosen = rated && !select.value ? RATED_CLOCK : select.value;
    replace(select, GAME_CLOCKS.map((value) => h("option", { value, selected: value === chosen, disabled: rated && !value }, value ? durationText(Number(value)) : t("lobby.noClock"))));
    select.value = chosen;
    return select;
  }

  function createForm() {
    const element = h("form", { class: "panel form-grid", "aria-labelledby": "create-title" });
    const fields = {
      name: h("input", { id: "create-name", name: "name", required: true, maxlength: 40, autocomplete: "nickname", value: loadName() }),
      age: h("input", { id: "create-age", name: "age", type: "number", min: 0, max: 150, inputmode: "numeric" }),
      target: h("input", { id: "create-target", name: "target", type: "number", min: 1, max: 100, value: "15", required: true }),
      timeout: h("select", { id: "create-timeout", name: "timeout" }),
      rated: h("input", { id: "create-rated", name: "rated", type: "checkbox" }),
      seats: DEFAULT_SEATS.map((choice, seat) => h("select", { id: `create-seat-${seat}`, name: `seat-${seat}`, "data-choice": choice })),
    };
    const message = h("div");
    fields.rated.addEventListener("change", () => clockChoices(fields.timeout, fields.rated.checked));
    element.addEventListener("submit", oneAtATime(async () => {
      const choices = fields.seats.map((select) => select.value);
      replace(message);
      if (choices.filter((choice) => choice === "you").length !== 1) {
        replace(message, h("p", { class: "message error", role: "alert" }, t("lobby.oneYou")));
        return;
      }
      // Signed in, you sit as your player (no name asked; the game is on your profile, and may be rated).
      const signedIn = loadPlayer() !== null;
      const you = signedIn ? { player: "me" } : { name: fields.name.value.trim(), age: fields.age.value ? Number(fields.age.value) : null };
      const seats = choices.map((choice) => (choice === "you" ? you : choice === "open" ? null : { bot: choice.slice(4) }));
      const timeout = fields.timeout.value ? Number(fields.timeout.value) : null;
      const rated = signedIn && fields.rated.checked;
      /** @type {Record<string, unknown>} */
      const body = { target_score: Number(fields.target.value), seats, rated };
      if (timeout !== null || !rated) body.turn_timeout_seconds = timeout; // a rated game without one gets 60 s
      await create(body, choices.indexOf("you"));
    }));

    function render(error) {
      const label = (input, text) => h("label", { for: input.id }, text);
      const held = loadPlayer();
      fields.name.required = !held;
      replace(
        element,
        h("h2", { id: "create-title" }, t("lobby.create")),
        held
          ? [h("p", { id: "create-as-player" }, t("lobby.asPlayer", { name: player.name() ?? "…" })), h("div", { class: "check" }, fields.rated, label(fields.rated, t("quick.rated")))]
          : [h("div", {}, label(fields.name, t("lobby.name")), fields.name), h("div", {}, label(fields.age, t("lobby.age")), fields.age)],
        h("div", {}, label(fields.target, t("lobby.target")), fields.target),
        h("div", {}, label(fields.timeout, t("lobby.timeout")), clockChoices(fields.timeout, Boolean(held) && fields.rated.checked)),
        fields.seats.map((select, seat) => {
          const chosen = select.value || select.dataset.choice || "open";
          replace(select, SEAT_CHOICES.map((choice) => h("option", { value: choice, selected: choice === chosen }, choiceLabel(choice))));
          select.value = chosen;
          return h("div", {}, label(select, t("lobby.seat", { n: seat + 1 })), select);
        }),
        message,
        error && problemNotice(error),
        h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", disabled: creating }, t("lobby.createButton"))),
      );
    }
    return { element, render };
  }

  return () => {
    clearInterval(timer);
    stopLanguage();
    player.stop();
  };
}

/** Games being played before those nobody has touched for a day (each keeps its order). @param {import("./types.js").Game[]} games */
const inPlayFirst = (games) => [...games.filter((game) => !isIdle(game)), ...games.filter((game) => isIdle(game))];

/** @param {string} choice */
function choiceLabel(choice) {
  if (choice === "you") return t("lobby.seatYou");
  if (choice === "open") return t("lobby.seatOpen");
  return t("lobby.seatBot", { strength: t(`strength.${choice.slice(4)}`) });
}
