// A line chart drawn as SVG (no library): one series over time, its axis labelled.
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attributes = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

/** A chart of `points` ([seconds, value]) titled `title`, `color` its line. */
export function lineChart(title, points, color) {
  const width = 600, height = 160, left = 44, bottom = 20, top = 24;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img", "aria-label": title });
  const heading = svg("text", { x: left, y: 16, "font-size": 13, fill: "#1d2330" });
  heading.textContent = title;
  chart.append(heading);
  if (points.length === 0) return chart;
  const t0 = points[0][0], t1 = Math.max(points[points.length - 1][0], t0 + 1);
  const max = Math.max(1, ...points.map((p) => p[1]));
  const x = (t) => left + ((t - t0) / (t1 - t0)) * (width - left - 8);
  const y = (v) => height - bottom - (v / max) * (height - bottom - top);
  chart.append(svg("line", { x1: left, y1: height - bottom, x2: width - 8, y2: height - bottom, stroke: "#d9dde5" }));
  for (const value of [0, max]) {
    const label = svg("text", { x: left - 6, y: y(value) + 4, "text-anchor": "end", "font-size": 11, fill: "#5b6475" });
    label.textContent = Number.isInteger(value) ? String(value) : value.toFixed(1);
    chart.append(label);
  }
  const since = svg("text", { x: left, y: height - 4, "font-size": 11, fill: "#5b6475" });
  since.textContent = `${Math.round((t1 - t0) / 60)} min`;
  chart.append(since);
  chart.append(svg("polyline", { points: points.map(([t, v]) => `${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" "), stroke: color }));
  return chart;
}
