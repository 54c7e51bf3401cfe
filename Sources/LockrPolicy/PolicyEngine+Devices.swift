/// Devices the household assigns to a person while lockr runs (the admin view's "assign"), kept
/// with the person's state. The config file's devices stay the config file's.
extension PolicyEngine {
    /// Makes `device` (a MAC or IP address, already checked) this person's; false when it was.
    public mutating func claimDevice(_ device: String, at now: Instant) -> Bool {
        let now = advance(to: now)
        guard !state.claimedDevices.contains(device) else { return false }
        state.claimedDevices.append(device)
        log(.deviceAssigned, nil, "device \(device) assigned", at: now)
        return true
    }

    /// Takes `device` back from this person; false when it was not theirs.
    public mutating func releaseDevice(_ device: String, at now: Instant) -> Bool {
        let now = advance(to: now)
        guard let index = state.claimedDevices.firstIndex(of: device) else { return false }
        state.claimedDevices.remove(at: index)
        log(.deviceReleased, nil, "device \(device) no longer assigned", at: now)
        return true
    }
}
