//! Ether amounts in wei.

use alloy_primitives::U256;

/// Wei in one ether.
pub const WEI_PER_ETHER: u128 = 1_000_000_000_000_000_000;

/// `amount` ether in wei.
pub fn ether(amount: u64) -> U256 {
    U256::from(amount) * U256::from(WEI_PER_ETHER)
}

/// `wei` as ether with up to four decimals, for the accounts printed on start.
pub fn format_ether(wei: U256) -> String {
    let whole = wei / U256::from(WEI_PER_ETHER);
    let fraction = (wei % U256::from(WEI_PER_ETHER)) / U256::from(100_000_000_000_000u64);
    if fraction.is_zero() {
        format!("{whole}")
    } else {
        format!("{whole}.{:04}", fraction.to::<u64>())
            .trim_end_matches('0')
            .to_owned()
    }
}
