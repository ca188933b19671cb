//! The text agent over HTTP: `text-agent [--listen ADDR] [--store URL]
//! [--public-url URL] [--replica NAME] [--token TOKEN] [--extended-card] [--push] [--push-host HOST]...
//! [--allow-origin ORIGIN]... [--lenient-version] [--tck]`
//! (`--store`: where tasks, their events, push configurations and the
//! de-duplication window are kept: `memory` (the default), `sqlite:PATH`,
//! or `postgres://USER@HOST:PORT/DB`, shared by replicas; `--public-url`:
//! where clients reach the agent, the card's URL (a load balancer in front
//! of replicas), instead of the address it listens on; `--replica`: this
//! process's name in the store, where it says which replica runs a task;
//! `--extended-card`: serve `GetExtendedAgentCard`, to callers with the
//! token when there is one; `--push`: push task updates to the callers'
//! webhooks, on any host unless `--push-host` names the only ones;
//! `--allow-origin`: let pages of that origin (`*`: any) read the card and
//! call the agent; `--lenient-version`: serve requests without
//! `A2A-Version` as 1.0; `--tck`: answer the A2A TCK's scenarios instead of
//! the text skills).
//! Prints where it listens and its card's URL, serves until SIGTERM or
//! Ctrl-C, then lets the requests in flight finish.

use std::time::Duration;

use tokio::net::TcpListener;
use typed_rpc::transport::http::Cors;
use typed_rpc_a2a::http::{App, CARD_PATH, ENDPOINT_PATH, with_bearer};
use typed_rpc_a2a::server::{
    AgentExecutor, BearerAuth, InMemoryPushConfigStore, InMemoryTaskStore, PushConfigStore,
    PushSettings, RequestHandler, TaskStore,
};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use typed_rpc_a2a::server::{SqlOptions, SqlStore};
use typed_rpc_a2a::tck_agent::TckAgent;
use typed_rpc_a2a::text_agent::{TextAgent, card, extended_card};

/// How long the requests in flight get to finish after the signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

const USAGE: &str = "usage: text-agent [--listen ADDR] [--store memory|sqlite:PATH|postgres://...] \
[--public-url URL] [--replica NAME] [--token TOKEN] [--extended-card] [--push] [--push-host HOST]... [--allow-origin ORIGIN]... \
[--lenient-version] [--tck]";

struct Options {
    listen: String,
    store: String,
    public_url: Option<String>,
    replica: Option<String>,
    token: Option<String>,
    extended_card: bool,
    push: bool,
    push_hosts: Vec<String>,
    origins: Vec<String>,
    lenient_version: bool,
    tck: bool,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        listen: "127.0.0.1:3001".into(),
        store: "memory".into(),
        public_url: None,
        replica: None,
        token: None,
        extended_card: false,
        push: false,
        push_hosts: Vec::new(),
        origins: Vec::new(),
        lenient_version: false,
        tck: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--listen" => options.listen = value()?,
            "--store" => options.store = value()?,
            "--public-url" => options.public_url = Some(value()?),
            "--replica" => options.replica = Some(value()?),
            "--token" => options.token = Some(value()?),
            "--extended-card" => options.extended_card = true,
            "--push" => options.push = true,
            "--push-host" => {
                options.push = true;
                options.push_hosts.push(value()?);
            }
            "--allow-origin" => options.origins.push(value()?),
            "--lenient-version" => options.lenient_version = true,
            "--tck" => options.tck = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

/// The agent's app on `store`, its push configurations in `push`, set up
/// as `options` say.
fn app<S: TaskStore, P: PushConfigStore>(
    store: S,
    push: P,
    options: &Options,
    endpoint: &str,
) -> Result<axum::Router, Box<dyn std::error::Error>> {
    let mut agent_card = card(endpoint);
    if options.token.is_some() {
        agent_card = with_bearer(agent_card);
    }
    if options.tck {
        // The TCK sends one messageId per scenario for a whole run.
        let handler = RequestHandler::new(TckAgent, store, agent_card);
        serve(handler.deduplicate_messages(false), push, options, endpoint)
    } else {
        let handler = RequestHandler::new(TextAgent, store, agent_card);
        serve(handler, push, options, endpoint)
    }
}

/// The agent's app: `handler` set up as `options` say.
fn serve<E: AgentExecutor, S: TaskStore>(
    mut handler: RequestHandler<E, S>,
    push: impl PushConfigStore,
    options: &Options,
    endpoint: &str,
) -> Result<axum::Router, Box<dyn std::error::Error>> {
    if options.extended_card {
        let mut extended = extended_card(endpoint);
        if options.token.is_some() {
            extended = with_bearer(extended);
        }
        handler = handler.with_extended_card(extended);
    }
    if options.push {
        let mut settings = PushSettings::default();
        if !options.push_hosts.is_empty() {
            settings = settings.allow_hosts(options.push_hosts.iter().cloned());
        }
        handler = handler.with_push_notifications(push, settings);
    }
    let mut app = App::new(handler.lenient_version(options.lenient_version));
    if let Some(token) = &options.token {
        app = app.auth(BearerAuth::default().token(token, "operator"));
    }
    if options.origins.iter().any(|origin| origin == "*") {
        app = app.cors(Cors::allow_any_origin());
    } else if !options.origins.is_empty() {
        app = app.cors(Cors::allow_origins(&options.origins)?);
    }
    Ok(app.build()?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options().map_err(|err| format!("{err}\n{USAGE}"))?;
    let listener = TcpListener::bind(&options.listen).await?;
    let addr = listener.local_addr()?;
    let public = options.public_url.clone();
    let base = public.unwrap_or_else(|| format!("http://{addr}"));
    let endpoint = format!("{}{ENDPOINT_PATH}", base.trim_end_matches('/'));
    let app = match options.store.as_str() {
        "memory" => app(
            InMemoryTaskStore::new(),
            InMemoryPushConfigStore::new(),
            &options,
            &endpoint,
        )?,
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        url => {
            let mut sql = SqlOptions::default();
            if let Some(name) = &options.replica {
                sql.name = name.clone();
            }
            let store = SqlStore::connect_with(url, sql).await?;
            let push = store.push_configs();
            app(store, push, &options, &endpoint)?
        }
        #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
        url => return Err(format!("--store {url}: this build keeps tasks in memory only").into()),
    };
    // Listened for before the address is printed: a signal sent as soon as
    // it is read stops the agent gracefully, not by the default action.
    let signalled = stop_signal()?;
    println!("listening on http://{addr}");
    println!("agent card: http://{addr}{CARD_PATH}");
    let (stopped, stop) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stop.await;
            })
            .await
    });
    signalled.await?;
    let _ = stopped.send(());
    // A stream that outlives the grace period is cut off with the process.
    match tokio::time::timeout(SHUTDOWN_GRACE, server).await {
        Ok(served) => served??,
        Err(_) => eprintln!("requests still running after {SHUTDOWN_GRACE:?}; stopping anyway"),
    }
    Ok(())
}

/// SIGTERM or Ctrl-C, listened for from this call on.
fn stop_signal() -> std::io::Result<impl std::future::Future<Output = std::io::Result<()>>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (mut term, mut interrupt) = (
            signal(SignalKind::terminate())?,
            signal(SignalKind::interrupt())?,
        );
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = interrupt.recv() => {}
            }
            Ok(())
        })
    }
    #[cfg(not(unix))]
    Ok(tokio::signal::ctrl_c())
}
