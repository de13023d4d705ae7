// Users: find by id or name; a user's profile, devices and channels; a ban from the service;
// a device disconnected.
import { api, path } from "./api.js";
import { el, link, replace, say, table, time } from "./dom.js";

export async function render(main, args) {
  if (args.length > 0) return renderUser(main, args[0]);
  const query = el("input", { id: "user-query", type: "search", name: "query" });
  const results = el("div", { id: "user-results" });
  async function find() {
    const found = await api("GET", `/admin/v1/users?query=${encodeURIComponent(query.value)}&limit=100`);
    replace(results, table(`${found.length} found`, ["User", "Name", "Online", "Admin"],
      found.map((u) => [link(["users", u.userId], u.userId), u.displayName ?? "", u.isOnline ? "yes" : "no", u.isAdmin ? "yes" : ""])));
  }
  replace(main, el("h1", {}, "Users"),
    el("form", { className: "card", role: "search", onsubmit: (e) => { e.preventDefault(); find(); } },
      el("label", { for: "user-query" }, "Find a user by id or name"),
      el("div", { className: "row" }, query, el("button", { type: "submit" }, "Find"))),
    results);
  await find();
}

async function renderUser(main, userId) {
  const user = await api("GET", path("users", userId));
  const act = async (method, target, done) => {
    try {
      await api(method, target);
      say(done);
      await renderUser(main, userId);
    } catch (error) {
      say(error.message);
    }
  };
  const banned = user.bannedAt !== null && user.bannedAt !== undefined;
  replace(main,
    el("h1", {}, `User ${user.userId}`),
    el("section", { "aria-labelledby": "profile" },
      el("h2", { id: "profile" }, "Profile"),
      table("The user", ["Field", "Value"], [
        ["Id", user.userId], ["Name", user.displayName ?? "—"], ["Admin", user.isAdmin ? "yes" : "no"],
        ["Online", user.isOnline ? "yes" : "no"], ["Last active", time(user.lastActiveAt)],
        ["Registered", time(user.createdAt)],
        ["Banned from the service", banned ? `since ${time(user.bannedAt)}` : "no"]], "keep"),
      el("p", { className: "row" }, banned
        ? el("button", { type: "button", id: "unban-user", onclick: () => act("DELETE", path("users", userId, "ban"), `${userId} may connect again.`) }, "Lift the ban")
        : el("button", { type: "button", id: "ban-user", className: "danger", onclick: () => act("POST", path("users", userId, "ban"), `${userId} is banned from the service.`) }, "Ban from the service"))),
    el("section", { "aria-labelledby": "devices" },
      el("h2", { id: "devices" }, "Devices"),
      table(`${user.devices.length} ${user.devices.length === 1 ? "device" : "devices"}`, ["Device", "Connected", "Last event", ""],
        user.devices.map((d) => [d.deviceId, d.isConnected ? "yes" : "no", String(d.lastSequence),
          d.isConnected ? el("button", { type: "button", className: "secondary",
            onclick: () => act("DELETE", path("users", userId, "devices", d.deviceId), `${d.deviceId} disconnected.`) },
            `Disconnect ${d.deviceId}`) : ""]), "keep")),
    el("section", { "aria-labelledby": "memberships" },
      el("h2", { id: "memberships" }, "Channels"),
      user.channels.length === 0 ? el("p", { className: "muted" }, "A member of no channel.")
        : el("ul", {}, user.channels.map((c) => el("li", {}, link(["channels", c], c))))));
}
