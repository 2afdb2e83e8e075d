/**
 * A `fetch` whose first streamed response breaks (errors) right after `frames` complete SSE frames,
 * as a dropped connection would; later requests pass through. `cuts` counts the breaks made.
 */
export function cuttingFetch(frames: number): typeof fetch & { cuts: number } {
  let remaining = 1;
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    const isStream = response.headers.get("content-type")?.startsWith("text/event-stream");
    if (!isStream || remaining === 0 || !response.body) return response;
    remaining--;
    wrapped.cuts++;
    const source = response.body.getReader();
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let seen = 0;
    let pending = "";
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await source.read();
        if (done) return controller.close();
        pending += decoder.decode(value, { stream: true });
        let end = pending.indexOf("\n\n");
        while (end !== -1) {
          controller.enqueue(encoder.encode(pending.slice(0, end + 2)));
          pending = pending.slice(end + 2);
          seen++;
          if (seen === frames) {
            await source.cancel();
            return controller.error(new TypeError("connection cut by the test"));
          }
          end = pending.indexOf("\n\n");
        }
      },
      cancel: () => source.cancel(),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  wrapped.cuts = 0;
  return wrapped as typeof fetch & { cuts: number };
}
