//! test-support's own tests, one module per piece: each provisions for
//! real (npm, PyPI, Debian, PostgreSQL, nginx) what the other tests will
//! rely on, and checks it works as a user of it would.

mod fixture;
mod lock;
mod nginx;
mod npm;
mod pip;
mod postgres;
mod process;
