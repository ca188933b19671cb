// What the client scripts share: the node's URLs and the fixture from the
// command line, the development keys, a bounded wait, and the report.
import { readFileSync } from "node:fs";

export const [httpUrl, wsUrl, fixturePath] = process.argv.slice(2);
export const counter = JSON.parse(readFileSync(fixturePath, "utf8"));

// Accounts 0-2 of the development mnemonic ("test test ... junk").
export const KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
];
export const ADDRESSES = [
  "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
];

/** `promise`, or a rejection naming `what` after `ms`. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Prints the report as one JSON line (bigints as decimal strings) and exits. */
export function finish(report) {
  const text = JSON.stringify(report, (_, value) => (typeof value === "bigint" ? value.toString() : value));
  process.stdout.write(`${text}\n`);
  process.exit(0);
}

/** Runs `main`; a failure is printed and exits 1. */
export function run(main) {
  main().catch((error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  });
}
