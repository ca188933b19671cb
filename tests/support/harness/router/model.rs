//! A model of requests and batches: generated from entropy, written as
//! text, each with the exact answer it must get from [`super::router`].

use serde_json::{Value, json};

use super::super::Gen;
use super::oracle::{
    INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, Outcome, Reply, Response, perfect_match,
};
use super::services::{MAX_BATCH, greeting_text};

/// A generated message and the reply it must get.
#[derive(Debug)]
pub struct Scenario {
    pub text: String,
    pub expected: Exact,
}

/// The exact reply a scenario calls for.
#[derive(Debug)]
pub enum Exact {
    Nothing,
    /// One `-32600` with id `null` (an empty or oversized batch).
    Refused,
    Single(Answer),
    Batch(Vec<Answer>),
    /// The text was cut short at random: only the generic oracle applies.
    Unknown,
}

/// The answer to one entry.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The raw id text; `None` for `null`.
    pub id: Option<String>,
    pub outcome: Expect,
}

#[derive(Debug, Clone)]
pub enum Expect {
    Result(Value),
    /// An error with this code (and, for `fail`, this message).
    Error(i64, Option<String>),
}

impl Scenario {
    pub fn generate(g: &mut impl Gen) -> Scenario {
        let ws = Ws(g.byte().is_multiple_of(4));
        let mut scenario = match g.below(10) {
            0..=5 => {
                let (text, answer) = element(g, ws, false);
                let expected = answer.map_or(Exact::Nothing, Exact::Single);
                Scenario { text, expected }
            }
            _ => batch(g, ws),
        };
        if g.one_in(24) && !scenario.text.is_empty() {
            let cut = g.below(scenario.text.len());
            let cut = (0..=cut)
                .rev()
                .find(|&i| scenario.text.is_char_boundary(i))
                .unwrap_or(0);
            scenario.text.truncate(cut);
            scenario.expected = Exact::Unknown;
        }
        scenario
    }

    /// Checks `reply` against the exact expectation.
    pub fn check(&self, reply: &Reply) -> Result<(), String> {
        let fail = |why: &str| {
            Err(format!(
                "{why}\n  input:    {}\n  expected: {:?}\n  reply:    {reply:?}",
                self.text, self.expected
            ))
        };
        match (&self.expected, reply) {
            (Exact::Unknown, _) | (Exact::Nothing, Reply::Nothing) => Ok(()),
            (Exact::Refused, Reply::Single(r))
                if r.id == "null" && r.outcome.code() == Some(INVALID_REQUEST) =>
            {
                Ok(())
            }
            (Exact::Single(answer), Reply::Single(r)) if answer.fits(r) => Ok(()),
            (Exact::Batch(answers), Reply::Batch(rs))
                if perfect_match(answers, rs, Answer::fits) =>
            {
                Ok(())
            }
            _ => fail("the reply is not the one expected"),
        }
    }
}

impl Answer {
    fn fits(&self, response: &Response) -> bool {
        if response.id != self.id.as_deref().unwrap_or("null") {
            return false;
        }
        match (&self.outcome, &response.outcome) {
            (Expect::Result(value), Outcome::Result(raw)) => {
                serde_json::from_str::<Value>(raw).is_ok_and(|got| &got == value)
            }
            (
                Expect::Error(code, message),
                Outcome::Error {
                    code: got,
                    message: m,
                    ..
                },
            ) => code == got && message.as_ref().is_none_or(|want| want == m),
            _ => false,
        }
    }
}

/// Whether to scatter insignificant whitespace between tokens.
#[derive(Clone, Copy)]
struct Ws(bool);

impl Ws {
    fn get(self, g: &mut impl Gen) -> &'static str {
        if self.0 {
            g.pick(&["", " ", "\n", "\t", "\r\n  "])
        } else {
            ""
        }
    }
}

fn batch(g: &mut impl Gen, ws: Ws) -> Scenario {
    let len = match g.below(16) {
        0 => 0,
        1 => MAX_BATCH + 1 + g.below(3),
        _ => 1 + g.below(6),
    };
    let mut text = String::from("[");
    let mut answers = Vec::new();
    for i in 0..len {
        if i > 0 {
            text.push(',');
        }
        text.push_str(ws.get(g));
        let (element, answer) = element(g, ws, true);
        text.push_str(&element);
        text.push_str(ws.get(g));
        answers.extend(answer);
    }
    text.push(']');
    let expected = match len {
        0 => Exact::Refused,
        n if n > MAX_BATCH => Exact::Refused,
        _ if answers.is_empty() => Exact::Nothing,
        _ => Exact::Batch(answers),
    };
    Scenario { text, expected }
}

/// One entry of a message: its text and its answer (`None`: not answered).
fn element(g: &mut impl Gen, ws: Ws, in_batch: bool) -> (String, Option<Answer>) {
    if g.one_in(12) {
        // Not an object. (An array alone would be a batch.)
        let junk = match in_batch {
            true => g.pick(&[
                "1", "-0", "1e400", "-1e400", r#""x""#, "null", "true", "[]", "[1,{}]",
            ]),
            false => g.pick(&["1", "-0", "1e400", "-1e400", r#""x""#, "null", "true"]),
        };
        let answer = Answer {
            id: None,
            outcome: Expect::Error(INVALID_REQUEST, None),
        };
        return (junk.to_owned(), Some(answer));
    }
    request(g, ws)
}

enum IdSpec {
    Absent,
    Valid(String),
    Invalid(&'static str),
}

fn id(g: &mut impl Gen) -> IdSpec {
    const IDS: &[&str] = &[
        "0",
        "1",
        "-1",
        "9223372036854775807",
        "-9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "-18446744073709551617",
        "123456789012345678901234567890123456789",
        "1.5",
        "-0.0",
        "0.1e1",
        "1e400",
        "-1e-400",
        "1E+3",
        "2.50e-2",
        "null",
        r#""""#,
        r#""1""#,
        r#""a\"b\\c\/d\n""#,
        r#""\u00e9\ud83d\ude00""#,
        r#""é😀""#,
        r#""\ud800""#,
    ];
    match g.below(8) {
        0 => IdSpec::Absent,
        1 if g.one_in(3) => {
            IdSpec::Invalid(g.pick(&["true", "false", "[]", "[1]", "{}", r#"{"id":1}"#]))
        }
        1 | 2 => IdSpec::Valid(json_string(&string(g))),
        3 => {
            let n = g.u64();
            IdSpec::Valid(if g.bool() {
                format!("-{n}")
            } else {
                n.to_string()
            })
        }
        _ => IdSpec::Valid((g.pick(IDS)).to_owned()),
    }
}

/// A short string mixing plain text, quotes, escapes, controls and non-ASCII.
fn string(g: &mut impl Gen) -> String {
    const PIECES: &[&str] = &[
        "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1f}", "é", "😀", "\u{2028}",
        "\u{feff}", "{", "]", ":", ",", "null",
    ];
    let len = if g.one_in(32) { 200 } else { g.below(8) };
    (0..len).map(|_| g.pick(PIECES)).collect()
}

/// `s` as a JSON string, sometimes with a needless `\u` escape.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

fn escaped_name(g: &mut impl Gen, name: &str) -> String {
    match g.below(4) {
        0 => {
            // The first character as a `\u` escape: the same name.
            let mut chars = name.chars();
            let first = chars.next().map_or(0, u32::from);
            format!("\"\\u{first:04x}{}\"", chars.as_str())
        }
        1 => json_string(name).replace('/', "\\/"),
        _ => json_string(name),
    }
}

/// A request object: its text and its answer.
fn request(g: &mut impl Gen, ws: Ws) -> (String, Option<Answer>) {
    let id = id(g);
    let (version, version_ok) = match g.below(12) {
        0 => (Some(r#""1.0""#), false),
        1 => (Some("2.0"), false),
        2 => (None, false),
        3 => (Some(g.pick(&["null", r#""2.0 ""#, r#""2""#, "2"])), false),
        4 => (Some(r#""2\u002e0""#), true),
        _ => (Some(r#""2.0""#), true),
    };
    let call = method(g);
    let mut members: Vec<(String, String)> = Vec::new();
    if let Some(version) = version {
        members.push(("jsonrpc".into(), version.into()));
    }
    let method_ok = match &call.method {
        Method::Text(text) => {
            members.push(("method".into(), text.clone()));
            true
        }
        Method::NotString(raw) => {
            members.push(("method".into(), (*raw).into()));
            false
        }
    };
    let params_ok = match &call.params {
        Some(params) => {
            members.push(("params".into(), params.clone()));
            params.starts_with(['[', '{'])
        }
        None => true,
    };
    let id_raw = match &id {
        IdSpec::Absent => None,
        IdSpec::Valid(raw) => Some(raw.clone()),
        IdSpec::Invalid(raw) => Some((*raw).to_owned()),
    };
    if let Some(raw) = &id_raw {
        members.push(("id".into(), raw.clone()));
    }
    // Members the router must skip, some with names close to its own.
    if g.one_in(4) {
        let name = g.pick(&[
            "x", "ID", "Method", "params ", "result", "error", "jsonrpc2",
        ]);
        let value = g.pick(&[
            "1",
            "null",
            r#"{"id":[1,{"a":"\ud800"}]}"#,
            "1e400",
            r#""\u0000""#,
        ]);
        members.push((name.into(), value.into()));
    }
    let duplicate = g.one_in(16) && !members.is_empty();
    if duplicate {
        let (name, value) = members[g.below(members.len())].clone();
        let value = if g.bool() { value } else { "null".to_owned() };
        // A repeat of a non-request member is no duplicate to the router.
        let counts = matches!(name.as_str(), "jsonrpc" | "method" | "params" | "id");
        members.push((name, value));
        if !counts {
            return request_text(
                g,
                ws,
                members,
                answer_for(&id, version_ok, method_ok, params_ok, &call),
            );
        }
        let answer = Answer {
            id: None,
            outcome: Expect::Error(INVALID_REQUEST, None),
        };
        return request_text(g, ws, members, Some(answer));
    }
    let answer = answer_for(&id, version_ok, method_ok, params_ok, &call);
    request_text(g, ws, members, answer)
}

fn answer_for(
    id: &IdSpec,
    version_ok: bool,
    method_ok: bool,
    params_ok: bool,
    call: &CallSpec,
) -> Option<Answer> {
    let invalid = |id: Option<String>| {
        Some(Answer {
            id,
            outcome: Expect::Error(INVALID_REQUEST, None),
        })
    };
    let id = match id {
        IdSpec::Invalid(_) => return invalid(None),
        IdSpec::Absent => None,
        IdSpec::Valid(raw) => Some(raw.clone()),
    };
    if !version_ok || !method_ok || !params_ok || call.invalid_name {
        return invalid(id);
    }
    Some(Answer {
        id: Some(id?),
        outcome: call.outcome.clone(),
    })
}

fn request_text(
    g: &mut impl Gen,
    ws: Ws,
    mut members: Vec<(String, String)>,
    answer: Option<Answer>,
) -> (String, Option<Answer>) {
    // Any member order.
    for i in (1..members.len()).rev() {
        let j = g.below(i + 1);
        members.swap(i, j);
    }
    let mut text = String::from("{");
    for (i, (name, value)) in members.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(ws.get(g));
        text.push_str(&json_string(name));
        text.push_str(ws.get(g));
        text.push(':');
        text.push_str(ws.get(g));
        text.push_str(value);
        text.push_str(ws.get(g));
    }
    text.push('}');
    (text, answer)
}

enum Method {
    /// A JSON string.
    Text(String),
    /// Any other JSON value.
    NotString(&'static str),
}

struct CallSpec {
    method: Method,
    params: Option<String>,
    /// A method name that is a string but no valid one (a lone surrogate).
    invalid_name: bool,
    outcome: Expect,
}

/// A value for a param of type `kind`: its JSON text and whether it fits.
fn value(g: &mut impl Gen, kind: ParamKind) -> (String, Option<Value>) {
    if g.one_in(6) {
        // The wrong type, or a value out of range.
        let wrong = g.pick(&[
            "1.5",
            "1e2",
            "-1",
            "18446744073709551616",
            r#""7""#,
            "null",
            "true",
            "[1]",
            r#"{"a":1}"#,
        ]);
        let fits: Option<Value> = match (kind, wrong) {
            (ParamKind::I64, "-1") => Some(json!(-1)),
            (ParamKind::OptStr, "null") => Some(Value::Null),
            (ParamKind::Str | ParamKind::OptStr, r#""7""#) => Some(json!("7")),
            _ => None,
        };
        return (wrong.to_owned(), fits);
    }
    match kind {
        ParamKind::I64 => {
            let n = match g.below(4) {
                0 => g.pick(&[i64::MIN, i64::MAX, 0, -1]),
                _ => g.u64() as i64,
            };
            (n.to_string(), Some(json!(n)))
        }
        ParamKind::U64 => {
            let n = if g.bool() {
                g.pick(&[0, u64::MAX])
            } else {
                g.u64()
            };
            (n.to_string(), Some(json!(n)))
        }
        ParamKind::Str | ParamKind::OptStr => {
            let s = string(g);
            (json_string(&s), Some(json!(s)))
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum ParamKind {
    I64,
    U64,
    Str,
    OptStr,
}

/// The params a method declares, and whether it ignores unknown named ones.
fn declared(name: &str) -> (&'static [(&'static str, ParamKind)], bool) {
    use ParamKind::*;
    match name {
        "subtract" => (&[("minuend", I64), ("subtrahend", I64)], false),
        "greet" => (&[("name", Str), ("greeting", OptStr)], false),
        "fail" => (&[("code", I64), ("message", Str)], false),
        "lenient" => (&[("n", U64)], true),
        "bump" => (&[("by", U64)], false),
        _ => (&[], false),
    }
}

/// What a method returns for its decoded args.
fn run(name: &str, args: &[Option<Value>]) -> Expect {
    let arg = |i: usize| args.get(i).cloned().flatten().unwrap_or(Value::Null);
    match name {
        "subtract" => {
            let (a, b) = (arg(0).as_i64().unwrap_or(0), arg(1).as_i64().unwrap_or(0));
            Expect::Result(json!(a.wrapping_sub(b)))
        }
        "greet" => {
            let name = arg(0);
            let greeting = arg(1);
            Expect::Result(json!(greeting_text(
                name.as_str().unwrap_or(""),
                greeting.as_str()
            )))
        }
        "fail" => Expect::Error(
            arg(0).as_i64().unwrap_or(0),
            Some(arg(1).as_str().unwrap_or("").to_owned()),
        ),
        "lenient" => Expect::Result(arg(0)),
        "ping" => Expect::Result(json!("pong")),
        // Notifications called with an id answer `null`.
        _ => Expect::Result(Value::Null),
    }
}

fn method(g: &mut impl Gen) -> CallSpec {
    let other = |method, outcome| CallSpec {
        method,
        params: None,
        invalid_name: false,
        outcome,
    };
    match g.below(16) {
        0 => {
            let name = g.pick(&[
                "",
                "Subtract",
                "subtract ",
                "rpc.discover",
                "rpc.subtract",
                "rpc.",
                "tools/call/",
                "\u{0}",
                "sum\u{0}",
            ]);
            let mut call = other(
                Method::Text(json_string(name)),
                Expect::Error(METHOD_NOT_FOUND, None),
            );
            call.params = params_any(g);
            call
        }
        1 => {
            let mut call = other(
                Method::Text(json_string(&string(g))),
                Expect::Error(METHOD_NOT_FOUND, None),
            );
            call.params = params_any(g);
            call
        }
        2 if g.bool() => {
            let raw = g.pick(&[
                "1",
                "1e400",
                "-1e400",
                "null",
                "true",
                "[\"ping\"]",
                r#"{"name":"ping"}"#,
            ]);
            other(Method::NotString(raw), Expect::Error(INVALID_REQUEST, None))
        }
        2 => {
            // A lone surrogate: a string, but not one a name can be.
            let mut call = other(
                Method::Text(r#""\ud800""#.into()),
                Expect::Error(INVALID_REQUEST, None),
            );
            call.invalid_name = true;
            call
        }
        _ => known_call(g),
    }
}

/// Params of any shape, for methods that do not exist.
fn params_any(g: &mut impl Gen) -> Option<String> {
    match g.below(4) {
        0 => None,
        1 => Some("[]".into()),
        2 => Some(format!("[{}]", json_string(&string(g)))),
        _ => Some(r#"{"a":[1,2,{"b":null}]}"#.into()),
    }
}

fn known_call(g: &mut impl Gen) -> CallSpec {
    let name = g.pick(&[
        "subtract",
        "greet",
        "fail",
        "lenient",
        "bump",
        "ping",
        "sum",
        "update",
        "tools/call",
    ]);
    let method = Method::Text(escaped_name(g, name));
    if g.one_in(20) {
        // Params that are neither an array nor an object: an invalid request.
        let params = Some((g.pick(&["1", r#""a""#, "null", "true"])).to_owned());
        return CallSpec {
            method,
            params,
            invalid_name: false,
            outcome: Expect::Error(INVALID_REQUEST, None),
        };
    }
    let (params, outcome) = match name {
        "sum" | "update" => whole_vec(g, name),
        "tools/call" => tool_call(g),
        _ => by_position_or_name(g, name),
    };
    CallSpec {
        method,
        params,
        invalid_name: false,
        outcome,
    }
}

/// `#[params] Vec<i64>`: the whole params must be an array of integers.
fn whole_vec(g: &mut impl Gen, name: &str) -> (Option<String>, Expect) {
    let bad = Expect::Error(INVALID_PARAMS, None);
    match g.below(8) {
        0 => (None, bad),
        1 => (Some(r#"{"values":[1]}"#.into()), bad),
        _ => {
            let len = g.below(6);
            let mut total = 0i64;
            let mut ok = true;
            let items: Vec<String> = (0..len)
                .map(|_| {
                    let (text, fits) = value(g, ParamKind::I64);
                    match fits.and_then(|v| v.as_i64()) {
                        Some(n) => total = total.wrapping_add(n),
                        None => ok = false,
                    }
                    text
                })
                .collect();
            let outcome = match (ok, name) {
                (false, _) => bad,
                (true, "sum") => Expect::Result(json!(total)),
                (true, _) => Expect::Result(Value::Null),
            };
            (Some(format!("[{}]", items.join(","))), outcome)
        }
    }
}

/// `#[params] ToolCall`: an object (or array) with a string `name`.
fn tool_call(g: &mut impl Gen) -> (Option<String>, Expect) {
    let bad = Expect::Error(INVALID_PARAMS, None);
    let name = string(g);
    let result =
        |has_arguments: bool| Expect::Result(json!({"name": name, "has_arguments": has_arguments}));
    let quoted = json_string(&name);
    match g.below(9) {
        0 => (None, bad),
        1 => (Some(r#"{"name":5}"#.into()), bad),
        2 => (Some("{}".into()), bad),
        3 => (Some(format!("[{quoted}]")), result(false)),
        4 => (
            Some(format!(r#"{{"arguments":{{"x":[1]}},"name":{quoted}}}"#)),
            result(true),
        ),
        // A member `ToolCall` has no field for is refused.
        8 => (Some(format!(r#"{{"name":{quoted},"other":1}}"#)), bad),
        // `null` arguments are no arguments.
        5 => (
            Some(format!(r#"{{"name":{quoted},"arguments":null}}"#)),
            result(false),
        ),
        _ => (Some(format!(r#"{{"name":{quoted}}}"#)), result(false)),
    }
}

/// A method with declared params, called by position or by name, sometimes wrongly.
fn by_position_or_name(g: &mut impl Gen, name: &str) -> (Option<String>, Expect) {
    let (params, lenient) = declared(name);
    let bad = Expect::Error(INVALID_PARAMS, None);
    let optional = |kind: ParamKind| kind == ParamKind::OptStr;
    if params.is_empty() {
        return match g.below(4) {
            0 => (None, run(name, &[])),
            1 => (Some("[]".into()), run(name, &[])),
            2 => (Some("{}".into()), run(name, &[])),
            _ => (Some("[1]".into()), bad),
        };
    }
    if g.one_in(10) {
        // No params at all: fine only if every param is optional.
        let ok = params.iter().all(|(_, kind)| optional(*kind));
        return (None, if ok { run(name, &[]) } else { bad });
    }
    let mut ok = true;
    let mut args: Vec<Option<Value>> = vec![None; params.len()];
    if g.bool() {
        // By position: a prefix of the params, maybe with extra elements.
        let given = match g.below(8) {
            0 => g.below(params.len()),
            1 => params.len() + 1,
            _ => params.len(),
        };
        let mut items = Vec::new();
        for (i, slot) in args.iter_mut().enumerate().take(given) {
            let (text, fits) = value(g, params[i].1);
            ok &= fits.is_some();
            *slot = fits;
            items.push(text);
        }
        if given > params.len() {
            // One element more than the method takes.
            ok = false;
            items.push("0".into());
        }
        ok &= params[given.min(params.len())..]
            .iter()
            .all(|(_, kind)| optional(*kind));
        let outcome = if ok { run(name, &args) } else { bad };
        return (Some(format!("[{}]", items.join(","))), outcome);
    }
    // By name, in any order, maybe with a param left out, repeated or unknown.
    let mut members = Vec::new();
    for (i, (param, kind)) in params.iter().enumerate() {
        if g.one_in(8) {
            ok &= optional(*kind);
            continue;
        }
        let (text, fits) = value(g, *kind);
        ok &= fits.is_some();
        args[i] = fits;
        members.push((json_string(param), text));
        if g.one_in(24) {
            members.push((json_string(param), "0".into()));
            ok = false;
        }
    }
    if g.one_in(8) {
        members.push((
            json_string(g.pick(&["unknown", "Minuend", "name "])),
            "1".into(),
        ));
        ok &= lenient;
    }
    for i in (1..members.len()).rev() {
        let j = g.below(i + 1);
        members.swap(i, j);
    }
    let text: Vec<String> = members.iter().map(|(k, v)| format!("{k}:{v}")).collect();
    let outcome = if ok { run(name, &args) } else { bad };
    (Some(format!("{{{}}}", text.join(","))), outcome)
}
