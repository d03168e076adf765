// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import "./TestToken.sol";

/// Test-only: signals failure the way the ERC-20 standard allows, by returning false without moving anything.
contract FalseReturningToken is TestToken {
    function transfer(address, uint256) external pure returns (bool) {
        return false;
    }

    function transferFrom(address, address, uint256) external pure returns (bool) {
        return false;
    }
}
