//! Server-Sent Events as the client reads them: the data of each whole
//! event, and the last event id and reconnection delay the server named,
//! to resume a stream that ends before its response.

use std::time::Duration;

/// The events of one logical stream, read from chunks (across the
/// connections that resume it).
#[derive(Default)]
pub(super) struct Events {
    buffer: Vec<u8>,
    data: String,
    last_id: Option<String>,
    retry: Option<Duration>,
}

impl Events {
    pub(super) fn extend(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// What has arrived and is not yet an event.
    pub(super) fn pending(&self) -> usize {
        self.buffer.len() + self.data.len()
    }

    /// The data of every event now whole.
    pub(super) fn take(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                events.push(std::mem::take(&mut self.data));
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "data" => {
                    if !self.data.is_empty() {
                        self.data.push('\n');
                    }
                    self.data.push_str(value);
                }
                // An empty id forgets the last one; one with NUL is ignored.
                "id" if !value.contains('\0') => {
                    self.last_id = (!value.is_empty()).then(|| value.to_owned());
                }
                "retry" => {
                    if let Ok(millis) = value.parse::<u64>() {
                        self.retry = Some(Duration::from_millis(millis));
                    }
                }
                _ => {}
            }
        }
        events
    }

    pub(super) fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.extend(bytes);
        self.take()
    }

    /// The id of the last event, to resume after (`Last-Event-ID`).
    pub(super) fn last_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// How long the server asked to be left before a reconnection.
    pub(super) fn retry(&self) -> Option<Duration> {
        self.retry
    }

    /// Drops a partial event: the connection it came on ended.
    pub(super) fn connection_ended(&mut self) {
        self.buffer.clear();
        self.data.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_their_ids_and_the_retry_delay_are_read_across_chunks() {
        let mut events = Events::default();
        assert!(events.push(b"id: e-1\nretry: 500\nda").is_empty());
        assert_eq!(
            events.push(b"ta: \n\ndata: {\"a\":\ndata: 1}\n\n"),
            ["", "{\"a\":\n1}"]
        );
        assert_eq!(events.last_id(), Some("e-1"));
        assert_eq!(events.retry(), Some(Duration::from_millis(500)));
        events.push(b"id: e-2\r\ndata: half");
        events.connection_ended();
        assert_eq!(events.pending(), 0);
        assert_eq!(events.last_id(), Some("e-2"));
        events.push(b"retry: soon\nid\n: a comment\n\n");
        assert_eq!(events.last_id(), None, "an empty id forgets the last");
        assert_eq!(events.retry(), Some(Duration::from_millis(500)));
    }
}
