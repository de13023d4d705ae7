// The console's page: who is signed in, which section the address names, and moving between
// sections without reloading (deep links such as /console/users/<id> load the same page).
import { api, ApiError } from "./api.js";
import { el, replace, say } from "./dom.js";
import * as overview from "./overview.js";
import * as users from "./users.js";
import * as channels from "./channels.js";
import * as moderation from "./moderation.js";
import * as live from "./live.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
let stopPage = null;

/** The section and its arguments named by the address. */
function route() {
  let parts;
  try {
    parts = location.pathname.split("/").filter(Boolean).slice(1).map(decodeURIComponent);
  } catch {
    return [missing, []];  // a deep link that is not percent-encoded UTF-8
  }
  switch (parts[0]) {
    case "users": return [users, parts.slice(1)];
    case "channels": return [channels, parts.slice(1)];
    case "moderation": return [moderation, []];
    default: return [overview, []];
  }
}

/** The page of an address the console has no page for. */
const missing = {
  render(main) {
    replace(main, el("h1", {}, "No such page"),
      el("p", { id: "no-such-page" }, "The address names no page of the console. Pick a section above."));
  },
};

async function show() {
  if (stopPage) stopPage();
  stopPage = null;
  const [page, args] = route();
  for (const a of nav.querySelectorAll("a")) {
    const current = a.getAttribute("href") === "/console" ? location.pathname === "/console" || location.pathname === "/console/"
      : location.pathname.startsWith(a.getAttribute("href"));
    if (current) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  try {
    stopPage = await page.render(main, args);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return signIn();
    replace(main, el("h1", {}, "Something went wrong"), el("p", { className: "error" }, error.message));
  }
  main.focus();
}

/** The sign-in form: an admin's token, refused ones saying why. */
function signIn(reason) {
  nav.hidden = true;
  const token = el("input", { id: "token", name: "token", type: "password", autocomplete: "off", required: true });
  const problem = el("p", { id: "sign-in-error", className: "error", role: "alert" }, reason ?? "");
  const form = el("form", { className: "card", id: "sign-in", onsubmit: async (event) => {
    event.preventDefault();
    problem.textContent = "";
    try {
      await api("POST", "/console/session", { token: token.value });
      token.value = "";
      nav.hidden = false;
      live.start();
      await show();
    } catch (error) {
      problem.textContent = `Refused: ${error.message}`;
    }
  } },
  el("label", { for: "token" }, "Token"),
  el("p", { className: "muted" }, "An admin's token (chat-server token USER, or dev:USER on a --dev server)."),
  el("div", { className: "row" }, token, el("button", { type: "submit" }, "Sign in")),
  problem);
  replace(main, el("h1", {}, "Sign in"), form);
  token.focus();
}

document.addEventListener("click", (event) => {
  const a = event.target.closest && event.target.closest("a[data-internal], nav a");
  if (!a || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  history.pushState(null, "", a.getAttribute("href"));
  show();
});
window.addEventListener("popstate", show);
document.getElementById("sign-out").addEventListener("click", async () => {
  await api("DELETE", "/console/session");
  live.stop();
  if (stopPage) stopPage();
  say("Signed out.");
  signIn();
});

(async () => {
  try {
    await api("GET", "/console/session");
    nav.hidden = false;
    live.start();
    await show();
  } catch (error) {
    signIn(error instanceof ApiError && error.status === 403 ? error.message : "");
  }
})();
