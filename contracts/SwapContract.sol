// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Minimal ERC-20 surface. `transferFrom` and `transfer` are called without trusting a return value
/// (tokens such as USDT return nothing); see `callToken`.
interface IERC20 {
    function balanceOf(address account) external view returns (uint256);
}

/// @title lnswap swap contract, second version
/// @notice Locks funds for a Lightning swap until the claimer's side shows the payment's preimage (claim) or
/// the refund height passes (refund to the funder). Money sits in slots keyed by (order id, funder): nobody
/// but the funder can put money into a slot, so nobody else's funding can change who is refunded, or what
/// payment hash and claimer the slot's money answers to.
/// An order is identified by the 16 bytes of its UUID; a payment hash is a SHA-256 digest, as in Lightning,
/// so the claim checks sha256(preimage), not keccak256. A slot holds ether (token = address(0)) or one
/// ERC-20 token.
contract SwapContract {
    enum State {
        Empty,
        Funded,
        Claimed,
        Refunded
    }

    struct Slot {
        bytes32 paymentHash;
        address claimer;
        address token;
        uint256 amount;
        uint256 refundHeight;
        State state;
    }

    /// The operator: alone may refund a slot before its refund height (`adminRefund`). Never paid by a claim.
    address public immutable owner;
    /// Blocks between a slot's first funding and the height after which it may be refunded.
    uint256 public immutable refundDelay;

    mapping(bytes16 => mapping(address => Slot)) public slots;

    uint256 private entered;

    event OrderFunded(
        bytes16 indexed orderUUID,
        address indexed funder,
        bytes32 paymentHash,
        address claimer,
        address token,
        uint256 amount,
        uint256 slotTotal,
        uint256 refundHeight
    );
    event OrderClaimed(
        bytes16 indexed orderUUID,
        address indexed funder,
        address indexed claimer,
        bytes32 preimage,
        address token,
        uint256 amount
    );
    event OrderRefunded(bytes16 indexed orderUUID, address indexed funder, address token, uint256 amount, bool byAdmin);

    error ZeroValue();
    error ZeroPaymentHash();
    error ZeroClaimer();
    error ZeroToken();
    error RefundDelayZero();
    error SlotNotOpen();
    error SlotTermsMismatch();
    error FundingWindowClosed();
    error WrongPreimage();
    error RefundHeightPassed();
    error RefundHeightNotReached();
    error OnlyOwner();
    error TransferFailed();
    error TokenTransferFailed();
    error TokenAmountMismatch();
    error Reentrancy();

    constructor(uint256 refundDelay_) {
        if (refundDelay_ == 0) revert RefundDelayZero();
        owner = msg.sender;
        refundDelay = refundDelay_;
    }

    /// A second line of defence: every state change happens before a transfer, so a re-entering call already
    /// finds the slot settled; the guard also refuses any call into the contract while a transfer runs.
    modifier nonReentrant() {
        if (entered == 1) revert Reentrancy();
        entered = 1;
        _;
        entered = 0;
    }

    /// Locks msg.value in the sender's slot of the order.
    function fund(bytes16 orderUUID, bytes32 paymentHash, address claimer) external payable nonReentrant {
        if (msg.value == 0) revert ZeroValue();
        uint256 total = openSlot(orderUUID, paymentHash, claimer, address(0), msg.value);
        emitFunded(orderUUID, address(0), msg.value, total);
    }

    /// Locks `amount` of `token` in the sender's slot, taken with `transferFrom` after the sender's `approve`.
    /// A token that delivers less than `amount` (a fee on transfer) is refused: the slot must hold what the
    /// event says.
    function fundToken(
        bytes16 orderUUID,
        bytes32 paymentHash,
        address claimer,
        address token,
        uint256 amount
    ) external nonReentrant {
        if (amount == 0) revert ZeroValue();
        if (token == address(0)) revert ZeroToken();
        // Checked before `balanceOf`, whose call to an address without code would revert without a reason.
        if (token.code.length == 0) revert TokenTransferFailed();
        uint256 total = openSlot(orderUUID, paymentHash, claimer, token, amount);
        uint256 before = IERC20(token).balanceOf(address(this));
        callToken(token, abi.encodeWithSignature("transferFrom(address,address,uint256)", msg.sender, address(this), amount));
        uint256 afterwards = IERC20(token).balanceOf(address(this));
        if (afterwards < before || afterwards - before != amount) revert TokenAmountMismatch();
        emitFunded(orderUUID, token, amount, total);
    }

    /// Anyone may submit the preimage while the slot may be claimed; the slot's claimer is paid.
    function claim(bytes16 orderUUID, address funder, bytes32 preimage) external nonReentrant {
        Slot storage slot = slots[orderUUID][funder];
        if (slot.state != State.Funded) revert SlotNotOpen();
        if (block.number > slot.refundHeight) revert RefundHeightPassed();
        if (sha256(abi.encodePacked(preimage)) != slot.paymentHash) revert WrongPreimage();
        uint256 amount = slot.amount;
        address claimer = slot.claimer;
        address token = slot.token;
        slot.state = State.Claimed;
        emit OrderClaimed(orderUUID, funder, claimer, preimage, token, amount);
        pay(token, claimer, amount);
    }

    /// After the refund height, the sender takes back its own slot.
    function refund(bytes16 orderUUID) external nonReentrant {
        Slot storage slot = slots[orderUUID][msg.sender];
        if (slot.state != State.Funded) revert SlotNotOpen();
        if (block.number <= slot.refundHeight) revert RefundHeightNotReached();
        settleRefund(orderUUID, msg.sender, slot, false);
    }

    /// The operator returns a slot to its funder at any time before a claim, e.g. when the funder's address may
    /// not be served and must not wait for the timelock. It always pays the funder, never the caller.
    function adminRefund(bytes16 orderUUID, address funder) external nonReentrant {
        if (msg.sender != owner) revert OnlyOwner();
        Slot storage slot = slots[orderUUID][funder];
        if (slot.state != State.Funded) revert SlotNotOpen();
        settleRefund(orderUUID, funder, slot, true);
    }

    /// The first funding of a slot fixes its payment hash, claimer, asset and refund height; a top-up must repeat
    /// them and come before the refund height, so at least one block remains in which the claimer can claim what
    /// arrived; a top-up never moves the refund height.
    function openSlot(
        bytes16 orderUUID,
        bytes32 paymentHash,
        address claimer,
        address token,
        uint256 amount
    ) private returns (uint256 total) {
        Slot storage slot = slots[orderUUID][msg.sender];
        if (slot.state == State.Empty) {
            if (paymentHash == bytes32(0)) revert ZeroPaymentHash();
            if (claimer == address(0)) revert ZeroClaimer();
            slot.paymentHash = paymentHash;
            slot.claimer = claimer;
            slot.token = token;
            slot.refundHeight = block.number + refundDelay;
            slot.state = State.Funded;
        } else {
            if (slot.state != State.Funded) revert SlotNotOpen();
            if (slot.paymentHash != paymentHash || slot.claimer != claimer || slot.token != token) {
                revert SlotTermsMismatch();
            }
            if (block.number >= slot.refundHeight) revert FundingWindowClosed();
        }
        slot.amount += amount;
        return slot.amount;
    }

    function emitFunded(bytes16 orderUUID, address token, uint256 amount, uint256 total) private {
        Slot storage slot = slots[orderUUID][msg.sender];
        emit OrderFunded(orderUUID, msg.sender, slot.paymentHash, slot.claimer, token, amount, total, slot.refundHeight);
    }

    /// Internal, not private: the third version's cooperative refund settles a slot the same way.
    function settleRefund(bytes16 orderUUID, address funder, Slot storage slot, bool byAdmin) internal {
        uint256 amount = slot.amount;
        address token = slot.token;
        slot.state = State.Refunded;
        emit OrderRefunded(orderUUID, funder, token, amount, byAdmin);
        pay(token, funder, amount);
    }

    function pay(address token, address to, uint256 amount) private {
        if (token == address(0)) {
            (bool success, ) = to.call{value: amount}("");
            if (!success) revert TransferFailed();
        } else {
            callToken(token, abi.encodeWithSignature("transfer(address,uint256)", to, amount));
        }
    }

    /// Calls a token and accepts success with no return data (USDT and other pre-standard tokens) or a
    /// returned `true`; a revert, a returned `false`, or a call to an address without code fails.
    function callToken(address token, bytes memory data) private {
        if (token.code.length == 0) revert TokenTransferFailed();
        (bool success, bytes memory returned) = token.call(data);
        if (!success || (returned.length != 0 && (returned.length != 32 || !abi.decode(returned, (bool))))) {
            revert TokenTransferFailed();
        }
    }
}
