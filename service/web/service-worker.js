// The service worker of the web client (served at /service-worker.js, scope "/"): it shows the
// service's push messages ({type, game, turn_deadline}, decrypted by the browser) while no tab is
// open, in the language of the page that registered it (?lang=), and opens the game when clicked. Its imports are
// relative to where it is served (/service-worker.js), not to this file.

import en from "./web/js/messages/en.js";
import es from "./web/js/messages/es.js";
import fr from "./web/js/messages/fr.js";
import nl from "./web/js/messages/nl.js";
import uk from "./web/js/messages/uk.js";
import zhHant from "./web/js/messages/zh-Hant.js";
import { resubscribe } from "./web/js/resubscribe.js";

const MESSAGES = { en, es, fr, nl, uk, "zh-Hant": zhHant };
const texts = MESSAGES[new URL(self.location.href).searchParams.get("lang") ?? "en"] ?? en;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data?.json() ?? {};
  } catch {
    message = {};
  }
  const game = typeof message.game === "string" ? message.game : null;
  const turn = message.type === "your_turn";
  const title = turn ? texts["notify.title"] : "Coins";
  const options = { body: turn ? texts["notify.body"] : texts["notify.other"], tag: `${message.type}:${game}`, icon: "/web/img/favicon.svg", data: { game } };
  event.waitUntil(self.registration.showNotification(title, options));
});

// The browser replaced the subscription: a new one with the same key, recorded by an open tab (js/resubscribe.js).
self.addEventListener("pushsubscriptionchange", (event) => {
  event.waitUntil(resubscribe(event, self.registration, self.clients, fetch));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const game = event.notification.data?.game;
  const url = game ? `/#/game/${encodeURIComponent(game)}` : "/";
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows[0];
      if (open) return open.navigate(url).then((client) => (client ?? open).focus());
      return self.clients.openWindow(url);
    }),
  );
});
