/** A response's body as text, and as JSON when it is JSON. */
export async function readBody(res: Response): Promise<{ text: string; json: unknown }> {
  const text = await res.text();
  try {
    return { text, json: text ? JSON.parse(text) : undefined };
  } catch {
    return { text, json: undefined };
  }
}

/** The first answer of a server that may not listen yet (a standby coming up), retried until `timeoutMs`. */
export async function firstAnswer(url: string, timeoutMs = 15_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
