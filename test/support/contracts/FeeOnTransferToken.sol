// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import "./TestToken.sol";

/// Test-only: burns 1% of every transfer, so the receiver gets less than the amount named, and returns true.
contract FeeOnTransferToken is TestToken {
    function transfer(address to, uint256 value) external returns (bool) {
        moveWithFee(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        spendAllowance(from, value);
        moveWithFee(from, to, value);
        return true;
    }

    function moveWithFee(address from, address to, uint256 value) private {
        uint256 fee = value / 100;
        move(from, to, value);
        balanceOf[to] -= fee;
    }
}
