// ethers v6 against eth-node: batching, reads, a Wallet's transfer, a
// contract deployed, changed, listened to over WebSocket and reverted.
import { Contract, ContractFactory, JsonRpcProvider, WebSocketProvider, Wallet, parseEther } from "ethers";
import { ADDRESSES, KEYS, counter, finish, httpUrl, run, within, wsUrl } from "./common.mjs";

run(async () => {
  const report = {};
  // Default options: calls within 10 ms go out as one batch of up to 100.
  const provider = new JsonRpcProvider(httpUrl);
  const [blockNumber, balance, block, nonce] = await Promise.all([
    provider.getBlockNumber(),
    provider.getBalance(ADDRESSES[0]),
    provider.getBlock("latest"),
    provider.getTransactionCount(ADDRESSES[0]),
  ]);
  report.reads = { blockNumber, balance, blockHash: block.hash, baseFee: block.baseFeePerGas, nonce };
  report.chainId = (await provider.getNetwork()).chainId;
  // ethers shares an identical request's answer for 250 ms (a balance, the
  // pending nonce), which would fold the 97 equal calls below into one, and
  // a node that mines at once has moved on within them: the batch, the sends
  // and the reads after them go through a provider that does not.
  const live = new JsonRpcProvider(httpUrl, undefined, { cacheTimeout: -1 });
  const balances = await Promise.all(ADDRESSES.concat(Array(97).fill(ADDRESSES[2])).map((a) => live.getBalance(a)));
  report.batchOf100 = balances.length === 100 && balances.every((b) => b === balance);

  const fixed = new JsonRpcProvider(httpUrl, undefined, { staticNetwork: true });
  report.staticBlockNumber = await fixed.getBlockNumber();

  const wallet = new Wallet(KEYS[0], live);
  const before = await live.getBalance(ADDRESSES[1]);
  const tx = await wallet.sendTransaction({ to: ADDRESSES[1], value: parseEther("1.5") });
  const receipt = await within(20000, "the transfer's receipt", tx.wait());
  report.transfer = {
    status: receipt.status,
    sameHash: receipt.hash === tx.hash,
    blockNumber: receipt.blockNumber,
    gained: (await live.getBalance(ADDRESSES[1])) - before,
  };

  const factory = new ContractFactory(counter.abi, counter.bytecode, wallet);
  const deployed = await factory.deploy(7);
  await within(20000, "the deployment", deployed.waitForDeployment());
  const address = await deployed.getAddress();
  report.deployed = { count: await deployed.count(), code: (await live.getCode(address)).length > 2 };

  // Events and blocks over WebSocket: eth_subscribe logs and newHeads.
  const ws = new WebSocketProvider(wsUrl);
  const watched = new Contract(address, counter.abi, ws);
  const event = new Promise((resolve) => {
    watched.on("Incremented", (by, count, payload) => resolve({ by, count, blockNumber: payload.log.blockNumber }));
  });
  const newBlock = new Promise((resolve) => ws.on("block", resolve));
  // ethers sends eth_subscribe without waiting for its answer: let both land.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const increment = await deployed.increment();
  const incremented = await within(20000, "the increment's receipt", increment.wait());
  report.event = await within(20000, "the Incremented event", event);
  report.block = await within(20000, "a block over WebSocket", newBlock);
  report.incremented = { blockNumber: incremented.blockNumber, count: await deployed.count() };

  // A require failure, in a call and in a send (whose gas estimate reverts).
  for (const [name, attempt] of [
    ["callRevert", () => deployed.add.staticCall(0)],
    ["sendRevert", () => deployed.add(0)],
  ]) {
    try {
      await attempt();
      report[name] = "no error";
    } catch (error) {
      report[name] = { code: error.code, reason: error.reason, data: error.data };
    }
  }
  try {
    await live.send("eth_fillTransaction", [{}]);
  } catch (error) {
    report.unknownMethod = error.error?.code ?? error.code;
  }
  await ws.destroy();
  finish(report);
});
