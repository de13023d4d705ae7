// Moderation: every flagged message and member across channels, newest messages first, each
// resolved by deleting the message, banning the member from the channel, or dismissing the flags.
import { api, path } from "./api.js";
import { coalesced, confirmed, el, link, replace, say } from "./dom.js";
import { onEvent } from "./live.js";

export async function render(main) {
  const queue = el("div", { id: "flag-queue" });
  replace(main, el("h1", {}, "Moderation"), queue);
  async function refresh() {
    // One call: each flagged message comes with its report, however old it is.
    const reports = await api("GET", "/admin/v1/flags");
    if (reports.length === 0) return replace(queue, el("p", { className: "muted" }, "Nothing is flagged."));
    const texts = {};
    for (const r of reports) if (r.message) texts[r.message.messageId] = r.message;
    const act = async (calls, done) => {
      try {
        for (const [method, target, body] of calls) await api(method, target, body);
        say(done);
        await update();
      } catch (error) {
        say(error.message);
      }
    };
    // Newest first: flagged messages by when they were sent, then flagged members.
    const when = (r) => (r.subject.message ? texts[r.subject.message.messageId]?.createdAt ?? 0 : -1);
    const ordered = reports.slice().sort((a, b) => when(b) - when(a));
    replace(queue, el("ul", { className: "reports" }, ordered.map((r) => {
      const by = `flagged by ${r.flaggedBy.join(", ")}`;
      if (r.subject.message) {
        const id = r.subject.message.messageId;
        const message = texts[id];
        return el("li", { className: "card report" },
          el("p", {}, "Message in ", link(["channels", r.channelId], r.channelId), ` from ${message?.userId ?? "?"}, ${by}:`),
          el("blockquote", { className: "message-text" }, message ? message.text : "(no longer kept)"),
          el("p", { className: "row" },
            confirmed("Delete the message", "Delete it for everyone", () => act([["DELETE", path("channels", r.channelId, "messages", id)], ["DELETE", path("flags", r.channelId, "messages", id)]], "Message deleted.")),
            message ? confirmed("Ban the sender", `Ban ${message.userId} from the channel`, () => act([["POST", path("channels", r.channelId, "bans"), { userIds: [message.userId] }], ["DELETE", path("flags", r.channelId, "messages", id)]], `${message.userId} banned.`)) : null,
            el("button", { type: "button", className: "secondary", onclick: () => act([["DELETE", path("flags", r.channelId, "messages", id)]], "Flags dismissed.") }, "Dismiss")));
      }
      const userId = r.subject.user.userId;
      return el("li", { className: "card report" },
        el("p", {}, "Member ", link(["users", userId], userId), " of ", link(["channels", r.channelId], r.channelId), `, ${by}.`),
        el("p", { className: "row" },
          confirmed("Ban from the channel", `Ban ${userId} from the channel`, () => act([["POST", path("channels", r.channelId, "bans"), { userIds: [userId] }], ["DELETE", path("flags", r.channelId, "users", userId)]], `${userId} banned.`)),
          el("button", { type: "button", className: "secondary", onclick: () => act([["DELETE", path("flags", r.channelId, "users", userId)]], "Flags dismissed.") }, "Dismiss")));
    })));
  }
  await refresh();
  // A flag tells no admin: the queue is asked again every 5 s, and after channels change — a
  // burst of events (48 messages) is one or two calls, not one per event.
  const update = coalesced(refresh);
  const timer = setInterval(update, 5000);
  const stopEvents = onEvent(update);
  return () => { clearInterval(timer); stopEvents(); };
}
