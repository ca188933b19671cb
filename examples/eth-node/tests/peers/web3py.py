"""web3.py against eth-node: connection, reads, a signed transfer and its
receipt, a batch, and the replay of the transfer refused."""

import json
import sys

from web3 import Web3

HTTP_URL = sys.argv[1]
# Account 2 of the development mnemonic, and account 0 to pay.
KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
TO = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"

w3 = Web3(Web3.HTTPProvider(HTTP_URL))
report = {"connected": w3.is_connected(), "chain_id": w3.eth.chain_id}
account = w3.eth.account.from_key(KEY)
report["balance"] = str(w3.eth.get_balance(account.address))
report["block_number"] = w3.eth.block_number
before = w3.eth.get_balance(TO)

transaction = {
    "to": TO,
    "value": 12345,
    "gas": 21000,
    "maxFeePerGas": w3.to_wei(100, "gwei"),
    "maxPriorityFeePerGas": w3.eth.max_priority_fee,
    "nonce": w3.eth.get_transaction_count(account.address),
    "chainId": w3.eth.chain_id,
    "type": 2,
}
signed = account.sign_transaction(transaction)
tx_hash = w3.eth.send_raw_transaction(signed.raw_transaction)
receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=20)
report["receipt"] = {
    "status": receipt["status"],
    "same_hash": receipt["transactionHash"] == tx_hash,
    "block_number": receipt["blockNumber"],
    "gas_used": receipt["gasUsed"],
    "from": receipt["from"],
}
report["gained"] = w3.eth.get_balance(TO) - before

with w3.batch_requests() as batch:
    batch.add(w3.eth.get_balance(TO))
    batch.add(w3.eth.get_block("latest"))
    batch.add(w3.eth.get_transaction(tx_hash))
    balance, block, transaction_back = batch.execute()
report["batch"] = {
    "balance": str(balance),
    "block_number": block["number"],
    "tx_value": transaction_back["value"],
}

try:
    w3.eth.send_raw_transaction(signed.raw_transaction)
    report["replay"] = "accepted"
except Exception as error:  # web3 raises its own error types; the message is what matters
    report["replay"] = str(error)

print(json.dumps(report))
