//! The async primitives the transports share: small, home-made where tokio's
//! general ones would do more work than a connection's hot path needs.
//!
//! | module | what it gives |
//! |---|---|
//! | [`rare_events`] | futures for events that almost never fire (shutdown, timeouts), polled only when woken |
//! | `in_flight` | the permits of the requests a connection runs, with one taker |
//! | `presence` | a connection's report to its listener's admission: idle since when, asked to close |
//! | `in_order` | two futures run to the end, always polled in the same order |
//! | [`lock`](fn@lock) | a mutex lock that tolerates poisoning |

#[cfg(feature = "duplex")]
pub(crate) mod in_flight;
#[cfg(feature = "duplex")]
mod in_order;
mod lock;
#[cfg(any(feature = "http", feature = "duplex"))]
pub(crate) mod presence;
#[cfg(any(feature = "http", feature = "duplex"))]
pub(crate) mod rare_events;

#[cfg(feature = "duplex")]
pub(crate) use in_order::in_order;
pub(crate) use lock::lock;
