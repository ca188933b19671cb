//! The text agent served in-process over HTTP on loopback, called with our
//! generated client as an A2A user would call it.

mod auth;
mod card;
mod large;
mod outage;
mod protocol;
mod push;
mod push_https;
mod skills;
mod support;
mod tasks;
