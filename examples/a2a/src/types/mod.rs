//! The A2A 1.0 data types. JSON is written with the proto JSON names
//! (camelCase, enums as `ROLE_USER`, `TASK_STATE_WORKING`); it is read with
//! those and with the proto's snake_case field names, as proto JSON parsers
//! do; unknown members are ignored.

mod card;
mod events;
mod message;
mod push;
mod requests;
mod task;

pub use card::*;
pub use events::*;
pub use message::*;
pub use push::*;
pub use requests::*;
pub use task::*;
