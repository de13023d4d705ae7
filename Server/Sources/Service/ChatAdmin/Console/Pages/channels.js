// Channels: find by id, name or tag; a channel's members (roles, mutes, bans) and its newest
// messages, kept current while the page is open (refreshed at each event about the channel that
// the page's connection receives); a message deleted, a member muted or banned.
import { api, path } from "./api.js";
import { coalesced, confirmed, el, link, replace, say, table, time } from "./dom.js";
import { channelOf, isLive, onEvent } from "./live.js";

export async function render(main, args) {
  if (args.length > 0) return renderChannel(main, args[0]);
  const query = el("input", { id: "channel-query", type: "search", name: "query" });
  const tag = el("input", { id: "channel-tag", type: "search", name: "tag" });
  const results = el("div", { id: "channel-results" });
  async function find() {
    let target = `/admin/v1/channels?query=${encodeURIComponent(query.value)}&limit=100`;
    if (tag.value) target += `&tag=${encodeURIComponent(tag.value)}`;
    const found = await api("GET", target);
    replace(results, table(`${found.length} found`, ["Channel", "Name", "Type", "Members", "Tags"],
      found.map((c) => [link(["channels", c.channelId], c.channelId), c.displayName ?? "", c.type,
        String(c.memberCount), (c.tags ?? []).join(", ")])));
  }
  replace(main, el("h1", {}, "Channels"),
    el("form", { className: "card", role: "search", onsubmit: (e) => { e.preventDefault(); find(); } },
      el("div", { className: "row" },
        el("div", {}, el("label", { for: "channel-query" }, "Id or name"), query),
        el("div", {}, el("label", { for: "channel-tag" }, "Tag"), tag),
        el("button", { type: "submit" }, "Find"))),
    results);
  await find();
}

async function renderChannel(main, channelId) {
  const heading = el("h1", {}, `Channel ${channelId}`);
  const about = el("section", { "aria-labelledby": "about" });
  const members = el("section", { "aria-labelledby": "members" });
  const messages = el("section", { "aria-labelledby": "messages", id: "channel-messages" });
  const settings = el("section", { "aria-labelledby": "filters", id: "channel-filters" });
  replace(main, heading, about, members, settings, messages);
  await renderFilters(settings, channelId);
  const act = async (method, target, body, done) => {
    try {
      await api(method, target, body);
      say(done);
      await refresh();
    } catch (error) {
      say(error.message);
    }
  };
  async function refresh() {
    const channel = await api("GET", path("channels", channelId));
    heading.textContent = `Channel ${channel.displayName ?? channel.channelId}`;
    replace(about, el("h2", { id: "about" }, "About"),
      table("The channel", ["Field", "Value"], [
        ["Id", channel.channelId], ["Name", channel.displayName ?? "—"], ["Type", channel.type],
        ["Tags", (channel.tags ?? []).join(", ") || "—"], ["Members", String(channel.memberCount)],
        ["Metadata", JSON.stringify(channel.metadata ?? {})], ["Deleted", channel.isDeleted ? "yes" : "no"]], "keep"));
    replace(members, el("h2", { id: "members" }, "Members"),
      table(`${channel.members.length} members and banned users`, ["User", "Roles", "Membership", "Muted", "Actions"],
        channel.members.map((m) => [link(["users", m.userId], m.userId), (m.roles ?? []).join(", "), m.membership,
          m.isMuted ? "yes" : "no",
          el("span", { className: "row" },
            m.isMuted
              ? el("button", { type: "button", className: "secondary", onclick: () => act("DELETE", path("channels", channelId, "mutes", m.userId), undefined, `${m.userId} unmuted.`) }, `Unmute ${m.userId}`)
              : el("button", { type: "button", className: "secondary", onclick: () => act("POST", path("channels", channelId, "mutes"), { userIds: [m.userId], period: 3600 }, `${m.userId} muted for an hour.`) }, `Mute ${m.userId}`),
            m.membership === "banned"
              ? el("button", { type: "button", className: "secondary", onclick: () => act("DELETE", path("channels", channelId, "bans", m.userId), undefined, `${m.userId} unbanned.`) }, `Unban ${m.userId}`)
              : confirmed(`Ban ${m.userId}`, `Ban ${m.userId} from the channel`, () => act("POST", path("channels", channelId, "bans"), { userIds: [m.userId] }, `${m.userId} banned from the channel.`)))]), "keep"));
    const list = channel.messages.slice().reverse();
    replace(messages, el("h2", { id: "messages" }, "Newest messages"),
      el("p", { className: "muted" }, "Newest first; new ones appear as they are sent."),
      table(`${list.length} messages`, ["From", "Message", "Sent", ""],
        list.map((m) => [m.userId, el("span", { className: m.isDeleted ? "message-text deleted" : "message-text", "data-message-id": m.messageId }, m.isDeleted ? "(deleted)" : m.text),
          time(m.createdAt),
          m.isDeleted ? "" : confirmed("Delete", "Delete for everyone", () => act("DELETE", path("channels", channelId, "messages", m.messageId), undefined, "Message deleted."), { "aria-label": `Delete the message from ${m.userId}` })]), "keep"));
  }
  await refresh();
  // One refresh at a time, at most a few a second; events arriving meanwhile ask for one more.
  const update = coalesced(refresh, 250);
  const stopEvents = onEvent((event) => { if (channelOf(event) === channelId) update(); });
  // Without a connection (it is being opened again), ask every 10 s.
  const timer = setInterval(() => { if (!isLive()) update(); }, 10000);
  return () => { stopEvents(); clearInterval(timer); };
}

/** The channel's content filters, changed through a form (a conversation has none). */
async function renderFilters(section, channelId) {
  let current;
  try {
    current = await api("GET", path("channels", channelId, "moderation"));
  } catch (error) {
    replace(section, el("h2", { id: "filters" }, "Moderation settings"), el("p", { className: "muted" }, error.message));
    return;
  }
  const words = el("textarea", { id: "blocked-words", rows: 3 });
  words.value = current.blockedWords.join("\n");
  const action = el("select", { id: "blocked-word-action" },
    el("option", { value: "refuse" }, "Refuse the message"), el("option", { value: "mask" }, "Mask the words"));
  action.value = current.blockedWordAction;
  const domains = el("textarea", { id: "allowed-domains", rows: 2 });
  domains.value = (current.allowedURLDomains ?? []).join("\n");
  const problem = el("p", { className: "error", role: "alert" });
  const lines = (text) => text.split("\n").map((line) => line.trim()).filter(Boolean);
  replace(section, el("h2", { id: "filters" }, "Moderation settings"),
    el("form", { id: "filters-form", onsubmit: async (event) => {
      event.preventDefault();
      problem.textContent = "";
      try {
        const allowed = lines(domains.value);
        await api("PUT", path("channels", channelId, "moderation"), {
          blockedWords: lines(words.value), blockedWordAction: action.value,
          allowedURLDomains: allowed.length > 0 ? allowed : null });
        say("Moderation settings saved.");
      } catch (error) {
        problem.textContent = error.message;
      }
    } },
    el("label", { for: "blocked-words" }, "Blocked words, one per line"), words,
    el("label", { for: "blocked-word-action" }, "A message with a blocked word"), action,
    el("label", { for: "allowed-domains" }, "Links allowed only to these domains, one per line (empty: anywhere)"), domains,
    el("p", {}, el("button", { type: "submit" }, "Save the settings")), problem));
}
