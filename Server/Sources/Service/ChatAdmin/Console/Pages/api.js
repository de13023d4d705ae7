// The admin API (/admin/v1/), called with the console's session cookie from this origin.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Calls the API; the parsed JSON answer (null for 204), or throws an ApiError saying why. */
export async function api(method, path, body) {
  const options = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) throw new ApiError(response.status, describe(json) ?? `HTTP ${response.status}`);
  return json;
}

/** The words of a refusal: {"error":{KIND:{…}}}. */
export function describe(json) {
  const error = json && json.error;
  if (!error) return null;
  const [kind, detail] = Object.entries(error)[0];
  if (detail && detail._0) return `${kind}: ${detail._0}`;
  if (detail && detail.field) return `${kind}: ${detail.field} ${detail.reason}`;
  if (detail && detail.retryAfter) return `${kind}: retry after ${detail.retryAfter} s`;
  return kind;
}

/** The path of an API call: `/admin/v1/` then the parts, each encoded. */
export function path(...parts) {
  return "/admin/v1/" + parts.map((part) => encodeURIComponent(part)).join("/");
}
