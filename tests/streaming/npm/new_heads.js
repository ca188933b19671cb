// ethers v6's WebSocketProvider, subscribed to new blocks with
// `provider.on("block")` (an `eth_subscribe ["newHeads"]` underneath):
// `node new_heads.js URL COUNT` prints the first COUNT block numbers as
// JSON, after `off` has unsubscribed.
const { WebSocketProvider, Network } = require("ethers");

async function main() {
  const [url, count] = process.argv.slice(2);
  const provider = new WebSocketProvider(url, undefined, { staticNetwork: Network.from(1337) });
  const blocks = [];
  await new Promise((resolve) => {
    provider.on("block", (number) => {
      blocks.push(number);
      if (blocks.length === Number(count)) resolve();
    });
  });
  await provider.off("block");
  // Let the unsubscribe go out before the socket closes.
  await new Promise((resolve) => setTimeout(resolve, 200));
  console.log(JSON.stringify(blocks));
  await provider.destroy();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
