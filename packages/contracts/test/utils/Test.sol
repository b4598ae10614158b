// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Minimal forge cheatcode interface (forge-std is not installed; only the cheatcodes these tests use).
interface Vm {
    struct Log {
        bytes32[] topics;
        bytes data;
        address emitter;
    }

    function recordLogs() external;
    function getRecordedLogs() external returns (Log[] memory);
    function prank(address) external;
    function startPrank(address) external;
    function stopPrank() external;
    function deal(address, uint256) external;
    function roll(uint256) external;
    function warp(uint256) external;
    function chainId(uint256) external;
    function expectRevert() external;
    function expectRevert(bytes4) external;
    function expectRevert(bytes calldata) external;
    function expectEmit() external;
    function expectEmit(bool, bool, bool, bool) external;
    function expectEmit(bool, bool, bool, bool, address) external;
    function assume(bool) external pure;
    function label(address, string calldata) external;
    function addr(uint256) external pure returns (address);
    function load(address, bytes32) external view returns (bytes32);
    function setBlockhash(uint256, bytes32) external;
    function snapshotState() external returns (uint256);
    function revertToState(uint256) external returns (bool);
    function pauseGasMetering() external;
    function resumeGasMetering() external;
    function assertEq(uint256, uint256, string calldata) external pure;
    function assertEq(address, address, string calldata) external pure;
    function assertEq(bytes32, bytes32, string calldata) external pure;
    function assertEq(bool, bool, string calldata) external pure;
}

/// @notice console.log to forge's console address (log(string,uint256) only).
library console {
    address constant CONSOLE = 0x000000000000000000636F6e736F6c652e6c6f67;

    function log(string memory s, uint256 v) internal view {
        (bool ok,) = CONSOLE.staticcall(abi.encodeWithSignature("log(string,uint256)", s, v));
        ok;
    }

    function log(string memory s) internal view {
        (bool ok,) = CONSOLE.staticcall(abi.encodeWithSignature("log(string)", s));
        ok;
    }
}

/// @notice Minimal test base: cheatcodes, assertions that revert, bound(), invariant targets.
abstract contract Test {
    Vm internal constant vm = Vm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
    bool public IS_TEST = true;

    address[] private _targets;

    function targetContract(address a) internal {
        _targets.push(a);
    }

    function targetContracts() public view returns (address[] memory) {
        return _targets;
    }

    function assertEq(uint256 a, uint256 b) internal pure {
        vm.assertEq(a, b, "assertEq(uint256)");
    }

    function assertEq(uint256 a, uint256 b, string memory m) internal pure {
        vm.assertEq(a, b, m);
    }

    function assertEq(address a, address b) internal pure {
        vm.assertEq(a, b, "assertEq(address)");
    }

    function assertEq(address a, address b, string memory m) internal pure {
        vm.assertEq(a, b, m);
    }

    function assertEq(bytes32 a, bytes32 b) internal pure {
        vm.assertEq(a, b, "assertEq(bytes32)");
    }

    function assertEq(bytes32 a, bytes32 b, string memory m) internal pure {
        vm.assertEq(a, b, m);
    }

    function assertEq(bool a, bool b) internal pure {
        vm.assertEq(a, b, "assertEq(bool)");
    }

    function assertTrue(bool c) internal pure {
        require(c, "assertTrue failed");
    }

    function assertTrue(bool c, string memory m) internal pure {
        require(c, m);
    }

    function assertFalse(bool c) internal pure {
        require(!c, "assertFalse failed");
    }

    function assertFalse(bool c, string memory m) internal pure {
        require(!c, m);
    }

    function assertLe(uint256 a, uint256 b, string memory m) internal pure {
        require(a <= b, m);
    }

    function assertGe(uint256 a, uint256 b, string memory m) internal pure {
        require(a >= b, m);
    }

    function assertLe(uint256 a, uint256 b) internal pure {
        assertLe(a, b, "assertLe failed");
    }

    function assertGt(uint256 a, uint256 b) internal pure {
        require(a > b, "assertGt failed");
    }

    function assertGt(uint256 a, uint256 b, string memory m) internal pure {
        require(a > b, m);
    }

    function assertApproxEqAbs(uint256 a, uint256 b, uint256 maxDelta) internal pure {
        vm.assertEq(a > b ? a - b <= maxDelta : b - a <= maxDelta, true, "assertApproxEqAbs failed");
    }

    function bound(uint256 x, uint256 lo, uint256 hi) internal pure returns (uint256) {
        require(lo <= hi, "bound: lo > hi");
        if (x >= lo && x <= hi) return x;
        uint256 size = hi - lo + 1;
        return lo + (x % size);
    }
}
