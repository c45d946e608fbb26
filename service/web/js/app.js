// The client's entry point: the language picker, and routing by the URL's hash to the lobby, a join form, a table, a profile or the leaderboard.

import { h, replace } from "./dom.js";
import { MESSAGES, initialLanguage, language, onLanguageChange, setLanguage, t } from "./i18n.js";
import { mountJoin } from "./join.js";
import { mountLeaderboard } from "./leaderboard.js";
import { mountLobby } from "./lobby.js";
import { isGameId, mountMissingGame } from "./missing.js";
import { mountProfile } from "./profile.js";
import { mountRules } from "./rules.js";
import { loadSeat } from "./store.js";
import { mountTable } from "./table.js";

/** An element index.html always has. @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const main = byId("main");
const picker = /** @type {HTMLSelectElement} */ (document.getElementById("language"));
let unmount = () => {};

/**
 * `#/` the lobby; `#/game/<id>` its table; `#/game/<id>/join?seat=N` the form to take seat N;
 * `#/me` your profile, `#/player/<id>` a player's; `#/leaderboard`.
 * @param {string} hash
 * @returns {{view: "lobby"} | {view: "rules"} | {view: "leaderboard"} | {view: "profile", playerId: string|null} | {view: "table", gameId: string} | {view: "join", gameId: string, seat: number|null}}
 */
export function parseRoute(hash) {
  const [path, query = ""] = hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodePart);
  if (parts[0] === "game" && parts[1]) {
    const seat = new URLSearchParams(query).get("seat");
    if (parts[2] === "join") return { view: "join", gameId: parts[1], seat: seat === null ? null : Number(seat) };
    return { view: "table", gameId: parts[1] };
  }
  if (parts[0] === "rules") return { view: "rules" };
  if (parts[0] === "leaderboard") return { view: "leaderboard" };
  if (parts[0] === "me") return { view: "profile", playerId: null };
  if (parts[0] === "player" && parts[1]) return { view: "profile", playerId: parts[1] };
  return { view: "lobby" };
}

/** A part of the hash, decoded; a malformed escape (a cut-off link) is kept as it is. @param {string} part */
function decodePart(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function route() {
  unmount();
  const target = parseRoute(location.hash);
  if ((target.view === "join" || target.view === "table") && !isGameId(target.gameId)) unmount = mountMissingGame(main, target.gameId);
  else if (target.view === "join" && !loadSeat(target.gameId)) unmount = mountJoin(main, target.gameId, target.seat);
  else if (target.view === "rules") unmount = mountRules(main);
  else if (target.view === "leaderboard") unmount = mountLeaderboard(main);
  else if (target.view === "profile") unmount = mountProfile(main, target.playerId);
  else if (target.view !== "lobby") unmount = mountTable(main, target.gameId);
  else unmount = mountLobby(main);
}

/** The page's own texts (title, byline, picker) in the current language. */
function renderChrome() {
  byId("byline").textContent = t("site.byline");
  byId("language-label").textContent = t("site.language");
  byId("rules-link").textContent = t("rules.link");
  byId("leaderboard-link").textContent = t("leaderboard.title");
  /** @type {HTMLElement} */ (document.querySelector(".skip-link")).textContent = t("site.skip");
  replace(picker, Object.keys(MESSAGES).map((code) => h("option", { value: code, lang: code, selected: code === language() }, MESSAGES[code]["language.name"])));
  picker.value = language();
}

onLanguageChange(renderChrome);
picker.addEventListener("change", () => setLanguage(picker.value));
window.addEventListener("hashchange", route);
setLanguage(initialLanguage());
route();
