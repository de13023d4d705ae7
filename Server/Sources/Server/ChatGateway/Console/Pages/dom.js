// Building the page from data: every text goes in as a text node (never as HTML), and every
// link is made by the console from an id (never taken from user data).

/** An element `tag` with `attributes` (properties such as className, or event handlers
 *  `onclick`…) and `children` (strings become text nodes; null and false are skipped). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "className") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A link to a page of the console: `/console/` then the parts, each encoded. */
export function link(parts, ...children) {
  const href = "/console/" + parts.map((part) => encodeURIComponent(part)).join("/");
  return el("a", { href, "data-internal": true }, ...children);
}

/** Replaces the children of `node`. */
export function replace(node, ...children) {
  node.replaceChildren();
  append(node, children);
}

/** A table with a header row and a row per item. */
export function table(caption, headers, rows, className) {
  return el("table", { className },
    el("caption", { className: "muted" }, caption),
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c))))));
}

/** A date of the API (seconds since 1970) as local time. */
export function time(seconds) {
  return seconds === null || seconds === undefined ? "—" : new Date(seconds * 1000).toLocaleString();
}

/** Says `text` in the status line (read out by screen readers). */
export function say(text) {
  document.getElementById("status").textContent = text;
}
