// The rules page (#/rules): the rule sheet in the current language, with the suit cycle and a worked card of each kind.

import { h, replace } from "./dom.js";
import { onLanguageChange, t } from "./i18n.js";
import { cycleView } from "./table-view.js";

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
        h("h3", {}, t("rules.suitsTitle")),
        cycleView(),
        h("p", {}, t("rules.ranks")),
        h("h3", {}, t("rules.tricksTitle")),
        h("ol", {}, ["rules.trick1", "rules.trick2", "rules.trick3"].map((key) => h("li", {}, t(key)))),
        h("p", {}, t("rules.goal")),
        h("h3", {}, t("rules.playTitle")),
        h("p", {}, t("rules.play")),
        h("p", { class: "rules-source" }, t("rules.source")),
        h("p", {}, h("a", { href: "#/" }, t("table.backToLobby"))),
      ),
    );
  }
  render();
  return onLanguageChange(render);
}
