// viem against eth-node: batched HTTP (arrays even of one call, no params
// when there are none), a wallet client's signed transaction sent raw, and
// watchBlocks over WebSocket.
import { createPublicClient, createWalletClient, defineChain, http, parseEther, webSocket } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ADDRESSES, KEYS, finish, httpUrl, run, within, wsUrl } from "./common.mjs";

run(async () => {
  const report = {};
  const chain = defineChain({
    id: 31337,
    name: "eth-node",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [httpUrl], webSocket: [wsUrl] } },
  });
  const client = createPublicClient({ chain, transport: http(httpUrl, { batch: true }) });
  report.chainId = await client.getChainId();
  report.blockNumber = await client.getBlockNumber();
  report.balance = await client.getBalance({ address: ADDRESSES[1] });

  const ws = createPublicClient({ chain, transport: webSocket(wsUrl) });
  const seen = [];
  const blockSeen = new Promise((resolve, reject) => {
    const unwatch = ws.watchBlocks({
      onBlock: (block) => {
        seen.push(block.number);
        unwatch();
        resolve();
      },
      onError: reject,
    });
  });
  await new Promise((resolve) => setTimeout(resolve, 500));

  const account = privateKeyToAccount(KEYS[1]);
  const wallet = createWalletClient({ account, chain, transport: http(httpUrl, { batch: true }) });
  const request = await wallet.prepareTransactionRequest({ to: ADDRESSES[2], value: parseEther("0.25") });
  const serializedTransaction = await wallet.signTransaction(request);
  const hash = await client.sendRawTransaction({ serializedTransaction });
  const receipt = await within(20000, "the receipt", client.waitForTransactionReceipt({ hash }));
  report.sent = { type: request.type, status: receipt.status, sameHash: receipt.transactionHash === hash, blockNumber: receipt.blockNumber };
  report.gained = (await client.getBalance({ address: ADDRESSES[2] })) - parseEther("10000");
  await within(20000, "a block over WebSocket", blockSeen);
  report.watchedBlocks = seen;

  try {
    await client.sendRawTransaction({ serializedTransaction });
    report.replay = "accepted";
  } catch (error) {
    report.replay = { name: error.name, details: error.details };
  }
  finish(report);
});
