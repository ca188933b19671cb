//! The protocol's own conformance suite (`@modelcontextprotocol/conformance`
//! 0.2.0-alpha.12, pinned in `tests/js`) against `mcp-server --fixtures`
//! over Streamable HTTP: the scenarios each specification revision
//! requires, each run at its revision's wire (the classic session for
//! 2025-11-25, the stateless generation for 2026-07-28).
//!
//! The suite needs Node.js 22 (it calls `fs.globSync`); the machine's is
//! 20, so `tests/js` pins the npm registry's `node` package (22.23.3),
//! which installs that Node.js binary beside the suite.

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use support::{HttpServer, Scratch, node_raw};

/// How long one requirement set may take to run.
const LIMIT: Duration = Duration::from_secs(300);

/// The suite's entry point, inside the installed packages.
const SUITE: &str = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// Runs the scenarios `revision` requires against `url` (with no
/// revision, the suite's whole active set): each scenario's verdict
/// (`true`: passed) from the summary, and the scenarios reported but not
/// scored.
fn run(url: &str, revision: Option<&str>) -> (BTreeMap<String, bool>, BTreeMap<String, bool>) {
    let mut args = vec!["server", "--url", url];
    args.extend(
        revision
            .iter()
            .flat_map(|revision| ["--requirements", revision]),
    );
    let (ok, stdout, stderr) = node_raw(SUITE, &args, LIMIT);
    let revision = revision.unwrap_or("the active suite");
    let summary = stdout
        .split("=== SUMMARY ===")
        .nth(1)
        .unwrap_or_else(|| panic!("no summary from the suite:\n{stdout}\n{stderr}"));
    let (scored, rest) = summary.split_once("Total:").unwrap_or((summary, ""));
    let verdicts = |text: &str| -> BTreeMap<String, bool> {
        text.lines()
            .filter_map(|line| {
                let line = line.trim();
                let (mark, rest) = line.split_once(' ')?;
                let name = rest.split([':', ' ']).next()?;
                match mark {
                    "✓" => Some((name.to_owned(), true)),
                    "✗" => Some((name.to_owned(), false)),
                    _ => None,
                }
            })
            .collect()
    };
    let not_scored = verdicts(rest.split_once("Not scored").map_or("", |(_, rest)| rest));
    // The summary lists every scenario run; those not scored are named after it.
    let mut scored = verdicts(scored);
    scored.retain(|name, _| !not_scored.contains_key(name));
    let failed: Vec<&String> = scored
        .iter()
        .filter(|(_, passed)| !**passed)
        .map(|(name, _)| name)
        .collect();
    assert!(
        ok && failed.is_empty(),
        "{revision}: scenarios failed: {failed:?}\n{stdout}\n{stderr}"
    );
    (scored, not_scored)
}

#[test]
fn every_scenario_both_revisions_require_passes() {
    let root = Scratch::new("conformance");
    let server = HttpServer::start(&["--fixtures", "--root", root.path().to_str().unwrap()]);

    // The suite's active scenarios, each at the wire it picks.
    let (active, _) = run(&server.url, None);
    for scenario in ["server-initialize", "server-session-lifecycle", "ping"] {
        assert_eq!(
            active.get(scenario),
            Some(&true),
            "the active suite ran {scenario}"
        );
    }

    let (classic, _) = run(&server.url, Some("2025-11-25"));
    for scenario in [
        "server-initialize",
        "tools-call-sampling",
        "tools-call-elicitation",
        "resources-subscribe",
        "server-sse-multiple-streams",
        "dns-rebinding-protection",
    ] {
        assert_eq!(
            classic.get(scenario),
            Some(&true),
            "2025-11-25 ran {scenario}"
        );
    }
    assert!(
        classic.len() >= 30,
        "2025-11-25 requires {} scenarios",
        classic.len()
    );

    let (stateless, not_scored) = run(&server.url, Some("2026-07-28"));
    for scenario in [
        "server-stateless",
        "caching",
        "input-required-result-multi-round",
        "input-required-result-tampered-state",
        "sep-2164-resource-not-found",
    ] {
        assert_eq!(
            stateless.get(scenario),
            Some(&true),
            "2026-07-28 ran {scenario}"
        );
    }
    assert!(
        stateless.len() >= 37,
        "2026-07-28 requires {} scenarios",
        stateless.len()
    );
    // Pending in the suite (its own reference server fails them); passed here.
    for scenario in [
        "json-schema-2020-12",
        "http-header-validation",
        "http-custom-header-server-validation",
    ] {
        assert_eq!(
            not_scored.get(scenario),
            Some(&true),
            "{scenario}: {not_scored:?}"
        );
    }
}
