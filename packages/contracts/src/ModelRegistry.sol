// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistry} from "./NodeRegistry.sol";

/// @title ModelRegistry
/// @notice Which nodes hold which model (docs/contracts.md, Model holders). A model is any large content a job names
///         (`requirements.modelId`, e.g. `ipfs://<cid>` of weights or a data set), identified on chain as
///         `keccak256(modelId)`, the escrow's `modelId`. Peers choose a job naming a model first when they hold it;
///         a peer without it takes the job only when the holders are busy, and each such fallback prompts one more
///         node to download the model (`prompt`), so the holders grow with the demand.
/// @dev Every operation is O(1) in the number of nodes and of holders: a holder list per model with 1-based
///      indexes (swap-and-pop removal), at most MAX_MODELS models per node.
contract ModelRegistry {
    uint256 public constant MAX_MODELS = 16;
    uint256 public constant MAX_PROMPTS = 4;
    /// @notice Longest model id, bytes (an `ipfs://` URI of a CID is about 70).
    uint256 public constant MAX_MODEL_ID_BYTES = 256;
    /// @notice A node is prompted for one model at most once per cooldown, and a node prompts for one model at most
    ///         once per cooldown (seconds).
    uint256 public constant PROMPT_COOLDOWN = 1 hours;

    NodeRegistry public immutable registry;

    mapping(bytes32 => address[]) internal _holders;
    /// @dev 1-based index of a node in `_holders[model]`; 0 = not a holder.
    mapping(bytes32 => mapping(address => uint256)) internal _index;
    mapping(address => bytes32[]) internal _models;
    /// @dev Last time a node was prompted for a model.
    mapping(bytes32 => mapping(address => uint256)) internal _promptedAt;
    /// @dev Last time a node sent prompts for a model.
    mapping(bytes32 => mapping(address => uint256)) internal _promptedBy;

    /// @dev `modelId` is the job's `requirements.modelId` (what to fetch); `model` its keccak256.
    event ModelHeld(bytes32 indexed model, address indexed node, string modelId);
    event ModelDropped(bytes32 indexed model, address indexed node);
    event ModelPrompted(bytes32 indexed model, address indexed node, address indexed by, string modelId);

    error NotActive(address node);
    error StillActive(address node);
    error AlreadyHeld();
    error NotHeld();
    error TooManyModels();
    error InvalidModel();
    error TooManyPrompts();
    error PromptTooSoon();
    error NotPromptable(address node);

    constructor(NodeRegistry registry_) {
        registry = registry_;
    }

    /// @notice The on-chain key of a model id: its keccak256 (as the escrow's `modelId`).
    function modelKey(string calldata modelId) public pure returns (bytes32) {
        uint256 n = bytes(modelId).length;
        if (n == 0 || n > MAX_MODEL_ID_BYTES) revert InvalidModel();
        return keccak256(bytes(modelId));
    }

    /// @notice Records that the caller, an active node, holds the model `modelId` (downloaded and pinned).
    function announce(string calldata modelId) external {
        bytes32 model = modelKey(modelId);
        if (!registry.isActive(msg.sender)) revert NotActive(msg.sender);
        if (_index[model][msg.sender] != 0) revert AlreadyHeld();
        if (_models[msg.sender].length >= MAX_MODELS) revert TooManyModels();
        _holders[model].push(msg.sender);
        _index[model][msg.sender] = _holders[model].length;
        _models[msg.sender].push(model);
        emit ModelHeld(model, msg.sender, modelId);
    }

    /// @notice The caller no longer holds `model`.
    function drop(bytes32 model) external {
        if (_index[model][msg.sender] == 0) revert NotHeld();
        _remove(model, msg.sender);
    }

    /// @notice Removes a node that is no longer active (exited, exiting or kicked out) from `model`'s holders; anyone
    ///         may call it, so the holder list only names nodes that can work.
    function prune(bytes32 model, address node) external {
        if (_index[model][node] == 0) revert NotHeld();
        if (registry.isActive(node)) revert StillActive(node);
        _remove(model, node);
    }

    /// @notice Prompts `nodes` to download the model `modelId`. The caller is an active holder of it (a peer that had to fetch it
    ///         to run a job its holders were too busy for); each prompted node is active, does not hold the model
    ///         and was not prompted for it within the cooldown. At most MAX_PROMPTS nodes, once per cooldown.
    function prompt(string calldata modelId, address[] calldata nodes) external {
        bytes32 model = modelKey(modelId);
        if (_index[model][msg.sender] == 0) revert NotHeld();
        if (!registry.isActive(msg.sender)) revert NotActive(msg.sender);
        if (nodes.length > MAX_PROMPTS) revert TooManyPrompts();
        uint256 last = _promptedBy[model][msg.sender];
        if (last != 0 && block.timestamp < last + PROMPT_COOLDOWN) revert PromptTooSoon();
        _promptedBy[model][msg.sender] = block.timestamp;
        for (uint256 i = 0; i < nodes.length; i++) {
            address n = nodes[i];
            uint256 at = _promptedAt[model][n];
            if (_index[model][n] != 0 || !registry.isActive(n) || (at != 0 && block.timestamp < at + PROMPT_COOLDOWN)) {
                revert NotPromptable(n);
            }
            _promptedAt[model][n] = block.timestamp;
            emit ModelPrompted(model, n, msg.sender, modelId);
        }
    }

    /// @notice Whether `node` holds `model`.
    function holds(address node, bytes32 model) external view returns (bool) {
        return _index[model][node] != 0;
    }

    /// @notice How many nodes hold `model`.
    function holderCount(bytes32 model) external view returns (uint256) {
        return _holders[model].length;
    }

    /// @notice Up to `limit` holders of `model` from position `offset` (the order changes when a holder leaves).
    function holdersOf(bytes32 model, uint256 offset, uint256 limit) external view returns (address[] memory page) {
        address[] storage all = _holders[model];
        uint256 end = offset + limit < all.length ? offset + limit : all.length;
        page = new address[](end > offset ? end - offset : 0);
        for (uint256 i = 0; i < page.length; i++) {
            page[i] = all[offset + i];
        }
    }

    /// @notice The models `node` holds.
    function modelsOf(address node) external view returns (bytes32[] memory) {
        return _models[node];
    }

    /// @notice When `node` was last prompted for `model` (0 = never).
    function promptedAt(bytes32 model, address node) external view returns (uint256) {
        return _promptedAt[model][node];
    }

    function _remove(bytes32 model, address node) internal {
        address[] storage list = _holders[model];
        uint256 i = _index[model][node] - 1;
        address last = list[list.length - 1];
        list[i] = last;
        _index[model][last] = i + 1;
        list.pop();
        delete _index[model][node];
        bytes32[] storage mine = _models[node];
        for (uint256 j = 0; j < mine.length; j++) {
            if (mine[j] == model) {
                mine[j] = mine[mine.length - 1];
                mine.pop();
                break;
            }
        }
        emit ModelDropped(model, node);
    }
}
