// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Test-only: replays calls armed by the test into a target (the swap contract) from inside a callback (an ether
/// payment or a token transfer), swallowing refusals and recording how each attempt ended, so a test can show
/// that no re-entering call got through while the outer call still completed.
abstract contract Reenterer {
    address public immutable target;

    bytes[] private armedCalls;
    uint256[] private armedValues;
    bool private replaying;

    /// How many re-entering calls the target accepted.
    uint256 public accepted;
    /// The first four bytes of each refused call's revert data, in order.
    bytes4[] public refusals;

    constructor(address target_) payable {
        target = target_;
    }

    /// Arms one round of re-entering calls, replayed at the next callback.
    function arm(bytes[] calldata calls, uint256[] calldata values) external {
        require(calls.length == values.length, "lengths differ");
        delete armedCalls;
        delete armedValues;
        for (uint256 i = 0; i < calls.length; i++) {
            armedCalls.push(calls[i]);
            armedValues.push(values[i]);
        }
    }

    function refusalCount() external view returns (uint256) {
        return refusals.length;
    }

    /// Calls the target as this contract (to fund or refund a slot it owns), bubbling up any revert.
    function act(bytes calldata data) external payable {
        (bool success, bytes memory returned) = target.call{value: msg.value}(data);
        if (!success) {
            assembly {
                revert(add(returned, 32), mload(returned))
            }
        }
    }

    function replayArmedCalls() internal {
        if (replaying || armedCalls.length == 0) return;
        replaying = true;
        bytes[] memory calls = armedCalls;
        uint256[] memory values = armedValues;
        delete armedCalls;
        delete armedValues;
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory returned) = target.call{value: values[i]}(calls[i]);
            if (success) {
                accepted += 1;
            } else {
                refusals.push(bytes4(returned));
            }
        }
        replaying = false;
    }
}
