// A player's profile (#/player/<id>, or #/me for your own): rating, record and games; for you, your key to copy, replace or forget.

import * as api from "./api.js";
import { challengeForm, challengeSetting } from "./challenge.js";
import { h, oneAtATime, replace } from "./dom.js";
import { formatDate, onLanguageChange, t } from "./i18n.js";
import { idleText } from "./age.js";
import { seatName } from "./names.js";
import { infoNotice, problemNotice } from "./notice.js";
import { replaceKey, signOut } from "./player.js";
import { ratingText, signed } from "./ratings.js";
import { loadPlayer } from "./store.js";

/** @typedef {import("./types.js").PlayerGame} PlayerGame */


/**
 * @param {HTMLElement} root
 * @param {string|null} playerId null: the signed-in player
 * @returns {() => void} unmount
 */
export function mountProfile(root, playerId) {
  /** @type {{player: import("./types.js").Player|null, games: PlayerGame[]|null, changes: Map<string, import("./types.js").RatedGame>, error: unknown, shown: boolean, confirm: "replace"|"forget"|null, note: string|null}} */
  const state = { player: null, games: null, changes: new Map(), error: null, shown: false, confirm: null, note: null };
  const view = h("div", { class: "profile" });
  replace(root, view);
  const stopLanguage = onLanguageChange(render);
  /** The control to put the keyboard on at the next render (a question asked or answered), by its id. */
  let focusNext = "";
  /** The id of the button that asked the key's question now open: the keyboard goes back to it once answered. */
  const askedBy = () => (state.confirm === "forget" ? "key-forget" : "key-replace");
  // Escape answers the key's question with Keep.
  view.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !state.confirm) return;
    event.preventDefault();
    ask(null)();
  });

  const own = () => {
    const held = loadPlayer();
    return held && (playerId === null || playerId === held.id) ? held : null;
  };

  async function load() {
    const held = own();
    try {
      if (playerId === null && !held) throw new api.ApiProblem("missing_token", 401, "not signed in");
      const player = held ? await api.getMe(held.key) : await api.getPlayer(/** @type {string} */ (playerId));
      state.player = player;
      const [games, ratings] = await Promise.all([api.listPlayerGames(player.id), api.listPlayerRatings(player.id)]);
      state.games = games.items;
      state.changes = new Map(ratings.items.map((item) => [item.game, item]));
      state.error = null;
    } catch (error) {
      state.error = error;
    }
    render();
  }

  /** A step in flight (a key being replaced): a second click meanwhile does nothing. */
  let running = false;

  /** @param {() => Promise<unknown>|void} step */
  async function run(step) {
    if (running) return;
    running = true;
    state.error = null;
    try {
      await step();
    } catch (error) {
      state.error = error;
    } finally {
      running = false;
    }
    if (state.confirm) focusNext = askedBy(); // the question answered: back where it was asked
    state.confirm = null;
    render();
  }

  const replaceIt = () => run(async () => ((await replaceKey()), (state.shown = true), (state.note = t("key.replaced"))));
  const forgetIt = () =>
    run(() => {
      signOut();
      location.hash = "#/";
    });

  async function copy() {
    const held = own();
    if (!held) return;
    try {
      await navigator.clipboard.writeText(held.key);
      state.note = t("key.copied");
    } catch {
      state.shown = true; // no clipboard here (or refused): the key is shown, selected, to copy by hand
      state.note = t("key.copyByHand");
    }
    render();
    view.querySelector("#key-value")?.dispatchEvent(new Event("select"));
  }

  /**
   * Ask before replacing or forgetting the key (the question takes the keyboard, on Keep), or stop asking (the
   * keyboard goes back to the button that asked). @param {"replace"|"forget"|null} what
   */
  const ask = (what) => () => {
    focusNext = what ? "key-keep" : askedBy();
    state.confirm = what;
    render();
  };

  /**
   * Each render draws the page anew: the keyboard stays on the control it was on (by its id), or goes where a question
   * asked or answered sends it.
   */
  function render() {
    const active = document.activeElement;
    const focused = focusNext || (active && view.contains(active) ? active.id : "");
    focusNext = "";
    draw();
    const target = focused && view.querySelector(`#${CSS.escape(focused)}`);
    if (target instanceof HTMLElement) target.focus({ preventScroll: true });
  }

  function draw() {
    const player = state.player;
    if (!player) {
      replace(view, state.error ? problemNotice(state.error) : h("p", {}, "…"), h("p", {}, h("a", { href: "#/" }, t("table.backToLobby"))));
      return;
    }
    const held = own();
    const signedIn = loadPlayer() !== null;
    const rating = player.rating;
    replace(
      view,
      h(
        "section",
        { class: "panel", "aria-labelledby": "profile-title", "data-player": player.id },
        h("h2", { id: "profile-title" }, player.name),
        h(
          "dl",
          { class: "facts" },
          h("dt", {}, t("profile.rating")),
          h("dd", { id: "profile-rating", "data-provisional": rating.provisional ? "true" : "false" }, ratingText(rating)),
          h("dt", {}, t("profile.ratedGames")),
          h("dd", { id: "profile-rated-games" }, String(rating.games)),
          h("dt", {}, t("profile.record")),
          h("dd", { id: "profile-record" }, t("profile.recordLine", { count: player.games.played, won: player.games.won })),
        ),
        rating.provisional && h("p", { class: "hint-line" }, t("profile.provisionalWhy")),
      ),
      state.error ? problemNotice(state.error) : null,
      !held && signedIn && !player.bot && challengeForm(player),
      held && challengeSetting(player, held.key, (changed) => ((state.player = changed), render())),
      gamesPanel(state.games ?? [], player.name, held !== null),
      held && keyPanel(held.key),
      h("p", {}, h("a", { href: "#/leaderboard" }, t("leaderboard.title")), " · ", h("a", { href: "#/" }, t("table.backToLobby"))),
    );
  }

  /** @param {PlayerGame[]} games @param {string} name the profile's player @param {boolean} yours your own profile */
  function gamesPanel(games, name, yours) {
    return h(
      "section",
      { class: "panel", "aria-labelledby": "profile-games" },
      h("h2", { id: "profile-games" }, t("profile.games")),
      !games.length && h("p", {}, t("profile.noGames")),
      h("ul", { class: "own-games" }, games.map((game) => gameItem(game, name, yours))),
    );
  }

  /**
   * A game of the list: when, where it stands (whose turn, by name; its age once nobody has touched it for a day), the
   * player's place once finished, their score against each opponent's, rated or not, and a rated game's change.
   * "You" only on your own profile: another player's speaks of them by name.
   * @param {PlayerGame} game @param {string} name the profile's player @param {boolean} yours your own profile
   */
  function gameItem(game, name, yours) {
    const toAct = game.turn === game.seat ? name : opponentName(game.opponents.find((seat) => seat.seat === game.turn));
    const whose = game.status !== "playing" || game.turn === null ? "" : game.your_turn && yours ? t("profile.yourTurn") : t("profile.theirTurn", { name: toAct });
    const change = state.changes.get(game.id);
    const moved = change && t("profile.change", { place: change.place, before: change.before.value, after: change.after.value, delta: signed(change.after.value - change.before.value) });
    const place = game.place !== null && !moved ? t("profile.place", { place: game.place }) : ""; // a rated change says the place itself
    const idle = game.status === "finished" || game.status === "cancelled" ? "" : idleText(game.updated_at);
    const others = game.opponents.map((seat) => `${opponentName(seat)} ${seat.score}`).join(", ");
    const scores = game.status === "waiting_for_players" || game.status === "cancelled" ? "" : yours ? t("profile.scores", { score: game.score, others }) : t("profile.scoresOf", { name, score: game.score, others });
    const parts = [t(`profile.status.${game.status}`), whose, idle, place, scores, game.rated ? t("profile.rated") : "", game.left ? t("profile.left") : "", moved].filter(Boolean);
    return h(
      "li",
      { "data-game": game.id, "data-your-turn": game.your_turn ? "true" : "false", "data-place": game.place ?? null },
      h("a", { href: `#/game/${encodeURIComponent(game.id)}` }, `${t("profile.game", { date: formatDate(Date.parse(game.created_at)) })} · ${parts.join(" · ")}`),
    );
  }

  /** Your key: copy it to sign in on another device, replace it, or forget it here. @param {string} key */
  function keyPanel(key) {
    return h(
      "section",
      { class: "panel key-panel", "aria-labelledby": "key-title" },
      h("h2", { id: "key-title" }, t("key.title")),
      h("p", {}, t("key.intro")),
      state.note && infoNotice(state.note),
      state.shown && h("p", {}, h("label", { for: "key-value" }, t("player.key")), h("input", { id: "key-value", readonly: true, value: key, spellcheck: "false", onfocus: (event) => event.target.select() })),
      h(
        "p",
        { class: "actions" },
        h("button", { type: "button", id: "key-copy", onclick: copy }, t("key.copy")),
        h("button", { type: "button", id: "key-show", onclick: () => ((state.shown = !state.shown), render()) }, t(state.shown ? "key.hide" : "key.show")),
        h("button", { type: "button", id: "key-replace", onclick: ask("replace") }, t("key.replace")),
        h("button", { type: "button", id: "key-forget", onclick: ask("forget") }, t("key.forget")),
      ),
      state.confirm &&
        h(
          "div",
          { class: "message confirm", role: "alert" },
          h("p", {}, t(state.confirm === "replace" ? "key.replaceWarning" : "key.forgetWarning")),
          h(
            "p",
            { class: "actions" },
            h("button", { type: "button", class: "danger", id: "key-confirm", onclick: oneAtATime(state.confirm === "replace" ? replaceIt : forgetIt) }, t(state.confirm === "replace" ? "key.replaceConfirm" : "key.forgetConfirm")),
            h("button", { type: "button", id: "key-keep", onclick: ask(null) }, t("key.keep")),
          ),
        ),
    );
  }

  load();
  return () => stopLanguage();
}

/** An opponent of a player's game as seats are named (a bot's name in the language, an open seat as such). @param {import("./types.js").PlayerGame["opponents"][number]|undefined} seat */
function opponentName(seat) {
  if (!seat) return "?";
  return seatName({ ...seat, open: seat.name === null && seat.bot === null && seat.player === null, cards_in_hand: 0, tricks_won: 0, rating: null, rating_change: null, reserved_for: null });
}
