// The rules page (#/rules): Mark Steere's whole rule sheet in the current language, with the suit cycle drawn.

import { h, replace } from "./dom.js";
import { onLanguageChange, t } from "./i18n.js";
import { cycleView } from "./table-view.js";

/**
 * The rule sheet, section by section, as message keys: a title, then paragraphs ("p"), a numbered
 * list ("ol") or a list ("ul"); "cycle" draws the suit cycle. The order is the sheet's: the deck,
 * the suits, the deal, play, who wins a trick (with worked examples), scoring and the end.
 * @type {{title: string, parts: Array<["p" | "ol" | "ul", ...string[]] | ["cycle"]>}[]}
 */
export const SECTIONS = [
  { title: "rules.deckTitle", parts: [["p", "rules.deck", "rules.ranks"]] },
  { title: "rules.cycleTitle", parts: [["cycle"], ["p", "rules.cycle"]] },
  { title: "rules.dealTitle", parts: [["ol", "rules.deal1", "rules.deal2", "rules.deal3", "rules.deal4"]] },
  { title: "rules.playTitle", parts: [["p", "rules.play1", "rules.play2", "rules.play3", "rules.play4"]] },
  {
    title: "rules.tricksTitle",
    parts: [
      ["p", "rules.tricksIntro"],
      ["ol", "rules.trick1", "rules.trick2", "rules.trick3"],
      ["p", "rules.examplesTitle"],
      ["ul", "rules.example1", "rules.example2", "rules.example3", "rules.example4"],
    ],
  },
  { title: "rules.scoreTitle", parts: [["p", "rules.score1", "rules.score2", "rules.score3"]] },
  { title: "rules.publicTitle", parts: [["p", "rules.public"]] },
];

/** One part of a section. @param {["p" | "ol" | "ul", ...string[]] | ["cycle"]} part */
function partView([kind, ...keys]) {
  if (kind === "cycle") return cycleView();
  if (kind === "p") return keys.map((key) => h("p", {}, t(key)));
  return h(kind, {}, keys.map((key) => h("li", {}, t(key))));
}

/** @param {HTMLElement} root @returns {() => void} unmount */
export function mountRules(root) {
  function render() {
    replace(
      root,
      h(
        "article",
        { class: "panel rules", "aria-labelledby": "rules-title" },
        h("h2", { id: "rules-title" }, t("rules.title")),
        h("p", {}, t("rules.intro")),
        SECTIONS.map((section) => h("section", {}, h("h3", {}, t(section.title)), section.parts.map(partView))),
        h("p", { class: "rules-source" }, t("rules.source")),
        h("p", {}, h("a", { href: "#/" }, t("table.backToLobby"))),
      ),
    );
  }
  render();
  return onLanguageChange(render);
}
