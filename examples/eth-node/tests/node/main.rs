//! The node through its typed client, its raw wire, WebSocket subscriptions and its binary.

mod binary;
mod blocks;
mod contracts;
mod rejections;
mod subscriptions;
mod support;
mod transfers;
mod wire;
