//! Tally: arithmetic with `let` bindings, the language the example server serves.
//!
//! ```text
//! # Prices, in a .tally file
//! let price = 12.5
//! let qty = 3; let total = price * qty
//! let 税 = total * 0.2
//! max(total + 税, 40)
//! ```
//!
//! A file is statements, one per line or separated by `;`: `let name =
//! expression` binds a name, any other expression is evaluated. Names are
//! Unicode letters, digits, marks, `_` and emoji (`価格`, `café`, `🍎`);
//! numbers are decimal (`12`, `0.5`, `1e3`); the operators are `+ - * /`
//! and `^` (power), with parentheses; the functions are `sqrt`, `abs`,
//! `round`, `min` and `max`; `#` starts a comment.
//!
//! [`Analysis`] finds what a file means, [`format`] lays it out, and
//! [`Analyzed`] answers the protocol's questions about one version of a
//! document.

mod analysis;
mod features;
mod format;
mod lexer;
mod parser;
mod settings;

pub use analysis::{
    Analysis, BUILTINS, Binding, Builtin, Problem, ProblemKind, Reference, Severity, Symbol,
    Target, builtin,
};
pub use features::Analyzed;
pub use format::format;
pub use lexer::is_name;
pub use settings::Settings;
