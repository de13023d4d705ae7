// What the console shows live comes over the wire protocol (Docs/Protocol.md): the page
// connects to /v1/connect as a device of the signed-in admin (its session cookie admits it),
// and every event it receives — an admin sees every channel, so it hears of each channel's
// changes and new messages — is passed on as a `chat-event` on `window`, `detail` the event.
// Closed connections are opened again, waiting longer each time (up to 30 s).

const device = "console-" + Math.random().toString(36).slice(2, 10);
let socket = null;
let wait = 1000;
let stopped = false;

/** Whether the page is connected (a page that is not keeps itself current by asking again). */
export function isLive() {
  return socket !== null && socket.readyState === WebSocket.OPEN;
}

export function start() {
  stopped = false;
  if (socket) return;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/v1/connect?device=${device}`);
  socket.addEventListener("open", () => {
    socket.send(JSON.stringify({ type: "hello", protocol: 1, resumeAfter: null }));
  });
  socket.addEventListener("message", (message) => {
    let frame;
    try { frame = JSON.parse(message.data); } catch { return; }
    if (frame.type === "welcome") {
      wait = 1000;
      document.documentElement.dataset.live = "true";
    } else if (frame.type === "event") {
      window.dispatchEvent(new CustomEvent("chat-event", { detail: frame.envelope.event }));
    }
  });
  socket.addEventListener("close", () => {
    socket = null;
    delete document.documentElement.dataset.live;
    if (stopped) return;
    setTimeout(start, wait);
    wait = Math.min(wait * 2, 30000);
  });
}

export function stop() {
  stopped = true;
  if (socket) socket.close(1000);
  socket = null;
}

/** Calls `body` for every event until the returned function is called. */
export function onEvent(body) {
  const listener = (event) => body(event.detail);
  window.addEventListener("chat-event", listener);
  return () => window.removeEventListener("chat-event", listener);
}

/** The channel an event is about, if any. */
export function channelOf(event) {
  const [, detail] = Object.entries(event)[0] ?? [];
  const value = detail && (detail._0 ?? detail);
  return value?.channelId ?? value?.channel?.channelId ?? null;
}
