//! `lock::Lock`: one holder at a time, the next waits and then has it.

use std::sync::mpsc;
use std::time::Duration;

use typed_rpc_test_support::lock::Lock;
use typed_rpc_test_support::scratch::TempDir;

#[test]
fn a_second_taker_waits_until_the_first_lets_go() {
    let place = TempDir::new("lock-test").unwrap();
    let place = place.path().to_owned();
    let first = Lock::take(&place).unwrap();
    assert!(Lock::try_take(&place).unwrap().is_none());

    let (taken_tx, taken) = mpsc::channel();
    let waiter = {
        let place = place.clone();
        std::thread::spawn(move || {
            let lock = Lock::take(&place).unwrap();
            taken_tx.send(()).unwrap();
            lock
        })
    };
    assert!(
        taken.recv_timeout(Duration::from_millis(300)).is_err(),
        "the second taker waits"
    );
    drop(first);
    taken
        .recv_timeout(Duration::from_secs(5))
        .expect("the second taker has it once the first let go");
    let second = waiter.join().unwrap();
    assert!(Lock::try_take(&place).unwrap().is_none());
    drop(second);
    assert!(Lock::try_take(&place).unwrap().is_some());
}
