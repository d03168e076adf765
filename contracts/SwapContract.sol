// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title lnswap swap contract
/// @notice Locks a user's ether for one order until the operator shows the Lightning payment's
/// preimage (claim) or the order's refund height passes (refund to the funder).
/// An order is identified by the 16 bytes of its UUID; a payment hash is a SHA-256 digest, as in
/// Lightning, so the claim checks sha256(preimage), not keccak256.
contract SwapContract {
    enum State {
        Empty,
        Funded,
        Claimed,
        Refunded
    }

    struct Order {
        address funder;
        bytes32 paymentHash;
        uint256 amount;
        uint256 refundHeight;
        State state;
    }

    /// The operator: receives every claim and alone may refund an order early.
    address public immutable owner;
    /// Blocks between an order's first funding and the height after which it may be refunded.
    uint256 public immutable refundDelay;

    mapping(bytes16 => Order) public orders;

    event OrderFunded(
        bytes16 indexed orderUUID,
        address indexed funder,
        bytes32 paymentHash,
        uint256 amount,
        uint256 totalFunded,
        uint256 refundHeight
    );
    event OrderClaimed(bytes16 indexed orderUUID, bytes32 preimage, uint256 amount);
    event OrderRefunded(bytes16 indexed orderUUID, address indexed funder, uint256 amount, bool byAdmin);

    error ZeroValue();
    error ZeroPaymentHash();
    error RefundDelayZero();
    error OrderNotOpen();
    error PaymentHashMismatch();
    error FundingWindowClosed();
    error WrongPreimage();
    error RefundHeightPassed();
    error RefundHeightNotReached();
    error OnlyOwner();
    error TransferFailed();

    constructor(uint256 refundDelay_) {
        if (refundDelay_ == 0) revert RefundDelayZero();
        owner = msg.sender;
        refundDelay = refundDelay_;
    }

    /// Locks msg.value for the order. The first funding fixes the funder (who gets any refund),
    /// the payment hash and the refund height; a top-up only adds to the amount, and only while
    /// the order may still be claimed, so no ether arrives that the operator could never take.
    function fund(bytes16 orderUUID, bytes32 paymentHash) external payable {
        if (msg.value == 0) revert ZeroValue();
        Order storage order = orders[orderUUID];
        if (order.state == State.Empty) {
            if (paymentHash == bytes32(0)) revert ZeroPaymentHash();
            order.funder = msg.sender;
            order.paymentHash = paymentHash;
            order.refundHeight = block.number + refundDelay;
            order.state = State.Funded;
        } else {
            if (order.state != State.Funded) revert OrderNotOpen();
            if (order.paymentHash != paymentHash) revert PaymentHashMismatch();
            if (block.number > order.refundHeight) revert FundingWindowClosed();
        }
        order.amount += msg.value;
        emit OrderFunded(orderUUID, msg.sender, paymentHash, msg.value, order.amount, order.refundHeight);
    }

    /// Anyone may submit the preimage; the locked ether always goes to the owner.
    function claim(bytes16 orderUUID, bytes32 preimage) external {
        Order storage order = orders[orderUUID];
        if (order.state != State.Funded) revert OrderNotOpen();
        if (block.number > order.refundHeight) revert RefundHeightPassed();
        if (sha256(abi.encodePacked(preimage)) != order.paymentHash) revert WrongPreimage();
        uint256 amount = order.amount;
        order.state = State.Claimed;
        emit OrderClaimed(orderUUID, preimage, amount);
        pay(owner, amount);
    }

    /// After the refund height, anyone may return the ether to the funder.
    function refund(bytes16 orderUUID) external {
        Order storage order = orders[orderUUID];
        if (order.state != State.Funded) revert OrderNotOpen();
        if (block.number <= order.refundHeight) revert RefundHeightNotReached();
        settleRefund(orderUUID, order, false);
    }

    /// The operator returns the ether to the funder at any time before a claim, e.g. when the
    /// funder's address may not be served and must not wait for the timelock.
    function adminRefund(bytes16 orderUUID) external {
        if (msg.sender != owner) revert OnlyOwner();
        Order storage order = orders[orderUUID];
        if (order.state != State.Funded) revert OrderNotOpen();
        settleRefund(orderUUID, order, true);
    }

    function settleRefund(bytes16 orderUUID, Order storage order, bool byAdmin) private {
        uint256 amount = order.amount;
        address funder = order.funder;
        order.state = State.Refunded;
        emit OrderRefunded(orderUUID, funder, amount, byAdmin);
        pay(funder, amount);
    }

    function pay(address to, uint256 amount) private {
        (bool success, ) = to.call{value: amount}("");
        if (!success) revert TransferFailed();
    }
}
