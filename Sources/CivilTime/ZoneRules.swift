/// A time zone's offsets from UTC over time, read from the system's time zone database (TZif
/// files, RFC 8536) rather than ICU: what a calendar needs to turn instants into wall-clock
/// readings and back, across daylight saving time and the zone's history.
public struct ZoneRules: Sendable {
    /// The zone's name in the database, "Europe/Berlin".
    public let identifier: String
    /// Instants (seconds since the epoch, UTC) at which the offset changes, ascending.
    let transitions: [Int64]
    /// The offset (seconds east of UTC) from each transition on.
    let offsetsAfter: [Int32]
    /// The offset before the first transition.
    let initialOffset: Int32
    /// The rule after the last transition (or for all time, with no transitions).
    let footer: PosixZoneRule?

    init(identifier: String, transitions: [Int64], offsetsAfter: [Int32], initialOffset: Int32, footer: PosixZoneRule?)
    {
        self.identifier = identifier
        self.transitions = transitions
        self.offsetsAfter = offsetsAfter
        self.initialOffset = initialOffset
        self.footer = footer
    }

    /// The zone a POSIX `TZ` rule alone describes, named by the rule: for a machine without the
    /// database, and for a copied /etc/localtime (its file's footer).
    public init(rule: PosixZoneRule) {
        self.init(
            identifier: rule.text, transitions: [], offsetsAfter: [], initialOffset: rule.standardOffset, footer: rule)
    }

    /// Coordinated Universal Time, which needs no file.
    public static let utc = ZoneRules(
        identifier: "UTC", transitions: [], offsetsAfter: [], initialOffset: 0, footer: nil)

    /// Seconds east of UTC at `seconds` after the epoch.
    public func offset(at seconds: Int64) -> Int32 {
        guard let last = transitions.last else { return footer?.offset(at: seconds) ?? initialOffset }
        if seconds >= last, let footer { return footer.offset(at: seconds) }
        guard let index = lastTransitionIndex(atOrBefore: seconds) else { return initialOffset }
        return offsetsAfter[index]
    }

    /// The wall-clock reading at `seconds` after the epoch.
    public func wallClock(at seconds: Int64) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: seconds + Int64(offset(at: seconds)))
    }

    /// The first instant at which the wall clock reads `localSeconds` (seconds after 1970-01-01
    /// 00:00 on the wall clock): of a reading the clocks pass twice, the first; of one they skip,
    /// the instant they skip it at.
    public func firstInstant(atWallClock localSeconds: Int64) -> Int64 {
        var candidates: [Int32] = []
        for probe in [localSeconds - 100_000, localSeconds, localSeconds + 100_000] {
            let offset = offset(at: probe)
            if !candidates.contains(offset) { candidates.append(offset) }
            let again = self.offset(at: localSeconds - Int64(offset))
            if !candidates.contains(again) { candidates.append(again) }
        }
        let matching = candidates.map { localSeconds - Int64($0) }.filter {
            $0 + Int64(offset(at: $0)) == localSeconds
        }
        if let first = matching.min() { return first }
        // Skipped: the change that skips it lies between the readings of the largest offset and the smallest.
        let earliest = localSeconds - Int64(candidates.max()!)
        return nextChange(after: earliest - 1) ?? earliest
    }

    /// The first instant after `seconds` at which the offset changes; nil if it never does.
    public func nextChange(after seconds: Int64) -> Int64? {
        var index = (lastTransitionIndex(atOrBefore: seconds) ?? -1) + 1
        while index < transitions.count {
            let transition = transitions[index]
            if offset(at: transition) != offset(at: transition - 1) { return transition }
            index += 1
        }
        guard let footer else { return nil }
        var from = max(seconds, transitions.last ?? seconds)
        while let change = footer.nextChange(after: from) {
            if offset(at: change) != offset(at: change - 1) { return change }
            from = change
        }
        return nil
    }

    private func lastTransitionIndex(atOrBefore seconds: Int64) -> Int? {
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }
}

extension ZoneRules: Equatable, Hashable {
    /// Two zones are the same zone when they have the same name.
    public static func == (lhs: ZoneRules, rhs: ZoneRules) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}
