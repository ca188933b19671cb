//! The client's address behind a trusted reverse proxy: from `Forwarded`
//! (RFC 7239) or `X-Forwarded-For`, read only when the connection comes
//! from an address [`Limits::trust_forwarded_from`] names.
//!
//! [`Limits::trust_forwarded_from`]: crate::transport::Limits::trust_forwarded_from

use std::net::{IpAddr, SocketAddr};

use http::HeaderMap;

/// The address a handler sees as its caller's: the connection's `peer`,
/// or, when `peer` is one of `trusted`, the nearest address the proxies
/// recorded that is not itself a trusted proxy. Each proxy appends the
/// address it was reached from, so the entries are read from the right and
/// an address a client wrote in itself (further left) is never believed.
pub(crate) fn client_addr(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    trusted: &[IpAddr],
) -> Option<SocketAddr> {
    let peer = peer?;
    if !trusted.contains(&peer.ip()) {
        return Some(peer);
    }
    let recorded = match headers.get_all("forwarded").iter().next() {
        Some(_) => forwarded_for(headers),
        None => x_forwarded_for(headers),
    };
    let client = recorded
        .into_iter()
        .rev()
        .find(|addr| !trusted.contains(&addr.ip()));
    Some(client.unwrap_or(peer))
}

/// The `for=` addresses of every `Forwarded` header, in order.
fn forwarded_for(headers: &HeaderMap) -> Vec<SocketAddr> {
    list_elements(headers, "forwarded")
        .filter_map(|element| {
            element.split(';').find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                name.eq_ignore_ascii_case("for")
                    .then(|| parse(value.trim_matches('"')))?
            })
        })
        .collect()
}

/// The addresses of every `X-Forwarded-For` header, in order.
fn x_forwarded_for(headers: &HeaderMap) -> Vec<SocketAddr> {
    list_elements(headers, "x-forwarded-for")
        .filter_map(|entry| parse(entry.trim()))
        .collect()
}

/// The comma-separated elements of every `name` header, in order: a
/// list-valued header may come as several lines or as one joined by commas.
fn list_elements<'a>(headers: &'a HeaderMap, name: &str) -> impl Iterator<Item = &'a str> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
}

/// `192.0.2.7`, `192.0.2.7:4711`, `2001:db8::1` or `[2001:db8::1]:4711`;
/// port 0 when none is given. Obfuscated identifiers (`_hidden`,
/// `unknown`) are not addresses.
fn parse(text: &str) -> Option<SocketAddr> {
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Some(addr);
    }
    let ip = text.trim_start_matches('[').trim_end_matches(']');
    ip.parse::<IpAddr>().ok().map(|ip| SocketAddr::new(ip, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, value.parse().unwrap());
        }
        headers
    }

    const PROXY: &str = "10.0.0.1:5000";

    fn seen(pairs: &[(&'static str, &'static str)], peer: &str, trusted: &[&str]) -> String {
        let trusted: Vec<IpAddr> = trusted.iter().map(|ip| ip.parse().unwrap()).collect();
        client_addr(&headers(pairs), Some(peer.parse().unwrap()), &trusted)
            .unwrap()
            .to_string()
    }

    #[test]
    fn only_a_trusted_proxy_is_believed() {
        let xff = [("x-forwarded-for", "203.0.113.7")];
        assert_eq!(seen(&xff, PROXY, &["10.0.0.1"]), "203.0.113.7:0");
        assert_eq!(seen(&xff, PROXY, &[]), PROXY);
        assert_eq!(seen(&xff, "192.0.2.1:80", &["10.0.0.1"]), "192.0.2.1:80");
    }

    #[test]
    fn the_nearest_untrusted_address_wins_so_a_client_cannot_spoof_one() {
        // The client wrote 1.1.1.1 itself; the proxy appended what it saw.
        let xff = [("x-forwarded-for", "1.1.1.1, 203.0.113.7, 10.0.0.2")];
        assert_eq!(
            seen(&xff, PROXY, &["10.0.0.1", "10.0.0.2"]),
            "203.0.113.7:0"
        );
    }

    #[test]
    fn forwarded_is_read_with_ports_quotes_and_ipv6() {
        let fwd = [(
            "forwarded",
            r#"for="[2001:db8::1]:4711";proto=https, for=10.0.0.2"#,
        )];
        assert_eq!(
            seen(&fwd, PROXY, &["10.0.0.1", "10.0.0.2"]),
            "[2001:db8::1]:4711"
        );
        let hidden = [("forwarded", "for=_hidden")];
        assert_eq!(seen(&hidden, PROXY, &["10.0.0.1"]), PROXY);
    }
}
