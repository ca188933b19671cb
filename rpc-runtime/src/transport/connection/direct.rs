//! The WebSocket server's fast path: a reply sent by the reader itself.

/// A reader's way to send a reply itself, ahead of the writer, when nothing
/// is waiting to be written: a request that finishes as it is read then
/// costs no hand-over to the writer and no pass of the writer's loop. Only
/// the WebSocket server's socket, whose reader and writer share one output
/// buffer, can; every other transport leaves all replies to the writer.
pub(crate) trait DirectReply: Send + 'static {
    /// Whether [`try_reply`](DirectReply::try_reply) can ever take a reply.
    const CAN: bool = true;

    /// Sends `reply`, or leaves it to the writer. Called only when the
    /// writer's queues are empty; it must refuse while the writer has any
    /// message of its own unsent, so that the reply overtakes nothing.
    fn try_reply(&mut self, cx: &mut std::task::Context<'_>, reply: &str) -> Direct;
}

/// What became of a reply offered to [`DirectReply::try_reply`].
pub(crate) enum Direct {
    /// Sent whole (or failed: the failure shows at the next read or write).
    #[cfg(feature = "ws")]
    Sent,
    /// Taken, but the peer has not taken all of it yet: the writer's next
    /// flush sends the rest, under the write timeout.
    #[cfg(feature = "ws")]
    Unsent,
    /// Left to the writer.
    Refused,
}

/// Every reply goes through the writer.
pub(crate) struct ViaWriter;

impl DirectReply for ViaWriter {
    const CAN: bool = false;

    fn try_reply(&mut self, _: &mut std::task::Context<'_>, _: &str) -> Direct {
        Direct::Refused
    }
}
