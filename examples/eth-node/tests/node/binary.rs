//! The `eth-node` binary: anvil's flags, the accounts printed, `Listening on HOST:PORT`.

use std::process::{Command, Stdio};
use std::time::Duration;

use typed_rpc::transport::http::HttpClient;
use typed_rpc_eth_node::api::{EthApiClient, NetApiClient};
use typed_rpc_test_support::child::ChildGuard;
use typed_rpc_test_support::process;

/// How long the binary may take to start listening, or to refuse its flags.
const PATIENCE: Duration = Duration::from_secs(30);

/// Starts the binary with `args` on a free port: the running node (stopped
/// when dropped), its printed lines up to `Listening on`, and the address.
fn start(args: &[&str]) -> (ChildGuard, Vec<String>, String) {
    let mut node = ChildGuard::spawn(
        Command::new(env!("CARGO_BIN_EXE_eth-node"))
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped()),
    )
    .unwrap();
    let mut lines = Vec::new();
    let address = node
        .stdout_lines()
        .unwrap()
        .wait_until("`Listening on`", PATIENCE, |line| {
            lines.push(line.to_owned());
            line.strip_prefix("Listening on ").map(str::to_owned)
        })
        .unwrap();
    (node, lines, address)
}

#[tokio::test]
async fn the_binary_prints_its_accounts_and_serves_the_flags_chain() {
    let (_node, lines, address) =
        start(&["--chain-id", "1337", "--accounts", "3", "--balance", "5"]);
    let text = lines.join("\n");
    assert!(
        text.contains("(0) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 (5 ETH)"),
        "{text}"
    );
    assert!(
        text.contains("(2) 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC (5 ETH)"),
        "{text}"
    );
    assert!(!text.contains("(3) "), "three accounts: {text}");
    assert!(
        text.contains("(0) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
        "{text}"
    );
    assert!(address.starts_with("127.0.0.1:"), "{address}");

    let http = HttpClient::new(&format!("http://{address}/")).unwrap();
    let eth = EthApiClient::new(http.clone());
    assert_eq!(eth.chain_id().await.unwrap().to::<u64>(), 1337);
    assert_eq!(NetApiClient::new(http).version().await.unwrap(), "1337");
    let balance = eth
        .get_balance(
            "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
                .parse()
                .unwrap(),
            None,
        )
        .await
        .unwrap();
    assert_eq!(balance, typed_rpc_eth_node::units::ether(5));
}

#[test]
fn another_mnemonic_gives_other_accounts_and_bad_flags_are_refused() {
    let phrase = "legal winner thank year wave sausage worth useful legal winner thank yellow";
    let (node, lines, _) = start(&["--mnemonic", phrase, "--accounts", "1"]);
    let expected = typed_rpc_eth_node::accounts::derive(phrase, 1).unwrap()[0].address;
    assert!(
        lines
            .iter()
            .any(|line| line.contains(&expected.to_string())),
        "{lines:?}"
    );
    drop(node);

    for args in [
        &["--block-time", "-1"][..],
        &["--port", "http"],
        &["--frobnicate", "1"],
        &["--mnemonic", "not a mnemonic"],
    ] {
        let mut node = Command::new(env!("CARGO_BIN_EXE_eth-node"));
        node.args(args);
        let output = process::run(node, PATIENCE).unwrap();
        assert!(!output.success(), "{args:?}");
        assert!(output.stderr.starts_with("eth-node: "), "{args:?}");
    }
}
