// Overview: the service's figures, each node of a cluster, and the last 15 minutes drawn.
import { api } from "./api.js";
import { el, replace, table } from "./dom.js";
import { lineChart } from "./chart.js";

function figure(name, value, id) {
  return el("div", { className: "figure" }, el("dt", {}, name), el("dd", { id }, String(value)));
}

export async function render(main) {
  const body = el("div");
  replace(main, el("h1", {}, "Overview"), body);
  let previous = null;  // this node's commits at the last reading, for commits per second
  async function refresh() {
    const [service, history, metrics] = await Promise.all([
      api("GET", "/admin/v1/service"), api("GET", "/admin/v1/service/history"),
      fetch("/metrics").then((r) => r.text())]);
    const own = (name) => {
      const line = metrics.split("\n").find((l) => l.startsWith(name + " ") || l.startsWith(name + "{"));
      return line ? Number(line.split(" ").pop()) : 0;
    };
    const now = Date.now() / 1000;
    const commitsPerSecond = previous && now > previous.at
      ? ((service.databaseCommits - previous.commits) / (now - previous.at)).toFixed(1) : "—";
    previous = { at: now, commits: service.databaseCommits };
    const nodes = service.nodes.length > 0 ? service.nodes
      : [{ nodeId: service.nodeId ?? "this server", connectedDevices: service.connectedDevices }];
    // The server's samples, then the figures just read: the newest point is now.
    const samples = history.samples.concat([{ at: Date.now() / 1000, messagesSent: service.messagesSent,
      connectedDevices: service.connectedDevices }]);
    const rate = [];
    for (let i = 1; i < samples.length; i++) {
      const seconds = Math.max(1e-3, samples[i].at - samples[i - 1].at);
      rate.push([samples[i].at, (samples[i].messagesSent - samples[i - 1].messagesSent) / seconds]);
    }
    replace(body,
      el("dl", { className: "figures" },
        figure("Users", service.users, "figure-users"),
        figure("Channels", service.channels, "figure-channels"),
        figure("Devices connected", service.connectedDevices, "figure-devices"),
        figure("Messages sent", service.messagesSent, "figure-messages"),
        figure("Connections to this node", own("chat_connections"), "figure-connections"),
        figure("Requests to this node", own("chat_requests_total"), "figure-requests")),
      el("h2", {}, "Nodes"),
      table(`${nodes.length} ${nodes.length === 1 ? "node" : "nodes"}`,
        ["Node", "Devices connected", "Log position applied", "Lag (s)", "Log entries", "Commits", "Commits/s"],
        nodes.map((n) => {
          const here = n.nodeId === service.nodeId || service.nodes.length === 0;
          return [n.nodeId, String(n.connectedDevices), String(n.appliedPosition ?? "—"),
            here ? service.lagSeconds.toFixed(3) : "—", here ? String(service.logEntries ?? "—") : "—",
            here ? String(service.databaseCommits) : "—", here ? commitsPerSecond : "—"];
        }), "keep nodes"),
      el("h2", {}, "The last 15 minutes"),
      lineChart("Messages per second", rate, "#2456c8"),
      lineChart("Devices connected", samples.map((s) => [s.at, s.connectedDevices]), "#1b8a5a"),
      service.stoppedBecause ? el("p", { className: "error" }, `Stopped: ${service.stoppedBecause}`) : null);
  }
  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 5000);
  return () => clearInterval(timer);
}
