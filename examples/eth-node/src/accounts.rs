//! The development accounts: keys derived from a BIP-39 mnemonic along `m/44'/60'/0'/0/i`.

use alloy_primitives::{Address, B256};
use coins_bip32::ecdsa::SigningKey;
use coins_bip39::{English, Mnemonic};

/// The mnemonic anvil and hardhat use, so the keys people already have work.
pub const DEV_MNEMONIC: &str = "test test test test test test test test test test test junk";

/// A prefunded account: its address and the key that signs for it.
#[derive(Clone)]
pub struct DevAccount {
    /// The address, from the key.
    pub address: Address,
    /// The secp256k1 private key.
    pub key: SigningKey,
}

impl DevAccount {
    /// The private key's 32 bytes, as printed on start.
    pub fn private_key(&self) -> B256 {
        B256::from_slice(&self.key.to_bytes())
    }
}

impl std::fmt::Debug for DevAccount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key: a Debug print may end up in a log.
        f.debug_struct("DevAccount")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

/// The first `count` accounts of `phrase` (no BIP-39 passphrase), in order.
///
/// ```
/// let accounts = typed_rpc_eth_node::accounts::derive(typed_rpc_eth_node::accounts::DEV_MNEMONIC, 1).unwrap();
/// assert_eq!(accounts[0].address.to_string(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/// ```
pub fn derive(phrase: &str, count: u32) -> Result<Vec<DevAccount>, String> {
    let mnemonic = Mnemonic::<English>::new_from_phrase(phrase.trim())
        .map_err(|err| format!("not a BIP-39 English mnemonic: {err}"))?;
    let master = mnemonic.master_key(None).map_err(|err| err.to_string())?;
    // The seed (2048 PBKDF2 rounds) and the hardened levels once; one child per account.
    let parent = master
        .derive_path("m/44'/60'/0'/0")
        .map_err(|err| err.to_string())?;
    (0..count)
        .map(|index| {
            let child = parent.derive_path(index).map_err(|err| err.to_string())?;
            let key: &SigningKey = child.as_ref();
            Ok(DevAccount {
                address: Address::from_private_key(key),
                key: key.clone(),
            })
        })
        .collect()
}
