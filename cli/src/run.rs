//! The commands: `call`, `batch` and `methods`.
//!
//! Everything that can be checked without the server is checked before
//! connecting (the URL, the params, the batch file, the OpenRPC document
//! from a file), so a mistake costs no round trip and the server sees
//! nothing of it.

use std::path::Path;

use serde_json::value::RawValue;
use typed_rpc::ClientError;
use typed_rpc::client::{
    AnyTransport, Batch, BatchResponse, BatchSlot, OutgoingRequest, Params, Transport,
};
use typed_rpc::connect::Endpoint;

use crate::args::{BatchArgs, CallArgs, Command, MethodsArgs};
use crate::batch_file;
use crate::connect::{connector, request};
use crate::exit::{self, Failure};
use crate::openrpc::{Document, StreamNames};
use crate::output::{self, Style};
use crate::params;
use crate::stream;

/// Runs `command`, printing its output on stdout.
pub async fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Call(args) => call(args).await,
        Command::Batch(args) => batch(args).await,
        Command::Methods(args) => methods(args).await,
    }
}

async fn call(args: CallArgs) -> Result<(), Failure> {
    let style = Style::compact_if(args.output.compact);
    let endpoint = Endpoint::parse(&args.url)?;
    let raw = params::from_args(&args.params).map_err(Failure::usage)?;
    let file_document = read_document(args.schema.openrpc.as_deref())?;
    if let Some(document) = &file_document {
        document
            .check(&args.method, raw.as_deref(), args.notify)
            .map_err(Failure::usage)?;
    }
    let params = raw.as_deref().map(encode).transpose()?;
    let client = connector(&args.connect).connect_to(&endpoint).await?;
    let outcome = async {
        let served_document = match args.schema.discover {
            true => Some(discover(&client).await?),
            false => None,
        };
        if let Some(document) = &served_document {
            document
                .check(&args.method, raw.as_deref(), args.notify)
                .map_err(Failure::usage)?;
        }
        if args.notify {
            let notification = OutgoingRequest::new(&args.method, params.as_ref());
            return Ok(client.send_notification(notification).await?);
        }
        let document = file_document.as_ref().or(served_document.as_ref());
        if let Some(names) = stream_names(&args, document) {
            let (method, params) = (&args.method, params.as_ref());
            return stream::print_items(&client, method, params, names, style).await;
        }
        let result = request(&client, &args.method, params.as_ref()).await?;
        output::print(&style.render(result.get()));
        Ok(())
    }
    .await;
    client.close().await;
    outcome
}

/// How the method's items travel, if it streams: as the command line
/// says, else as its document does.
fn stream_names(args: &CallArgs, document: Option<&Document>) -> Option<StreamNames> {
    let documented = document.and_then(|document| document.stream(&args.method));
    if !args.stream.asked() && documented.is_none() {
        return None;
    }
    let defaults = documented
        .cloned()
        .unwrap_or_else(|| StreamNames::of(&args.method));
    Some(StreamNames {
        notification: args
            .stream
            .notification
            .clone()
            .unwrap_or(defaults.notification),
        unsubscribe: args
            .stream
            .unsubscribe
            .clone()
            .unwrap_or(defaults.unsubscribe),
    })
}

async fn batch(args: BatchArgs) -> Result<(), Failure> {
    let style = Style::compact_if(args.output.compact);
    let endpoint = Endpoint::parse(&args.url)?;
    let calls = read_file(&args.file)
        .and_then(|text| batch_file::read(&text).map_err(Failure::usage))
        .map_err(|err| err.context(&args.file.display().to_string()))?;
    let file_document = read_document(args.schema.openrpc.as_deref())?;
    let check = |document: &Document| {
        calls.iter().enumerate().try_for_each(|(index, call)| {
            document
                .check(&call.method, call.params.as_deref(), call.notify)
                .map_err(|err| Failure::usage(format!("call {index}: {err}")))
        })
    };
    if let Some(document) = &file_document {
        check(document)?;
    }
    let (batch, requests) = plan(&calls)?;
    let client = connector(&args.connect).connect_to(&endpoint).await?;
    let outcome = async {
        if args.schema.discover {
            check(&discover(&client).await?)?;
        }
        Ok::<_, Failure>(client.send_batch(&batch).await?)
    }
    .await;
    client.close().await;
    print_replies(&requests, &outcome?, style)
}

/// A request of a batch: its place in the file, its method, and its slot in the reply.
type Request<'a> = (usize, &'a str, BatchSlot<Box<RawValue>>);

/// The batch of `calls`, and where each request's reply will be.
fn plan(calls: &[batch_file::Call]) -> Result<(Batch, Vec<Request<'_>>), Failure> {
    let mut batch = Batch::new();
    let mut requests = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        let params = call
            .params
            .as_deref()
            .map(encode)
            .transpose()
            .map_err(|err| err.context(&format!("call {index}")))?;
        if call.notify {
            batch.notify(call.method.as_str(), params);
        } else {
            let slot = batch.request(call.method.as_str(), params);
            requests.push((index, call.method.as_str(), slot));
        }
    }
    Ok((batch, requests))
}

/// Prints one entry per request, and fails with the code of the worst
/// failed entry, each of them told on stderr.
fn print_replies(
    requests: &[Request<'_>],
    replies: &BatchResponse,
    style: Style,
) -> Result<(), Failure> {
    let mut entries = Vec::with_capacity(requests.len());
    let mut failed = 0;
    let mut worst = 0;
    for (index, method, slot) in requests {
        let name = json_string(method);
        let entry = match replies.get(slot) {
            Ok(result) => format!(r#"{{"method":{name},"result":{}}}"#, result.get()),
            Err(err) => {
                eprintln!("typed-rpc: call {index} (`{method}`): {err}");
                failed += 1;
                worst = worst.max(exit::exit_code(&err));
                match &err {
                    // Serializing an `ErrorObject` cannot fail: its data is JSON already.
                    ClientError::Rpc(error) => format!(
                        r#"{{"method":{name},"error":{}}}"#,
                        serde_json::to_string(error).unwrap_or_default()
                    ),
                    other => format!(
                        r#"{{"method":{name},"decode_error":{}}}"#,
                        json_string(&other.to_string())
                    ),
                }
            }
        };
        entries.push(entry);
    }
    output::print(&style.render(&format!("[{}]", entries.join(","))));
    match failed {
        0 => Ok(()),
        _ => Err(Failure::with_code(
            worst,
            format!("{failed} of {} calls failed", requests.len()),
        )),
    }
}

async fn methods(args: MethodsArgs) -> Result<(), Failure> {
    let document = match (&args.openrpc, &args.url) {
        (Some(path), _) => read_document(Some(path))?,
        (None, Some(url)) => {
            let endpoint = Endpoint::parse(url)?;
            let client = connector(&args.connect).connect_to(&endpoint).await?;
            let document = discover(&client).await;
            client.close().await;
            Some(document?)
        }
        (None, None) => None,
    };
    let document =
        document.ok_or_else(|| Failure::usage("methods needs a URL or --openrpc FILE"))?;
    let listing = document.listing();
    output::print(listing.trim_end());
    Ok(())
}

/// The server's own document, from `rpc.discover`.
async fn discover(client: &AnyTransport) -> Result<Document, Failure> {
    let reply = request(client, "rpc.discover", None)
        .await
        .map_err(|err| Failure::from(err).context("rpc.discover"))?;
    Document::from_json(reply.get())
        .map_err(|err| Failure::with_code(exit::DECODE, format!("rpc.discover: {err}")))
}

/// The document in `path`, if one is named.
fn read_document(path: Option<&Path>) -> Result<Option<Document>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let text = read_file(path)?;
    Document::from_json(&text)
        .map(Some)
        .map_err(|err| Failure::usage(format!("{}: {err}", path.display())))
}

fn read_file(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|err| Failure::usage(format!("cannot read {}: {err}", path.display())))
}

/// Params from the command line or a file, which must be an array or an object.
fn encode(raw: &RawValue) -> Result<Params, Failure> {
    Params::from_value(raw).map_err(|_| Failure::usage("params must be a JSON array or object"))
}

fn json_string(text: &str) -> String {
    // A `str` always serializes.
    serde_json::to_string(text).unwrap_or_default()
}
