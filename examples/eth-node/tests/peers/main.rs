//! The clients everyone uses, unchanged, against the node: ethers v6, viem
//! and web3.py, each a script beside this file that prints a JSON report
//! the tests check.
//!
//! Each test serves a fresh node on a free loopback port (HTTP and
//! WebSocket on one port) and runs its script, bounded in time. The
//! packages are pinned (`package-lock.json`, `requirements.txt`) and the
//! tests install them (through `typed-rpc-test-support`) when missing or
//! stale: `npm ci` here into `node_modules`, `pip install --target <target
//! dir>/eth-node-python`. Node.js 20+ with npm and Python 3 with pip must
//! be on `PATH`.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use typed_rpc::transport::Server;
use typed_rpc_eth_node::{Node, NodeConfig};
use typed_rpc_test_support::npm::NodePackages;
use typed_rpc_test_support::pip::PythonPackages;
use typed_rpc_test_support::process;

/// How long one client script may run.
const PATIENCE: Duration = Duration::from_secs(120);

fn here() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers"))
}

/// `node <script>` beside this file, with its pinned npm packages.
fn node(script: &str) -> Command {
    NodePackages::install(here()).unwrap().node(script)
}

/// `python3 <script>` beside this file, with its pinned Python packages.
fn python(script: &str) -> Command {
    let packages =
        PythonPackages::install(here().join("requirements.txt"), "eth-node-python").unwrap();
    let mut command = packages.python(here().join(script));
    command.current_dir(here());
    command
}

/// Serves a fresh node, runs `client` (a script) with its HTTP and
/// WebSocket URLs and the Counter fixture, and parses the report it printed.
async fn report(mut client: Command) -> Value {
    let node = Node::new(NodeConfig::dev(31337).unwrap());
    let handle = Server::new(node.router().unwrap())
        .serve_http("127.0.0.1:0")
        .await
        .unwrap();
    let address = handle.local_addr().unwrap();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/Counter.json");
    client.args([
        format!("http://{address}/"),
        format!("ws://{address}/"),
        fixture.to_owned(),
    ]);
    let shown = format!("{client:?}");
    let output = tokio::task::spawn_blocking(move || process::run(client, PATIENCE))
        .await
        .unwrap()
        .unwrap();
    handle.shutdown().await;
    let (stdout, stderr) = (&output.stdout, &output.stderr);
    assert!(
        output.success(),
        "{shown} failed ({}):\n{stderr}",
        output.status
    );
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last)
        .unwrap_or_else(|err| panic!("{shown} printed no report ({err}):\n{stdout}\n{stderr}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ethers_v6_batches_sends_deploys_listens_and_decodes_reverts() {
    let report = report(node("ethers.mjs")).await;
    let reads = &report["reads"];
    assert_eq!(reads["blockNumber"], 0, "{report}");
    assert_eq!(reads["balance"], "10000000000000000000000");
    assert_eq!(reads["baseFee"], "1000000000");
    assert_eq!(reads["nonce"], 0);
    assert_eq!(report["chainId"], "31337");
    assert_eq!(report["batchOf100"], true);
    assert_eq!(report["staticBlockNumber"], 0);
    assert_eq!(report["transfer"]["status"], 1);
    assert_eq!(report["transfer"]["sameHash"], true);
    assert_eq!(report["transfer"]["blockNumber"], 1);
    assert_eq!(report["transfer"]["gained"], "1500000000000000000");
    assert_eq!(report["deployed"]["count"], "7");
    assert_eq!(report["deployed"]["code"], true);
    // The event and the block came over eth_subscribe on the WebSocket.
    assert_eq!(
        report["event"]["by"],
        "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
    );
    assert_eq!(report["event"]["count"], "8");
    assert_eq!(
        report["event"]["blockNumber"],
        report["incremented"]["blockNumber"]
    );
    assert_eq!(report["block"], report["incremented"]["blockNumber"]);
    assert_eq!(report["incremented"]["count"], "8");
    for name in ["callRevert", "sendRevert"] {
        assert_eq!(report[name]["code"], "CALL_EXCEPTION", "{name}: {report}");
        assert_eq!(
            report[name]["reason"], "amount must be positive",
            "{name}: {report}"
        );
    }
    assert_eq!(report["unknownMethod"], -32601);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viem_batches_sends_raw_and_watches_blocks() {
    let report = report(node("viem.mjs")).await;
    assert_eq!(report["chainId"], 31337, "{report}");
    assert_eq!(report["blockNumber"], "0");
    assert_eq!(report["balance"], "10000000000000000000000");
    assert_eq!(report["sent"]["type"], "eip1559");
    assert_eq!(report["sent"]["status"], "success");
    assert_eq!(report["sent"]["sameHash"], true);
    assert_eq!(report["sent"]["blockNumber"], "1");
    assert_eq!(report["gained"], "250000000000000000");
    assert_eq!(report["watchedBlocks"], serde_json::json!(["1"]));
    // viem reads -32003 as EIP-1474's "transaction rejected", with the node's reason.
    assert_eq!(
        report["replay"]["name"], "TransactionRejectedRpcError",
        "{report}"
    );
    let details = report["replay"]["details"].as_str().unwrap();
    assert!(
        details.contains("already known") || details.contains("nonce too low"),
        "{details}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web3_py_connects_sends_waits_and_batches() {
    let report = report(python("web3py.py")).await;
    assert_eq!(report["connected"], true, "{report}");
    assert_eq!(report["chain_id"], 31337);
    assert_eq!(report["balance"], "10000000000000000000000");
    assert_eq!(report["block_number"], 0);
    assert_eq!(report["receipt"]["status"], 1);
    assert_eq!(report["receipt"]["same_hash"], true);
    assert_eq!(report["receipt"]["block_number"], 1);
    assert_eq!(report["receipt"]["gas_used"], 21000);
    assert_eq!(
        report["receipt"]["from"],
        "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
    );
    assert_eq!(report["gained"], 12345);
    assert_eq!(report["batch"]["block_number"], 1);
    assert_eq!(report["batch"]["tx_value"], 12345);
    assert_eq!(report["batch"]["balance"], "10000000000000000012345");
    let replay = report["replay"].as_str().unwrap();
    assert!(
        replay.contains("already known") || replay.contains("nonce too low"),
        "{replay}"
    );
}
