// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {SwapContract} from "./SwapContract.sol";

/// @title lnswap swap contract, third version
/// @notice Everything of the second version, plus cooperative refunds: a slot's claimer, the only party who could
/// take the slot before its refund height, signs the refund away (EIP-712), and anyone may then send that
/// signature to return the whole slot to its funder at once instead of after the refund height.
/// A claimer is an externally owned account here: a contract claimer (EIP-1271) cannot sign, and its slots settle
/// by claim, refund or adminRefund as in the second version.
contract SwapContractV3 is SwapContract {
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("lnswap");
    bytes32 private constant VERSION_HASH = keccak256("3");
    bytes32 private constant COOPERATIVE_REFUND_TYPEHASH =
        keccak256("CooperativeRefund(bytes16 orderUUID,address funder)");
    /// Half the order of secp256k1: for every signature (r, s, v) there is a twin (r, n - s, v') recovering the
    /// same address, and only the one with s at most this is accepted (EIP-2).
    uint256 private constant HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    /// Emitted just before the slot's `OrderRefunded` (byAdmin false) when the refund was the claimer's
    /// cooperative one, so a reader of the chain can tell it from a timelock refund.
    event RefundAuthorized(bytes16 indexed orderUUID, address indexed funder, address indexed claimer);

    error SignatureLengthInvalid();
    error SignatureSHigh();
    error SignatureVInvalid();
    error SignatureUnrecoverable();
    error SignerNotClaimer();

    constructor(uint256 refundDelay_) SwapContract(refundDelay_) {}

    /// Anyone may send the claimer's signature while the slot is open; the slot's funder is paid the whole slot.
    function refundCooperative(bytes16 orderUUID, address funder, bytes calldata signature) external nonReentrant {
        Slot storage slot = slots[orderUUID][funder];
        if (slot.state != State.Funded) revert SlotNotOpen();
        address claimer = slot.claimer;
        if (recoverSigner(cooperativeRefundDigest(orderUUID, funder), signature) != claimer) revert SignerNotClaimer();
        emit RefundAuthorized(orderUUID, funder, claimer);
        settleRefund(orderUUID, funder, slot, false);
    }

    /// Computed at each call rather than at deployment, so a signature made for one chain is worth nothing on a
    /// fork with another chain id.
    function cooperativeRefundDigest(bytes16 orderUUID, address funder) private view returns (bytes32) {
        bytes32 domainSeparator = keccak256(
            abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this))
        );
        bytes32 structHash = keccak256(abi.encode(COOPERATIVE_REFUND_TYPEHASH, orderUUID, funder));
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }

    /// The signer of a 65-byte (r, s, v) signature with low s and v of 27 or 28, the form wallets produce.
    function recoverSigner(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) revert SignatureLengthInvalid();
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_CURVE_ORDER) revert SignatureSHigh();
        if (v != 27 && v != 28) revert SignatureVInvalid();
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0)) revert SignatureUnrecoverable();
        return signer;
    }
}
