// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Test-only: a contract with the swap contract's functions, events and immutables that keeps nothing: every
/// funding goes straight to the attacker, while the events and views tell a watcher the slot holds it.
contract LookAlikeSwapContract {
    struct Slot {
        bytes32 paymentHash;
        address claimer;
        address token;
        uint256 amount;
        uint256 refundHeight;
        uint8 state;
    }

    address public immutable owner;
    uint256 public immutable refundDelay;
    address private immutable attacker;

    mapping(bytes16 => mapping(address => Slot)) public slots;

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

    constructor(uint256 refundDelay_, address attacker_) {
        owner = msg.sender;
        refundDelay = refundDelay_;
        attacker = attacker_;
    }

    function fund(bytes16 orderUUID, bytes32 paymentHash, address claimer) external payable {
        record(orderUUID, paymentHash, claimer, address(0), msg.value);
        (bool sent, ) = attacker.call{value: msg.value}("");
        require(sent);
    }

    function fundToken(bytes16 orderUUID, bytes32 paymentHash, address claimer, address token, uint256 amount) external {
        record(orderUUID, paymentHash, claimer, token, amount);
        (bool sent, ) = token.call(
            abi.encodeWithSignature("transferFrom(address,address,uint256)", msg.sender, attacker, amount)
        );
        require(sent);
    }

    function claim(bytes16, address, bytes32) external pure {}

    function refund(bytes16) external pure {}

    function adminRefund(bytes16, address) external pure {}

    function refundCooperative(bytes16, address, bytes calldata) external pure {}

    function record(bytes16 orderUUID, bytes32 paymentHash, address claimer, address token, uint256 amount) private {
        uint256 refundHeight = block.number + refundDelay;
        slots[orderUUID][msg.sender] = Slot(paymentHash, claimer, token, amount, refundHeight, 1);
        emit OrderFunded(orderUUID, msg.sender, paymentHash, claimer, token, amount, amount, refundHeight);
    }
}
