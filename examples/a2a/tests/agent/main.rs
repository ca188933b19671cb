//! The text agent served in-process over HTTP on loopback, called with our
//! generated client as an A2A user would call it.

mod auth;
mod push;
mod skills;
mod support;
mod tasks;
