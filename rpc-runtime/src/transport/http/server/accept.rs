//! Content negotiation: what a request's `Accept` header lets the server
//! answer with, as RFC 9110 (section 12.5.1) reads it.
//!
//! Each media range may carry a weight (`q=0.5`); a media type takes the
//! weight of the most specific range that matches it (`text/event-stream`
//! over `text/*` over `*/*`), and a weight of `0` means "not acceptable". A
//! request without `Accept` accepts anything.

use http::{HeaderMap, header};

/// What the client takes for an answer, as far as the server cares: an
/// event stream or not. JSON replies are sent whatever the header says, as
/// every JSON-RPC reply is JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answers {
    /// The client names `text/event-stream`: a streaming method streams,
    /// and any call may send it events before its reply
    /// ([`Context::notify`](crate::Context::notify)), as MCP clients ask.
    Events,
    /// Events are acceptable through a wildcard (`*/*`, `text/*`) or a
    /// missing header, as curl and most HTTP libraries send: a streaming
    /// method streams; any other call answers plain JSON, which a client
    /// that did not ask for events expects.
    EventsForStreams,
    /// Events are not acceptable (`application/json` alone, or
    /// `text/event-stream;q=0`): JSON only, and a streaming method answers
    /// as it declares (see [`StreamFallback`](crate::StreamFallback)).
    Json,
}

/// Reads the request's `Accept` header fields (several count as one list).
pub(crate) fn negotiate(headers: &HeaderMap) -> Answers {
    let mut values = headers.get_all(header::ACCEPT).iter().peekable();
    let Some(first) = values.next() else {
        return Answers::EventsForStreams;
    };
    // What nearly every client sends, settled without parsing.
    if values.peek().is_none() {
        match first.as_bytes() {
            b"*/*" => return Answers::EventsForStreams,
            b"application/json" => return Answers::Json,
            _ => {}
        }
    }
    let mut events = Match::NONE;
    let mut empty = true;
    for range in headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
    {
        let Some(range) = MediaRange::parse(range) else {
            continue;
        };
        empty = false;
        events = events.better(range.against("text", "event-stream"));
    }
    // An empty field (`Accept:`) is taken as none at all, as browsers and
    // most servers take it.
    if empty {
        return Answers::EventsForStreams;
    }
    match events {
        Match { quality: 0, .. } => Answers::Json,
        Match { specificity, .. } if specificity >= EXACT => Answers::Events,
        _ => Answers::EventsForStreams,
    }
}

/// How specifically a range names a media type: `*/*`, `type/*`, the type
/// itself, the type with parameters.
const ANY: u8 = 1;
const TYPE: u8 = 2;
const EXACT: u8 = 3;

/// The range that decides a media type's weight so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Match {
    /// 0 when nothing matched yet.
    specificity: u8,
    /// The weight in thousandths, `0..=1000`.
    quality: u16,
}

impl Match {
    const NONE: Match = Match {
        specificity: 0,
        quality: 0,
    };

    /// The more specific of the two; of two as specific, the higher weight.
    fn better(self, other: Match) -> Match {
        match other.specificity.cmp(&self.specificity) {
            std::cmp::Ordering::Greater => other,
            std::cmp::Ordering::Equal if other.quality > self.quality => other,
            _ => self,
        }
    }
}

/// One media range of an `Accept` list, with its weight.
struct MediaRange<'a> {
    kind: &'a str,
    subtype: &'a str,
    /// Whether it has parameters other than the weight.
    parameters: bool,
    quality: u16,
}

impl<'a> MediaRange<'a> {
    /// `type/subtype;param=value;q=0.5`; `None` for what is not a range.
    fn parse(text: &'a str) -> Option<Self> {
        let mut parts = text.split(';');
        let essence = parts.next()?.trim();
        // Java's `HttpURLConnection` sends `*` for `*/*`.
        let (kind, subtype) = match essence {
            "*" => ("*", "*"),
            _ => essence.split_once('/')?,
        };
        let (kind, subtype) = (kind.trim(), subtype.trim());
        if kind.is_empty() || subtype.is_empty() || (kind == "*" && subtype != "*") {
            return None;
        }
        let mut range = MediaRange {
            kind,
            subtype,
            parameters: false,
            quality: 1000,
        };
        for parameter in parts {
            let (name, value) = parameter.split_once('=').unwrap_or((parameter, ""));
            if name.trim().eq_ignore_ascii_case("q") {
                range.quality = quality(value.trim());
                // What follows the weight are accept-extensions, not the
                // media type's parameters.
                break;
            }
            if !parameter.trim().is_empty() {
                range.parameters = true;
            }
        }
        Some(range)
    }

    /// How this range matches the media type `kind/subtype`.
    fn against(&self, kind: &str, subtype: &str) -> Match {
        let specificity = if self.kind == "*" {
            ANY
        } else if !self.kind.eq_ignore_ascii_case(kind) {
            return Match::NONE;
        } else if self.subtype == "*" {
            TYPE
        } else if !self.subtype.eq_ignore_ascii_case(subtype) {
            return Match::NONE;
        } else {
            EXACT + u8::from(self.parameters)
        };
        Match {
            specificity,
            quality: self.quality,
        }
    }
}

/// A weight (`0`, `0.5`, `1.000`) in thousandths; one that does not parse
/// counts as `1`, as if absent, and one out of range is clamped.
fn quality(text: &str) -> u16 {
    match text.parse::<f32>() {
        Ok(q) if q.is_finite() => (q.clamp(0.0, 1.0) * 1000.0).round() as u16,
        _ => 1000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(values: &[&'static str]) -> Answers {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::ACCEPT, http::HeaderValue::from_static(value));
        }
        negotiate(&headers)
    }

    #[test]
    fn a_client_that_names_events_gets_them_for_every_call() {
        for accept in [
            "text/event-stream",
            "application/json, text/event-stream",
            "TEXT/Event-Stream; charset=utf-8",
            "application/json;q=1, text/event-stream;q=0.1",
            "*/*;q=0, text/event-stream",
            "text/*;q=0, text/event-stream;q=0.5",
        ] {
            assert_eq!(answers(&[accept]), Answers::Events, "{accept}");
        }
        assert_eq!(
            answers(&["application/json", "text/event-stream"]),
            Answers::Events,
            "two header fields are one list"
        );
    }

    #[test]
    fn wildcards_and_no_header_accept_events_for_streams() {
        for accept in [
            "*/*",
            "text/*",
            "application/json, */*;q=0.8",
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2",
            "",
            " , ",
        ] {
            assert_eq!(answers(&[accept]), Answers::EventsForStreams, "{accept:?}");
        }
        assert_eq!(answers(&[]), Answers::EventsForStreams, "no Accept at all");
    }

    #[test]
    fn json_alone_or_a_zero_weight_refuses_events() {
        for accept in [
            "application/json",
            "application/json; charset=utf-8",
            "application/*",
            "text/html",
            "text/event-stream;q=0",
            "*/*, text/event-stream;q=0",
            "text/*, text/event-stream;q=0.000",
            "*/*;q=0",
            "text/*;q=0, application/json",
            "text/event-stream;charset=utf-8;q=0, */*",
        ] {
            assert_eq!(answers(&[accept]), Answers::Json, "{accept}");
        }
    }

    #[test]
    fn the_most_specific_range_decides() {
        // A parameter makes a range more specific than the bare type.
        assert_eq!(
            answers(&["text/event-stream;q=0, text/event-stream;charset=utf-8"]),
            Answers::Events
        );
        // Of two equal ranges, the higher weight.
        assert_eq!(
            answers(&["text/event-stream;q=0, text/event-stream;q=0.3"]),
            Answers::Events
        );
    }

    #[test]
    fn weights_parse_leniently() {
        assert_eq!(quality("0"), 0);
        assert_eq!(quality("0.5"), 500);
        assert_eq!(quality("1.000"), 1000);
        assert_eq!(quality(".2"), 200);
        assert_eq!(quality("2"), 1000);
        assert_eq!(quality("-1"), 0);
        assert_eq!(quality("soon"), 1000);
        assert_eq!(quality("NaN"), 1000);
        assert!(MediaRange::parse("json").is_none());
        assert!(MediaRange::parse("*/json").is_none());
        assert!(MediaRange::parse("/").is_none());
    }
}
