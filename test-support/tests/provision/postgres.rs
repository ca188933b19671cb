//! `postgres::Postgres`: a cluster of its own that answers, stops, comes
//! back with its data, and leaves nothing behind.

use typed_rpc_test_support::postgres::Postgres;

#[test]
fn a_cluster_answers_stops_restarts_with_its_data_and_is_removed() {
    let mut db = Postgres::start().unwrap();
    assert_eq!(db.psql("select 1").unwrap(), "1");
    assert_eq!(
        db.url(),
        format!("postgres://postgres@127.0.0.1:{}/test", db.port())
    );
    assert!(
        db.socket_dir()
            .join(format!(".s.PGSQL.{}", db.port()))
            .exists(),
        "its unix socket is in its own directory"
    );
    db.psql("create table kept (n int); insert into kept values (42)")
        .unwrap();
    let err = db.psql("select * from missing").unwrap_err();
    assert!(
        err.message()
            .contains("relation \"missing\" does not exist"),
        "the server's own words: {err}"
    );

    db.stop().unwrap();
    assert!(!db.is_running());
    let err = db.psql("select 1").unwrap_err();
    assert!(err.message().contains("psql `select 1` failed"), "{err}");

    db.restart().unwrap();
    assert!(db.is_running());
    assert_eq!(db.psql("select n from kept").unwrap(), "42");

    // A restart of a running server works too.
    db.restart().unwrap();
    assert_eq!(db.psql("select count(*) from kept").unwrap(), "1");

    let dir = db.socket_dir().to_owned();
    drop(db);
    assert!(!dir.exists(), "the cluster's directory is removed");
}
