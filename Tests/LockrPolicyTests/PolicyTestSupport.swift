import CivilTime
import Foundation

@testable import LockrPolicy

/// An instant from ISO 8601 text ("2026-03-29T00:30:00Z" or with an offset).
func at(_ text: String) -> Instant {
    let formatter = ISO8601DateFormatter()
    guard let date = formatter.date(from: text) else { fatalError("bad test time \(text)") }
    return Instant(date)
}

let testApps = ["instagram": "Instagram", "tiktok": "TikTok", "youtube": "YouTube", "whatsapp": "WhatsApp"]

let utc = DayCalendar(zone: try! ZoneDatabase().zone("UTC"), dayStartMinutes: 0)

func settings(
    _ mode: Mode, calendar: DayCalendar = utc, _ change: (inout PolicySettings) -> Void = { _ in }
)
    -> PolicySettings
{
    var settings = PolicySettings(mode: mode, calendar: calendar)
    change(&settings)
    return settings
}

func engine(
    _ settings: PolicySettings, guarded: [String] = ["instagram", "tiktok", "youtube"], now: Instant
) -> PolicyEngine {
    PolicyEngine(settings: settings, guarded: guarded, apps: testApps, state: nil, now: now)
}

extension PolicyEngine {
    /// Queries `app` `count` times, `every` apart, starting at `start`; returns the last admission.
    @discardableResult
    mutating func query(_ app: String, from start: Instant, every: Duration, count: Int) -> Admission {
        var last = Admission.notGuarded
        for index in 0..<count { last = admit(app, at: start + every * index) }
        return last
    }

    func used(_ app: String, at now: Instant) -> Duration {
        readout.status(at: now).apps.first { $0.id == app }!.used
    }

    func isOpen(_ app: String, at now: Instant) -> Bool {
        readout.status(at: now).apps.first { $0.id == app }!.open
    }

    /// Restarts from what a store would have kept.
    func restarted(at now: Instant) -> PolicyEngine {
        PolicyEngine(
            settings: configuration.settings, guarded: ["instagram", "tiktok", "youtube"], apps: configuration.apps,
            names: configuration.names,
            state: readout.snapshot(at: now), now: now)
    }
}

extension Admission {
    var isAllowed: Bool {
        if case .allow = self { true } else { false }
    }

    var reason: String? {
        if case .block(_, let reason) = self { reason } else { nil }
    }
}

/// The allowances and the import as the tests ask for them: each is `apply` of its action.
extension PolicyEngine {
    mutating func unlock(_ app: String?, phrase: String?, at now: Instant) throws(PolicyRefusal) -> UnlockResult {
        try apply(.unlock(app: app), credentials: Credentials(phrase: phrase), at: now).unlocked!
    }

    mutating func snooze(_ app: String?, phrase: String? = nil, at now: Instant) throws(PolicyRefusal) -> UnlockWindow {
        try apply(.snooze(app: app), credentials: Credentials(phrase: phrase), at: now).window!
    }

    mutating func extend(_ app: String?, phrase: String? = nil, at now: Instant) throws(PolicyRefusal) -> Duration {
        try apply(.extend(app: app), credentials: Credentials(phrase: phrase), at: now).budget!
    }

    mutating func importSettings(
        _ wanted: RunTimeSettings, pin: PinCheck, at now: Instant
    ) throws(PolicyRefusal)
        -> ChangeOutcome
    {
        try apply(.importSettings(wanted), credentials: Credentials(pin: pin), at: now).change!
    }

    mutating func completeEmergency(hold: UInt64, at now: Instant) throws(PolicyRefusal) -> UnlockWindow {
        try apply(.completeEmergency(hold: hold), at: now).window!
    }
}
