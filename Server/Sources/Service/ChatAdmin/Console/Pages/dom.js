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

/** A table with a header row and a row per item, in a frame that scrolls sideways by itself
 *  when the table cannot be narrower than the screen (the page never does). */
export function table(caption, headers, rows, className) {
  return el("div", { className: "table-frame" }, el("table", { className },
    el("caption", { className: "muted" }, caption),
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c)))))));
}

/** `refresh` wrapped so that calls coalesce: one runs at a time, calls meanwhile ask for one
 *  more, and runs start at least `gap` ms apart, so a burst of events costs one or two runs
 *  whatever its size; none starts while a confirmation is asked (``confirmed``). The returned
 *  function never throws. */
export function coalesced(refresh, gap = 1000) {
  let running = false, again = false, last = 0;
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    const wait = last + gap - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    // Not while a confirmation is asked: the page would be rebuilt under the operator's click.
    while (document.querySelector(".confirm[data-asking]")) await new Promise((resolve) => setTimeout(resolve, 500));
    last = Date.now();
    try { await refresh(); } catch { /* the next run tries again */ }
    running = false;
    if (again) { again = false; run(); }
  };
  return run;
}

/** A button for an action that cannot be undone: the first click asks (the button becomes
 *  `confirm` beside a Cancel), the second does it; unanswered, it asks no more after 6 s. */
export function confirmed(label, confirm, action, attributes = {}) {
  const holder = el("span", { className: "confirm" });
  const ask = () => {
    const yes = el("button", { type: "button", className: "danger", onclick: () => { clearTimeout(timer); delete holder.dataset.asking; action(); } }, confirm);
    const no = el("button", { type: "button", className: "secondary", onclick: () => { clearTimeout(timer); idle(); } }, "Cancel");
    const timer = setTimeout(idle, 6000);
    holder.dataset.asking = "true";
    replace(holder, yes, no);
    yes.focus();
  };
  const idle = () => {
    delete holder.dataset.asking;
    replace(holder, el("button", { type: "button", className: "secondary", ...attributes, onclick: ask }, label));
  };
  idle();
  return holder;
}

/** A date of the API (seconds since 1970) as local time. */
export function time(seconds) {
  return seconds === null || seconds === undefined ? "—" : new Date(seconds * 1000).toLocaleString();
}

/** Says `text` in the status line (read out by screen readers). */
export function say(text) {
  document.getElementById("status").textContent = text;
}
