//! The `#[rpc]` attribute of [typed-rpc](https://docs.rs/typed-rpc).
//!
//! Use it through the `typed-rpc` crate, which documents it in full. The
//! expansion runs in three steps, each in its own module: read the trait
//! (`attr`, `ast`), check it (`check`, with every error collected in `ctxt`),
//! and render the trait, its service and its client (`expand`).

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod expand;
mod openrpc;
mod rpc_error;

use proc_macro::TokenStream;

/// Turns a trait into a JSON-RPC API: a server dispatcher and a typed client.
///
/// See the `typed-rpc` crate for the full documentation.
#[proc_macro_attribute]
pub fn rpc(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::rpc(args.into(), input.into()).into()
}

/// A `#[rpc]` trait, its types and so its typed client, from an OpenRPC
/// document read at compile time.
///
/// See the `typed-rpc` crate for the full documentation.
#[proc_macro]
pub fn openrpc(input: TokenStream) -> TokenStream {
    openrpc::expand(input.into()).into()
}

/// Derives the conversions of an error enum to and from JSON-RPC error
/// objects, so that the server sends each variant with its code and the
/// generated client returns it typed.
///
/// See the `typed-rpc` crate for the full documentation.
#[proc_macro_derive(RpcError, attributes(rpc_error))]
pub fn derive_rpc_error(input: TokenStream) -> TokenStream {
    rpc_error::derive(input.into()).into()
}
