//! The process's stdin and stdout as async byte streams that cost no
//! thread hop per message when they are pipes (as they are when a host
//! runs a server as its child process: an MCP host, an editor running a
//! language server).
//!
//! tokio's own `stdin()` and `stdout()` read and write on its blocking
//! thread pool, whatever the file: each message then crosses threads twice
//! each way. A pipe can instead be read and written non-blocking on the
//! runtime's own reactor, as sockets are; these types do that when stdin
//! (stdout) is a pipe, and fall back to tokio's streams for anything else
//! (a terminal, a file, a socket), which non-blocking mode would disturb
//! for the other processes sharing it.

use std::io;
use std::os::fd::AsFd;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::unix::pipe;

/// The process's stdin: a non-blocking pipe when it is one.
///
/// ```no_run
/// # async fn demo() -> std::io::Result<()> {
/// use typed_rpc::transport::stream::stdio;
/// use tokio::io::{AsyncBufReadExt, BufReader};
///
/// let (stdin, _stdout) = stdio();
/// let mut lines = BufReader::new(stdin).lines();
/// while let Some(line) = lines.next_line().await? {
///     eprintln!("read {line}");
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Stdin(Input);

/// The process's stdout: a non-blocking pipe when it is one.
#[derive(Debug)]
pub struct Stdout(Output);

#[derive(Debug)]
enum Input {
    /// A copy of fd 0, in non-blocking mode while it is held.
    Pipe(Option<pipe::Receiver>),
    Other(tokio::io::Stdin),
}

#[derive(Debug)]
enum Output {
    /// A copy of fd 1, in non-blocking mode while it is held.
    Pipe(Option<pipe::Sender>),
    Other(tokio::io::Stdout),
}

/// The process's stdin and stdout, read and written on the runtime's
/// reactor when they are pipes. Must be called within a tokio runtime.
pub fn stdio() -> (Stdin, Stdout) {
    let input = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Receiver::from_owned_fd(fd).ok());
    let output = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Sender::from_owned_fd(fd).ok());
    let input = match input {
        Some(pipe) => Input::Pipe(Some(pipe)),
        None => Input::Other(tokio::io::stdin()),
    };
    let output = match output {
        Some(pipe) => Output::Pipe(Some(pipe)),
        None => Output::Other(tokio::io::stdout()),
    };
    (Stdin(input), Stdout(output))
}

/// Puts a pipe back into blocking mode: the mode is the pipe's, shared with
/// whoever else holds it (the process's own fd 0 or 1, a parent's copy).
fn restore<F: FnOnce() -> io::Result<std::os::fd::OwnedFd>>(into_blocking: F) {
    if let Err(err) = into_blocking() {
        tracing::debug!(%err, "a stdio pipe could not be put back into blocking mode");
    }
}

impl Drop for Stdin {
    fn drop(&mut self) {
        if let Input::Pipe(pipe) = &mut self.0
            && let Some(pipe) = pipe.take()
        {
            restore(|| pipe.into_blocking_fd());
        }
    }
}

impl Drop for Stdout {
    fn drop(&mut self) {
        if let Output::Pipe(pipe) = &mut self.0
            && let Some(pipe) = pipe.take()
        {
            restore(|| pipe.into_blocking_fd());
        }
    }
}

impl AsyncRead for Stdin {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match &mut self.0 {
            Input::Pipe(Some(pipe)) => Pin::new(pipe).poll_read(cx, buf),
            Input::Pipe(None) => Poll::Ready(Ok(())),
            Input::Other(stdin) => Pin::new(stdin).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stdout {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.0 {
            Output::Pipe(Some(pipe)) => Pin::new(pipe).poll_write(cx, buf),
            Output::Pipe(None) => Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
            Output::Other(stdout) => Pin::new(stdout).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.0 {
            Output::Pipe(Some(pipe)) => Pin::new(pipe).poll_write_vectored(cx, bufs),
            Output::Pipe(None) => Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
            Output::Other(stdout) => Pin::new(stdout).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.0 {
            Output::Pipe(Some(pipe)) => pipe.is_write_vectored(),
            Output::Pipe(None) => false,
            Output::Other(stdout) => stdout.is_write_vectored(),
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.0 {
            Output::Pipe(Some(pipe)) => Pin::new(pipe).poll_flush(cx),
            Output::Pipe(None) => Poll::Ready(Ok(())),
            Output::Other(stdout) => Pin::new(stdout).poll_flush(cx),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.0 {
            Output::Pipe(Some(pipe)) => Pin::new(pipe).poll_shutdown(cx),
            Output::Pipe(None) => Poll::Ready(Ok(())),
            Output::Other(stdout) => Pin::new(stdout).poll_shutdown(cx),
        }
    }
}
