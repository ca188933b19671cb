//! `cfg_*!` blocks: items gated by a cargo feature at a module's border,
//! as tokio's are, so that core types carry no feature gates inside.

/// Items compiled with the two-way connection engine (WebSocket, streams).
macro_rules! cfg_duplex {
    ($($item:item)*) => {
        $( #[cfg(feature = "duplex")] $item )*
    };
}

/// Items compiled with the async runtime the transports share.
macro_rules! cfg_rt {
    ($($item:item)*) => {
        $( #[cfg(feature = "rt")] $item )*
    };
}

/// Items that stand in for [`cfg_rt!`] ones when there is no async runtime.
macro_rules! cfg_not_rt {
    ($($item:item)*) => {
        $( #[cfg(not(feature = "rt"))] $item )*
    };
}

/// Items compiled with the HTTP transport.
macro_rules! cfg_http {
    ($($item:item)*) => {
        $( #[cfg(feature = "http")] $item )*
    };
}

/// Items compiled with OpenRPC documents (`schema`).
macro_rules! cfg_schema {
    ($($item:item)*) => {
        $( #[cfg(feature = "schema")] $item )*
    };
}

/// Items that stand in for [`cfg_schema!`] ones without OpenRPC documents.
macro_rules! cfg_not_schema {
    ($($item:item)*) => {
        $( #[cfg(not(feature = "schema"))] $item )*
    };
}
