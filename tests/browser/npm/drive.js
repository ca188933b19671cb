// Opens each page given as NAME=URL in Debian's chromium, headless, waits
// until the page says it is done, and prints what its <output>s show as
// one JSON object: {"NAME": {"fetch": "...", ...}, ...}. Bounded in time
// throughout; exiting (even on SIGTERM) closes the browser.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const LIMIT_MS = 30000;
// Without the networking flags, Chromium waits on services it cannot reach
// on a closed network.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

setTimeout(() => {
  console.error("drive.js: still running after 75 s");
  process.exit(3);
}, 75000).unref();

async function main() {
  const pages = process.argv.slice(2).map((arg) => arg.split(/=(.*)/s, 2));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "typed-rpc-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    // The test passes the binary it found or installed.
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ARGS,
    timeout: LIMIT_MS,
  });
  const seen = {};
  try {
    for (const [name, url] of pages) {
      const page = await context.newPage();
      const messages = [];
      page.on("console", (message) => messages.push(message.text()));
      await page.goto(url, { timeout: LIMIT_MS });
      await page.waitForSelector("body[data-state=done]", { timeout: LIMIT_MS });
      seen[name] = await page.evaluate(() =>
        Object.fromEntries([...document.querySelectorAll("output")].map((o) => [o.id, o.textContent])));
      seen[name].console = messages;
      await page.close();
    }
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(seen) + "\n");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
