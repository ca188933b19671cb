//! `nginx::Nginx`: a real nginx in front of two tiny upstreams, round
//! robin, forwarding headers, and passing events on as they are sent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use typed_rpc_test_support::nginx::Nginx;

/// An upstream named `name`: `GET /who` answers its name and the
/// `X-Forwarded-For` it was sent; `GET /events` sends one event, waits for
/// `go`, then sends a second and ends.
fn upstream(name: &'static str, go: mpsc::Receiver<()>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = Vec::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push(line.trim_end().to_owned());
            }
            let forwarded = head
                .iter()
                .find_map(|line| line.strip_prefix("X-Forwarded-For: "))
                .unwrap_or("none");
            if head
                .first()
                .is_some_and(|line| line.starts_with("GET /events"))
            {
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: 1\n\n",
                );
                let _ = go.recv_timeout(Duration::from_secs(20));
                let _ = stream.write_all(b"data: 2\n\n");
            } else {
                let body = format!("{name} for {forwarded}");
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        }
    });
    addr
}

/// `GET path` through `proxy`; the response's stream, the request sent.
fn get(proxy: &Nginx, path: &str) -> TcpStream {
    let mut stream = TcpStream::connect(proxy.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    stream
}

fn body(proxy: &Nginx, path: &str) -> String {
    let mut text = String::new();
    get(proxy, path).read_to_string(&mut text).unwrap();
    let (_, body) = text.split_once("\r\n\r\n").unwrap();
    body.to_owned()
}

#[test]
fn nginx_proxies_round_robin_and_streams_events_unbuffered() {
    let (go_a, wait_a) = mpsc::channel();
    let (go_b, wait_b) = mpsc::channel();
    let proxy = Nginx::proxy([upstream("a", wait_a), upstream("b", wait_b)])
        .directive("proxy_read_timeout 30s")
        .start()
        .unwrap();
    assert!(proxy.url().starts_with("http://127.0.0.1:"));

    let mut answers: Vec<String> = (0..4).map(|_| body(&proxy, "/who")).collect();
    answers.sort();
    assert_eq!(
        answers,
        [
            "a for 127.0.0.1",
            "a for 127.0.0.1",
            "b for 127.0.0.1",
            "b for 127.0.0.1"
        ],
        "each upstream in turn, told who called"
    );

    // The first event arrives while the upstream still holds the second:
    // buffered, it would wait for the end of the response.
    let mut events = get(&proxy, "/events");
    let mut seen = Vec::new();
    let mut chunk = [0; 1024];
    while !String::from_utf8_lossy(&seen).contains("data: 1") {
        let n = events
            .read(&mut chunk)
            .expect("the first event arrives before the stream ends");
        assert!(
            n > 0,
            "the stream ended early: {}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&chunk[..n]);
    }
    assert!(!String::from_utf8_lossy(&seen).contains("data: 2"));
    go_a.send(()).unwrap();
    go_b.send(()).unwrap();
    events.read_to_end(&mut seen).unwrap();
    let text = String::from_utf8_lossy(&seen);
    assert!(text.contains("text/event-stream"), "{text}");
    assert!(text.contains("data: 2"), "{text}");
}
