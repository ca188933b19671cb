// Reads one streaming call's Server-Sent Events with eventsource-parser, a
// parser nobody here wrote: `node sse.js URL BODY` prints what it saw as JSON.
const { createParser } = require("eventsource-parser");

async function main() {
  const [url, body] = process.argv.slice(2);
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body,
  });
  const seen = { status: response.status, contentType: response.headers.get("content-type"), events: [], comments: 0 };
  const parser = createParser({
    onEvent(event) {
      seen.events.push(JSON.parse(event.data));
    },
    onComment() {
      seen.comments += 1;
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  console.log(JSON.stringify(seen));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
