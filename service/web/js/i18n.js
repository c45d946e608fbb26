// Languages of the client: pick one from navigator.languages or localStorage, translate keys, name cards.

import { parseCard } from "./cards.js";
import en from "./messages/en.js";
import es from "./messages/es.js";
import fr from "./messages/fr.js";
import nl from "./messages/nl.js";
import uk from "./messages/uk.js";
import zhHant from "./messages/zh-Hant.js";

/** Every language offered, by BCP 47 tag. */
export const MESSAGES = Object.freeze({ en, es, nl, "zh-Hant": zhHant, fr, uk });
const STORAGE_KEY = "coins.language";

let current = "en";
/** @type {Set<() => void>} */
const listeners = new Set();

/**
 * The offered language that best matches a list of preferred tags (navigator.languages);
 * any Chinese gets Traditional Chinese, the only Chinese offered; English otherwise.
 * @param {readonly string[]} preferred
 */
export function matchLanguage(preferred) {
  const offered = Object.keys(MESSAGES);
  for (const tag of preferred) {
    const lower = tag.toLowerCase();
    const exact = offered.find((code) => code.toLowerCase() === lower);
    if (exact) return exact;
    const base = lower.split("-")[0];
    if (base === "zh") return "zh-Hant";
    if (offered.includes(base)) return base;
  }
  return "en";
}

/** The remembered choice, else the browser's preference. */
export function initialLanguage() {
  const saved = localStorage.getItem(STORAGE_KEY);
  return saved && saved in MESSAGES ? saved : matchLanguage(navigator.languages ?? [navigator.language]);
}

export const language = () => current;

/** Switch language, remember it, and tell every listener to render again. @param {string} code */
export function setLanguage(code) {
  current = code in MESSAGES ? code : "en";
  localStorage.setItem(STORAGE_KEY, current);
  document.documentElement.lang = current;
  for (const listener of listeners) listener();
}

/** @param {() => void} listener @returns {() => void} unsubscribe */
export function onLanguageChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * A message: a text with `{name}` placeholders, or, for a count, one text per plural category
 * of the language (`Intl.PluralRules`: English one/other, Ukrainian one/few/many/other, …).
 * @typedef {string | Partial<Record<Intl.LDMLPluralRule, string>>} Message
 */

/**
 * The message `key` in the current language, `{name}` placeholders filled from `params`; a
 * plural message takes the form that `params.count` asks for.
 * @param {string} key
 * @param {Record<string, string|number>} [params]
 */
export function t(key, params = {}) {
  /** @type {Message} */
  const message = MESSAGES[current][key] ?? en[key] ?? key;
  const template = typeof message === "string" ? message : pluralForm(message, Number(params.count ?? 0));
  const text = template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
  return current === "es" ? agreeInSpanish(text) : current === "fr" ? elideInFrench(text) : text;
}

/**
 * French elides the article before the ace: "l’as de pièces", where the templates say "le {card}" for the others
 * (le roi, le valet, le 7). @param {string} text
 */
export const elideInFrench = (text) => text.replace(/\b([Ll])e as\b/g, "$1’as");

/**
 * Spanish articles agree with the card they name: the knave is "la sota" ("jugó la sota de oros", "de la sota"),
 * where the templates say "el {card}" for the others (el as, el rey, el caballo, el 7).
 * @param {string} text
 */
const FEMININE = { el: "la", del: "de la", al: "a la" };
export function agreeInSpanish(text) {
  return text.replace(/\b([Ee]l|[Dd]el|[Aa]l) sota\b/g, (_, article) => {
    const fixed = FEMININE[/** @type {"el"|"del"|"al"} */ (article.toLowerCase())];
    return `${article[0] === "E" || article[0] === "D" || article[0] === "A" ? fixed[0].toUpperCase() + fixed.slice(1) : fixed} sota`;
  });
}

/** @param {Partial<Record<Intl.LDMLPluralRule, string>>} forms @param {number} count */
function pluralForm(forms, count) {
  return forms[new Intl.PluralRules(current).select(count)] ?? forms.other ?? "";
}

/** A moment (milliseconds since the epoch) as a date and time in the current language, e.g. "5 Dec 2026, 14:30". @param {number} at */
export const formatDate = (at) => new Intl.DateTimeFormat(current, { dateStyle: "medium", timeStyle: "short" }).format(at);

/**
 * A length of time in the current language's short units, to the unit that matters: whole days from a day
 * on (when they are whole), else hours and minutes, minutes, or seconds under a minute; each unit counted
 * down (59 min 59 s is "59 min"). E.g. "3 days", "23 h 59 min", "5 min", "45 s". @param {number} seconds
 */
export function durationText(seconds) {
  const whole = Math.max(0, Math.floor(seconds));
  const days = whole / 86_400;
  if (Number.isInteger(days) && days >= 1) return t("duration.days", { count: days });
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  if (hours > 0) return minutes > 0 ? t("duration.hoursMinutes", { hours, minutes }) : t("duration.hours", { count: hours });
  return minutes > 0 ? t("duration.minutes", { count: minutes }) : t("duration.seconds", { count: whole });
}

/** The name of a suit in the current language. */
export const suitName = (suit) => t(`suit.${suit}`);

/**
 * A suit as it follows a noun: a card's name without its rank ("of cups", "d’épées", "(Кубки)"), so a "pair of
 * …" reads as the cards do, elision and case included. @param {string} suit
 */
export const suitOf = (suit) => t(`card.of.${suit}`, { rank: "" }).trim();

/** The full name of a card, e.g. "knight of cups", "caballo de copas". @param {import("./types.js").CardCode} code */
export function cardName(code) {
  const { rank, suit } = parseCard(code);
  const rankText = Number(rank) ? rank : t(`rank.${rank}`);
  return t(`card.of.${suit}`, { rank: rankText });
}

/** A human message for a problem `code` of the API (or the client's own `network_error`). */
export function problemMessage(code) {
  const key = `problem.${code}`;
  return key in en ? t(key) : t("problem.unknown", { code });
}
