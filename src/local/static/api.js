// @ts-check
// The workspace server's page API (src/local/workspace/routes.ts).

/**
 * A JSON post; a refusal throws with the server's reason, which the page shows as is.
 * @param {string} path
 * @param {unknown} body
 * @returns {Promise<Record<string, unknown>>}
 */
export async function post(path, body) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.error || `HTTP ${res.status}`);
  return json;
}
