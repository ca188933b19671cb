//! `eth-node`: a development chain on HTTP and WebSocket, with anvil's flags.

use std::io::Write;
use std::time::Duration;

use typed_rpc::transport::Server;
use typed_rpc_eth_node::accounts::{self, DEV_MNEMONIC};
use typed_rpc_eth_node::units::{ether, format_ether};
use typed_rpc_eth_node::{Node, NodeConfig};

const USAGE: &str = "\
eth-node: an Ethereum development chain (a small anvil) on typed-rpc

Usage: eth-node [OPTIONS]

Options:
  --host HOST          address to listen on (default 127.0.0.1)
  -p, --port PORT      port for HTTP and WebSocket (default 8545; 0 picks one)
  --chain-id ID        the chain id (default 31337)
  -m, --mnemonic WORDS the BIP-39 mnemonic of the accounts (default: the
                       development mnemonic \"test test ... junk\")
  -a, --accounts N     how many accounts to fund (default 10)
  --balance ETHER      each account's balance in ether (default 10000)
  -b, --block-time S   mine a block every S seconds (fractions allowed);
                       without it, a block per transaction
  -h, --help           this text
";

/// The command line, parsed.
struct Options {
    host: String,
    port: u16,
    chain_id: u64,
    mnemonic: String,
    accounts: u32,
    balance: u64,
    block_time: Option<Duration>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options {
        host: "127.0.0.1".into(),
        port: 8545,
        chain_id: 31337,
        mnemonic: DEV_MNEMONIC.into(),
        accounts: 10,
        balance: 10_000,
        block_time: None,
    };
    while let Some(flag) = args.next() {
        let (flag, inline) = match flag.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_owned(), Some(value.to_owned()))
            }
            _ => (flag, None),
        };
        if flag == "-h" || flag == "--help" {
            return Ok(None);
        }
        let value = inline
            .or_else(|| args.next())
            .ok_or_else(|| format!("{flag} needs a value"))?;
        let number = |what: &str| format!("{flag} takes {what}, not {value:?}");
        match flag.as_str() {
            "--host" => options.host = value,
            "-p" | "--port" => options.port = value.parse().map_err(|_| number("a port"))?,
            "--chain-id" => options.chain_id = value.parse().map_err(|_| number("a number"))?,
            "-m" | "--mnemonic" => options.mnemonic = value,
            "-a" | "--accounts" => {
                options.accounts = value.parse().map_err(|_| number("a number"))?
            }
            "--balance" => options.balance = value.parse().map_err(|_| number("whole ether"))?,
            "-b" | "--block-time" => {
                let seconds: f64 = value.parse().map_err(|_| number("seconds"))?;
                if !(seconds > 0.0 && seconds.is_finite()) {
                    return Err(number("a positive number of seconds"));
                }
                options.block_time = Some(Duration::from_secs_f64(seconds));
            }
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(Some(options))
}

#[tokio::main]
async fn main() {
    let options = match parse(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{USAGE}");
            return;
        }
        Err(err) => {
            eprintln!("eth-node: {err}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    if let Err(err) = run(options).await {
        eprintln!("eth-node: {err}");
        std::process::exit(1);
    }
}

async fn run(options: Options) -> Result<(), Box<dyn std::error::Error>> {
    let mut config = NodeConfig::dev(options.chain_id)?;
    config.accounts = accounts::derive(&options.mnemonic, options.accounts)?;
    config.genesis.accounts = config
        .accounts
        .iter()
        .map(|account| account.address)
        .collect();
    config.genesis.balance = ether(options.balance);
    config.block_time = options.block_time;
    let node = Node::new(config);

    let handle = Server::new(node.router()?)
        .serve_http((options.host.as_str(), options.port))
        .await?;
    let miner = options
        .block_time
        .map(|interval| node.spawn_miner(interval));

    let mut out = std::io::stdout().lock();
    writeln!(out, "Available Accounts\n==================")?;
    for (index, account) in node.accounts().iter().enumerate() {
        writeln!(
            out,
            "({index}) {} ({} ETH)",
            account.address,
            format_ether(ether(options.balance))
        )?;
    }
    writeln!(out, "\nPrivate Keys\n==================")?;
    for (index, account) in node.accounts().iter().enumerate() {
        writeln!(out, "({index}) {}", account.private_key())?;
    }
    writeln!(out, "\nChain ID: {}", options.chain_id)?;
    match options.block_time {
        Some(interval) => writeln!(out, "Block time: {interval:?}")?,
        None => writeln!(out, "Mining: a block per transaction")?,
    }
    let address = handle.local_addr().ok_or("the server has no address")?;
    writeln!(out, "\nListening on {address}")?;
    out.flush()?;
    drop(out);

    shutdown_signal().await;
    if let Some(miner) = miner {
        miner.abort();
    }
    handle.shutdown().await;
    Ok(())
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("a SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}
