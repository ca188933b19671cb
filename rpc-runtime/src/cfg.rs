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
